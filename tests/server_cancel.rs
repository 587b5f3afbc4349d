//! `tasks/cancel` and client disconnects: a canceled agent really stops, and everyone
//! watching the task hears the final `canceled` update.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use a2ui_agent::a2a::{Task, TaskListQuery, TaskPage, TaskState};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::store::{InMemoryStore, Owner, StoreError, TaskStore};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::json;
use support::{SseReader, builder, spawn, text_message};

/// Sets its flag when dropped: proves the agent's future or stream was dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// An agent that ticks forever, counting ticks, and flags when its stream is dropped.
fn ticking_agent(
    ticks: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
) -> impl Fn(Request) -> futures::future::Ready<Result<Reply, AgentError>> + Send + Sync + 'static {
    move |_request| {
        let ticks = ticks.clone();
        let flag = DropFlag(dropped.clone());
        let stream = futures::stream::unfold((ticks, flag), |(ticks, flag)| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            let n = ticks.fetch_add(1, Ordering::SeqCst);
            Some((Ok(format!("tick {n} ")), (ticks, flag)))
        });
        futures::future::ready(Ok(Reply::stream(stream)))
    }
}

async fn wait_for(flag: &AtomicBool) {
    for _ in 0..1000 {
        if flag.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the agent was never dropped");
}

#[tokio::test]
async fn canceling_a_running_stream_drops_the_agent_and_ends_every_subscriber_with_canceled() {
    let ticks = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicBool::new(false));
    let server = spawn(
        builder(ticking_agent(ticks.clone(), dropped.clone()))
            .build()
            .unwrap(),
    )
    .await;
    let mut first = SseReader::new(
        server
            .open_stream("message/stream", text_message("go"))
            .await,
    );
    let task = first.next_event().await.unwrap();
    let id = task["result"]["id"].as_str().unwrap().to_owned();
    // Wait until the agent produced a chunk, then attach a second subscriber.
    loop {
        let event = first.next_event().await.unwrap();
        if event["result"]["status"]["message"].is_object() {
            break;
        }
    }
    let mut second = SseReader::new(
        server
            .open_stream("tasks/resubscribe", json!({"id": id}))
            .await,
    );
    assert_eq!(second.next_event().await.unwrap()["result"]["kind"], "task");

    let canceled = server.result("tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["status"]["state"], "canceled");
    wait_for(&dropped).await;

    for reader in [&mut first, &mut second] {
        let mut last = None;
        while let Some(event) = reader.next_event().await {
            last = Some(event);
        }
        let last = last.unwrap();
        assert_eq!(last["result"]["final"], true);
        assert_eq!(last["result"]["status"]["state"], "canceled");
    }
    let after = ticks.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        ticks.load(Ordering::SeqCst),
        after,
        "the agent kept ticking"
    );
    assert_eq!(server.get_task(&id).await["status"]["state"], "canceled");
    // A canceled task is terminal.
    assert_eq!(
        server.error_code("tasks/cancel", json!({"id": id})).await,
        -32002
    );
}

#[tokio::test]
async fn canceling_a_blocking_send_drops_the_agent_future() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = dropped.clone();
    let agent = move |_request: Request| {
        let guard = DropFlag(flag.clone());
        async move {
            let _guard = guard;
            std::future::pending::<()>().await;
            Ok::<_, AgentError>(Reply::text("never"))
        }
    };
    let server = Arc::new(spawn(builder(agent).build().unwrap()).await);
    let mut params = text_message("wait");
    params["configuration"] = json!({"blocking": false});
    let task = server.result("message/send", params).await;
    let id = task["id"].as_str().unwrap().to_owned();
    let canceled = server.result("tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["status"]["state"], "canceled");
    wait_for(&dropped).await;
}

#[tokio::test]
async fn a_task_waiting_for_input_can_be_canceled() {
    let agent = |_request: Request| async { Ok::<_, AgentError>(Reply::text("your turn")) };
    let server = spawn(builder(agent).build().unwrap()).await;
    let task = server.result("message/send", text_message("go")).await;
    assert_eq!(task["status"]["state"], "input-required");
    let canceled = server
        .result("tasks/cancel", json!({"id": task["id"]}))
        .await;
    assert_eq!(canceled["status"]["state"], "canceled");
    let history = canceled["history"].as_array().unwrap();
    assert_eq!(history.last().unwrap()["parts"][0]["text"], "your turn");
}

