use std::time::UNIX_EPOCH;

use super::*;
use crate::a2a::TaskState;
use crate::clock::ManualClock;

fn task(id: &str, state: TaskState) -> Task {
    Task::new(id, "c", state)
}

fn store(capacity: usize, idle: u64) -> (InMemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH));
    let store = InMemoryStore::new()
        .capacity(capacity)
        .idle_timeout(Duration::from_secs(idle))
        .clock(clock.clone());
    (store, clock)
}

#[test]
fn a_full_store_evicts_the_least_recently_updated_settled_task() {
    let (store, _) = store(2, 3600);
    store
        .put_now(&Owner::anonymous(), task("a", TaskState::Completed))
        .unwrap();
    store
        .put_now(&Owner::anonymous(), task("b", TaskState::InputRequired))
        .unwrap();
    store
        .put_now(&Owner::anonymous(), task("a", TaskState::Completed))
        .unwrap();
    store
        .put_now(&Owner::anonymous(), task("c", TaskState::Working))
        .unwrap();
    assert!(store.get_now(&Owner::anonymous(), "b").unwrap().is_none());
    assert!(store.get_now(&Owner::anonymous(), "a").unwrap().is_some());
    assert_eq!(store.len(), 2);
}

#[test]
fn running_tasks_are_never_evicted_and_a_store_full_of_them_refuses_more() {
    let (store, clock) = store(2, 1);
    store
        .put_now(&Owner::anonymous(), task("a", TaskState::Working))
        .unwrap();
    store
        .put_now(&Owner::anonymous(), task("b", TaskState::Submitted))
        .unwrap();
    clock.advance(Duration::from_secs(10));
    assert!(matches!(
        store.put_now(&Owner::anonymous(), task("c", TaskState::Working)),
        Err(StoreError::Full { capacity: 2 })
    ));
    assert!(store.get_now(&Owner::anonymous(), "a").unwrap().is_some());
    assert!(store.get_now(&Owner::anonymous(), "b").unwrap().is_some());
}

#[test]
fn settled_tasks_are_forgotten_after_the_idle_timeout() {
    let (store, clock) = store(10, 60);
    store
        .put_now(&Owner::anonymous(), task("done", TaskState::Completed))
        .unwrap();
    store
        .put_now(&Owner::anonymous(), task("running", TaskState::Working))
        .unwrap();
    clock.advance(Duration::from_secs(59));
    assert!(
        store
            .get_now(&Owner::anonymous(), "done")
            .unwrap()
            .is_some()
    );
    clock.advance(Duration::from_secs(1));
    assert!(
        store
            .get_now(&Owner::anonymous(), "done")
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .get_now(&Owner::anonymous(), "running")
            .unwrap()
            .is_some()
    );
}

#[test]
fn history_is_bounded_by_messages_and_by_bytes_keeping_the_newest() {
    use crate::a2a::{Message, Part};
    let store = InMemoryStore::new().max_history(3).max_history_bytes(2_000);
    let mut long = task("t", TaskState::InputRequired);
    let messages = |size: usize| -> Vec<Message> {
        (0..10)
            .map(|n| Message::agent(format!("m{n}"), vec![Part::text("x".repeat(size))]))
            .collect()
    };
    let ids = |store: &InMemoryStore| -> Vec<String> {
        let task = store.get_now(&Owner::anonymous(), "t").unwrap().unwrap();
        task.history.into_iter().map(|m| m.message_id).collect()
    };
    long.history = messages(100);
    store.put_now(&Owner::anonymous(), long.clone()).unwrap();
    assert_eq!(ids(&store), ["m7", "m8", "m9"]);
    long.history = messages(900);
    store.put_now(&Owner::anonymous(), long).unwrap();
    assert_eq!(ids(&store), ["m8", "m9"]);
}

fn sized(id: &str, state: TaskState, bytes: usize) -> Task {
    use crate::a2a::{Message, Part};
    let mut task = task(id, state);
    task.history = vec![Message::agent("m", vec![Part::text("x".repeat(bytes))])];
    task
}