#[tokio::test]
async fn with_cancel_on_disconnect_a_dropped_stream_cancels_its_task() {
    let ticks = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicBool::new(false));
    let server = spawn(
        builder(ticking_agent(ticks, dropped.clone()))
            .cancel_on_disconnect(true)
            .keep_alive(Duration::from_millis(10))
            .build()
            .unwrap(),
    )
    .await;
    let response = server
        .open_stream("message/stream", text_message("go"))
        .await;
    let mut reader = SseReader::new(response);
    let id = reader.next_event().await.unwrap()["result"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    drop(reader);
    wait_for(&dropped).await;
    let task = server.wait_for_state(&id, "canceled").await;
    assert_eq!(task["status"]["state"], "canceled");
}

#[tokio::test]
async fn cancels_racing_with_the_end_of_a_task_leave_it_settled() {
    // Many short tasks canceled as they finish: whether the cancel lands while the agent
    // runs or after it asked for input, each ends canceled, never stuck or an internal error.
    let agent = |_request: Request| async {
        let chunks = futures::stream::iter(["a", "b"]).then(|chunk| async move {
            tokio::task::yield_now().await;
            Ok::<_, AgentError>(chunk.to_owned())
        });
        Ok(Reply::stream(chunks))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    for _ in 0..30 {
        let mut params = text_message("go");
        params["configuration"] = json!({"blocking": false});
        let task = server.result("message/send", params).await;
        let canceled = server
            .result("tasks/cancel", json!({"id": task["id"]}))
            .await;
        let state = canceled["status"]["state"].clone();
        assert_eq!(state, "canceled");
    }
}

/// A store whose writes of a task in one state land late and cannot be called off, as with a
/// store that hands its writes to a thread (`spawn_blocking`, a writer thread) or a
/// pipelined connection: dropping the `put` future does not stop the write.
struct LateWrites {
    store: Arc<InMemoryStore>,
    state: TaskState,
}

impl LateWrites {
    fn of(state: TaskState) -> Self {
        Self {
            store: Arc::new(InMemoryStore::new()),
            state,
        }
    }
}

impl TaskStore for LateWrites {
    fn get<'a>(
        &'a self,
        owner: &'a Owner,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        self.store.get(owner, id)
    }

    fn put<'a>(&'a self, owner: &'a Owner, task: Task) -> BoxFuture<'a, Result<(), StoreError>> {
        let store = self.store.clone();
        let owner = owner.clone();
        let late = task.status.state == self.state;
        let write = tokio::spawn(async move {
            if late {
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            store.put(&owner, task).await
        });
        Box::pin(async move {
            write
                .await
                .unwrap_or_else(|e| Err(StoreError::backend(e.to_string())))
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a Owner,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        self.store.list(owner, query)
    }
}

#[tokio::test]
async fn a_cancel_while_the_working_state_is_being_stored_is_what_the_store_keeps() {
    let ticks = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicBool::new(false));
    let server = spawn(
        builder(ticking_agent(ticks, dropped))
            .store(LateWrites::of(TaskState::Working))
            .build()
            .unwrap(),
    )
    .await;
    let mut events = SseReader::new(
        server
            .open_stream("message/stream", text_message("go"))
            .await,
    );
    let task = events.next_event().await.unwrap();
    let id = task["result"]["id"].as_str().unwrap().to_owned();
    // The `working` write is still on its way when the cancel arrives.
    let canceled = server.result("tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["status"]["state"], "canceled", "{canceled}");
    tokio::time::sleep(Duration::from_millis(600)).await;
    let kept = server.get_task(&id).await;
    assert_eq!(kept["status"]["state"], "canceled", "{kept}");
}

#[tokio::test]
async fn a_client_that_hangs_up_while_its_task_is_being_stored_leaves_no_task_stranded() {
    let server = spawn(
        builder(|_request: Request| async { Ok::<_, AgentError>(Reply::text("done")) })
            .store(LateWrites::of(TaskState::Submitted))
            .build()
            .unwrap(),
    )
    .await;
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": text_message("hello")});
    let hung_up = impatient.post(&server.url).json(&body).send().await;
    assert!(hung_up.is_err(), "the client gave up before the answer");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let listed = server.call_v1("ListTasks", json!({})).await;
    let tasks = listed["result"]["tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(tasks.len(), 1, "{listed}");
    assert_eq!(
        tasks[0]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "the task was run to its end: {listed}"
    );
}