#[test]
fn a_store_over_its_byte_budget_evicts_settled_tasks_then_refuses_new_ones() {
    let store = InMemoryStore::new().max_bytes(10_000);
    store
        .put_now(
            &Owner::anonymous(),
            sized("old", TaskState::Completed, 4_000),
        )
        .unwrap();
    store
        .put_now(
            &Owner::anonymous(),
            sized("run1", TaskState::Working, 4_000),
        )
        .unwrap();
    // No room for a third: the settled one goes.
    store
        .put_now(
            &Owner::anonymous(),
            sized("run2", TaskState::Working, 4_000),
        )
        .unwrap();
    assert!(store.get_now(&Owner::anonymous(), "old").unwrap().is_none());
    assert!(store.bytes() <= 10_000, "{} bytes", store.bytes());
    // Only running tasks left: a new one is refused, and nothing is lost.
    assert!(matches!(
        store.put_now(
            &Owner::anonymous(),
            sized("run3", TaskState::Working, 4_000)
        ),
        Err(StoreError::OverBudget { max_bytes: 10_000 })
    ));
    assert!(StoreError::OverBudget { max_bytes: 1 }.is_full());
    assert!(
        store
            .get_now(&Owner::anonymous(), "run1")
            .unwrap()
            .is_some()
    );
    // A running task that settles with a bigger reply is still stored.
    store
        .put_now(
            &Owner::anonymous(),
            sized("run1", TaskState::Completed, 5_000),
        )
        .unwrap();
    let settled = store.get_now(&Owner::anonymous(), "run1").unwrap().unwrap();
    assert_eq!(settled.status.state, TaskState::Completed);
    // It can now make room for a new task.
    store
        .put_now(
            &Owner::anonymous(),
            sized("run3", TaskState::Working, 4_000),
        )
        .unwrap();
    assert!(
        store
            .get_now(&Owner::anonymous(), "run1")
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_reply_over_the_parts_budget_is_kept_as_a_notice() {
    use crate::a2a::{Message, Part};
    let store = InMemoryStore::new().max_parts_bytes(1_000);
    let mut big = task("t", TaskState::Completed);
    big.status.message = Some(Message::agent("r", vec![Part::text("y".repeat(50_000))]));
    store.put_now(&Owner::anonymous(), big).unwrap();
    assert!(store.bytes() < 2_000, "{} bytes", store.bytes());
    let reply = store
        .get_now(&Owner::anonymous(), "t")
        .unwrap()
        .unwrap()
        .status
        .message
        .unwrap();
    assert_eq!(reply.message_id, "r");
    let text = reply.parts[0].as_text().unwrap();
    assert!(text.contains("50"), "{text}");
    assert!(text.contains("not kept"), "{text}");
}

#[test]
fn listing_returns_what_the_query_asks_for_of_each_task() {
    use crate::a2a::{Artifact, Message, Part};
    let store = InMemoryStore::new();
    let mut done = task("t", TaskState::Completed);
    done.status.message = Some(Message::agent("r", vec![Part::text("reply")]));
    done.history = vec![
        Message::agent("h1", vec![Part::text("earlier")]),
        Message::agent("h2", vec![Part::text("later")]),
    ];
    done.artifacts = vec![Artifact {
        artifact_id: "a".into(),
        name: None,
        description: None,
        parts: vec![Part::text("ui")],
        extensions: vec![],
        metadata: None,
    }];
    store.put_now(&Owner::anonymous(), done.clone()).unwrap();
    let list = |query: TaskListQuery| {
        block_on(store.list(&Owner::anonymous(), &query))
            .unwrap()
            .unwrap()
            .tasks
    };
    let whole = TaskListQuery {
        include_artifacts: true,
        ..TaskListQuery::default()
    };
    assert_eq!(list(whole), vec![done.clone()]);
    // 1.0's default: no artifacts; and only the newest message of the history.
    let newest = TaskListQuery {
        history_length: Some(1),
        ..TaskListQuery::default()
    };
    done.artifacts.clear();
    done.history.remove(0);
    assert_eq!(list(newest), vec![done]);
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    futures::executor::block_on(future)
}

#[test]
fn idle_settled_tasks_are_swept_when_others_are_stored() {
    let (store, clock) = store(100, 60);
    for n in 0..50 {
        store
            .put_now(
                &Owner::anonymous(),
                task(&format!("t{n}"), TaskState::Failed),
            )
            .unwrap();
    }
    clock.advance(Duration::from_secs(61));
    store
        .put_now(&Owner::anonymous(), task("new", TaskState::Working))
        .unwrap();
    assert_eq!(store.len(), 1);
}

#[test]
fn another_owners_task_is_neither_read_listed_nor_overwritten() {
    let store = InMemoryStore::new();
    let alice = Owner::new("alice");
    store
        .put_now(&alice, task("t", TaskState::InputRequired))
        .unwrap();
    let all = TaskListQuery::default();
    for other in [
        Owner::new("bob"),
        Owner::new("alice").with_tenant("x"),
        Owner::anonymous(),
    ] {
        assert!(store.get_now(&other, "t").unwrap().is_none());
        let page = block_on(store.list(&other, &all)).unwrap().unwrap();
        assert!(page.tasks.is_empty() && page.total_size == 0);
        assert!(matches!(
            store.put_now(&other, task("t", TaskState::Completed)),
            Err(StoreError::OtherOwner { .. })
        ));
    }
    let kept = store.get_now(&alice, "t").unwrap().unwrap();
    assert_eq!(kept.status.state, TaskState::InputRequired);
}
