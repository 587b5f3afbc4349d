//! Two callers on one server, over A2A 0.3 and 1.0, JSON-RPC and HTTP+JSON, with the
//! in-memory store, SQLite and PostgreSQL: each lists, reads, cancels, subscribes to and
//! continues only its own tasks, another caller's task is answered exactly as one that does
//! not exist, and reusing another caller's `contextId` never joins its context. The callers
//! are two principals, or one principal's id in two tenants (tenants on): the tenant is part
//! of whose a task is. Plus a property: whatever one caller does, no answer it gets holds a
//! byte of the other's tasks. PostgreSQL runs are skipped without it (see
//! `support::postgres`).
#![cfg(feature = "sqlite")]

mod support;

use std::time::Duration;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::{Principal, TokenTable};
use proptest::prelude::*;
use serde_json::{Value, json};
use support::stores::Store;
use support::{TestServer, builder, spawn, text_message, text_message_v1};

/// Replies to each message and waits for more; "hold" keeps running until canceled.
async fn chat(request: Request) -> Result<Reply, AgentError> {
    if request.text() == "hold" {
        tokio::time::sleep(Duration::from_secs(120)).await;
    }
    Ok(Reply::text(format!("reply to {}", request.text()))
        .with_final_state(TaskState::InputRequired))
}

/// Who the two callers are.
#[derive(Clone, Copy, Debug)]
enum Split {
    /// Two principals, no tenants.
    Principals,
    /// The same principal id in two tenants, tenants on.
    Tenants,
}

/// One server, and a client for each caller (and one without credentials).
struct Callers {
    _server: TestServer,
    alice: TestServer,
    bob: TestServer,
    nobody: TestServer,
}

async fn callers(store: Store, split: Split) -> Option<Callers> {
    let (alice, bob) = match split {
        Split::Principals => (Principal::new("alice"), Principal::new("bob")),
        Split::Tenants => (
            Principal::new("alice").with_tenant("acme"),
            Principal::new("alice").with_tenant("globex"),
        ),
    };
    let table = TokenTable::new()
        .with(alice, "alice-token")
        .with(bob, "bob-token");
    let builder = builder(chat).auth_tokens(table);
    let builder = match split {
        Split::Principals => builder,
        Split::Tenants => builder.tenants(["acme", "globex"]),
    };
    let server = spawn(store.on(builder).await?.build().unwrap()).await;
    let client = |token: &str| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        let mut caller = TestServer::external(server.url.clone());
        caller.client = reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap();
        caller
    };
    Some(Callers {
        alice: client("alice-token"),
        bob: client("bob-token"),
        nobody: TestServer::external(server.url.clone()),
        _server: server,
    })
}

/// A task of `caller`'s waiting for input, holding `text`; its id and context.
async fn task_of(caller: &TestServer, text: &str) -> (String, String) {
    let task = caller.result("message/send", text_message(text)).await;
    assert_eq!(task["status"]["state"], "input-required", "{task}");
    (
        task["id"].as_str().unwrap().to_owned(),
        task["contextId"].as_str().unwrap().to_owned(),
    )
}

/// A task id nobody has, as long as a real one.
fn missing_id() -> String {
    "00000000-0000-4000-8000-000000000000".to_owned()
}

/// `answer` with `id` written as `ID`, to compare answers about different ids.
fn without(answer: &Value, id: &str) -> String {
    answer.to_string().replace(id, "ID")
}

/// Asserts that what `ask` answers about `foreign` is what it answers about a task that
/// does not exist, and that it is an error.
async fn answered_as_missing<F, Fut>(what: &str, foreign: &str, ask: F)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let missing = missing_id();
    let about_foreign = ask(foreign.to_owned()).await;
    let about_missing = ask(missing.clone()).await;
    assert_eq!(
        without(&about_foreign, foreign),
        without(&about_missing, &missing),
        "{what}: another caller's task must read as a missing one"
    );
    assert!(
        about_foreign.to_string().contains("rror") || about_foreign.to_string().contains("404"),
        "{what}: {about_foreign}"
    );
}

fn with_task(mut params: Value, id: &str) -> Value {
    params["message"]["taskId"] = json!(id);
    params
}

async fn scoped_everywhere(store: Store, split: Split) {
    let Some(Callers {
        _server: _serving,
        alice,
        bob,
        nobody,
    }) = callers(store, split).await
    else {
        return;
    };
    let bob = &bob;
    let (alice_task, alice_context) = task_of(&alice, "alice secret plan").await;
    let (bob_task, _) = task_of(bob, "bob's own").await;

    // Without credentials: nothing at all.
    let (status, _) = nobody
        .post_raw(
            json!({"jsonrpc": "2.0", "id": 1,
        "method": "tasks/get", "params": {"id": alice_task}})
            .to_string(),
        )
        .await;
    assert_eq!(status, 401);

    // Listing: each caller sees its own task only (1.0 JSON-RPC and HTTP+JSON).
    for (caller, own, other) in [
        (&alice, &alice_task, &bob_task),
        (bob, &bob_task, &alice_task),
    ] {
        let listed = caller.call_v1("ListTasks", json!({})).await;
        let ids: Vec<&str> = listed["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|task| task["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [own.as_str()], "{listed}");
        assert_eq!(listed["result"]["totalSize"], 1, "{listed}");
        let (status, rest) = caller.rest("GET", "tasks", None).await;
        assert_eq!(status, 200);
        assert!(rest.to_string().contains(own.as_str()), "{rest}");
        assert!(!rest.to_string().contains(other.as_str()), "{rest}");
    }
    let bobs = bob.call_v1("ListTasks", json!({})).await.to_string();
    assert!(!bobs.contains("alice secret plan"), "{bobs}");

    // Reading, canceling, subscribing, continuing: as if the task did not exist.
    answered_as_missing("0.3 tasks/get", &alice_task, |id| {
        bob.call("tasks/get", json!({"id": id}))
    })
    .await;
    answered_as_missing("1.0 GetTask", &alice_task, |id| {
        bob.call_v1("GetTask", json!({"id": id}))
    })
    .await;
    answered_as_missing("REST get", &alice_task, |id| async move {
        let (status, body) = bob.rest("GET", &format!("tasks/{id}"), None).await;
        json!({"status": status, "body": body})
    })
    .await;
    answered_as_missing("0.3 tasks/cancel", &alice_task, |id| {
        bob.call("tasks/cancel", json!({"id": id}))
    })
    .await;
    answered_as_missing("1.0 CancelTask", &alice_task, |id| {
        bob.call_v1("CancelTask", json!({"id": id}))
    })
    .await;
    answered_as_missing("REST cancel", &alice_task, |id| async move {
        let (status, body) = bob.rest("POST", &format!("tasks/{id}:cancel"), None).await;
        json!({"status": status, "body": body})
    })
    .await;
    answered_as_missing("0.3 tasks/resubscribe", &alice_task, |id| async move {
        Value::Array(
            bob.stream("tasks/resubscribe", json!({"id": id}))
                .await
                .events,
        )
    })
    .await;
    answered_as_missing("1.0 SubscribeToTask", &alice_task, |id| async move {
        let response = bob
            .client
            .post(&bob.url)
            .header("A2A-Version", "1.0")
            .header("content-type", "application/json")
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask",
                         "params": {"id": id}})
                .to_string(),
            )
            .send()
            .await
            .unwrap();
        // An error before the stream starts may come as a plain JSON-RPC answer or as one
        // SSE event: either way, the whole body is the answer.
        let status = response.status().as_u16();
        let body = response.text().await.unwrap();
        json!({"status": status, "body": body})
    })
    .await;
    answered_as_missing("REST subscribe", &alice_task, |id| async move {
        let (status, body) = bob
            .rest("POST", &format!("tasks/{id}:subscribe"), None)
            .await;
        json!({"status": status, "body": body})
    })
    .await;
    answered_as_missing("0.3 continue", &alice_task, |id| {
        bob.call("message/send", with_task(text_message("mine now"), &id))
    })
    .await;
    answered_as_missing("1.0 continue", &alice_task, |id| {
        bob.call_v1("SendMessage", with_task(text_message_v1("mine now"), &id))
    })
    .await;
    answered_as_missing("REST continue", &alice_task, |id| async move {
        let body = with_task(text_message_v1("mine now"), &id);
        let (status, body) = bob.rest("POST", "message:send", Some(body)).await;
        json!({"status": status, "body": body})
    })
    .await;

    // Alice's task is as she left it, and she can still do all of it herself.
    let kept = alice.result("tasks/get", json!({"id": alice_task})).await;
    assert_eq!(kept["status"]["state"], "input-required");
    assert_eq!(kept["history"].as_array().unwrap().len(), 1, "{kept}");
    let subscribed = alice
        .stream("tasks/resubscribe", json!({"id": alice_task}))
        .await;
    assert_eq!(subscribed.results()[0]["id"], json!(alice_task));
    let continued = alice
        .result(
            "message/send",
            with_task(text_message("go on"), &alice_task),
        )
        .await;
    assert_eq!(continued["id"], json!(alice_task));
    assert!(
        continued.to_string().contains("reply to go on"),
        "{continued}"
    );

    // A context id is the caller's own: Bob's message in Alice's context starts his own
    // task, and neither sees the other's task in it.
    let mut in_her_context = text_message("bob in alice's context");
    in_her_context["message"]["contextId"] = json!(alice_context);
    let bobs_task = bob.result("message/send", in_her_context).await;
    assert!(
        bobs_task["history"].as_array().unwrap().len() == 1,
        "{bobs_task}"
    );
    for (caller, expected) in [
        (&alice, &alice_task),
        (bob, &bobs_task["id"].as_str().unwrap().to_owned()),
    ] {
        let listed = caller
            .call_v1("ListTasks", json!({"contextId": alice_context}))
            .await;
        let ids: Vec<&str> = listed["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|task| task["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [expected.as_str()], "{listed}");
    }

    // A running task: found, canceled and subscribed to only by its caller.
    let mut hold = text_message("hold");
    hold["configuration"] = json!({"blocking": false});
    let running = alice.result("message/send", hold).await;
    let running_id = running["id"].as_str().unwrap().to_owned();
    answered_as_missing("get a running task", &running_id, |id| {
        bob.call_v1("GetTask", json!({"id": id}))
    })
    .await;
    answered_as_missing("cancel a running task", &running_id, |id| {
        bob.call_v1("CancelTask", json!({"id": id}))
    })
    .await;
    answered_as_missing(
        "subscribe to a running task",
        &running_id,
        |id| async move {
            Value::Array(
                bob.stream("tasks/resubscribe", json!({"id": id}))
                    .await
                    .events,
            )
        },
    )
    .await;
    let canceled = alice
        .result("tasks/cancel", json!({"id": running_id}))
        .await;
    assert_eq!(canceled["status"]["state"], "canceled");
}

#[tokio::test]
async fn callers_see_only_their_own_tasks_in_memory() {
    scoped_everywhere(Store::Memory, Split::Principals).await;
}

#[tokio::test]
async fn callers_see_only_their_own_tasks_in_sqlite() {
    scoped_everywhere(Store::Sqlite, Split::Principals).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn callers_see_only_their_own_tasks_in_postgres() {
    scoped_everywhere(Store::Postgres, Split::Principals).await;
}

#[tokio::test]
async fn tenants_see_only_their_own_tasks_in_memory() {
    scoped_everywhere(Store::Memory, Split::Tenants).await;
}

#[tokio::test]
async fn tenants_see_only_their_own_tasks_in_sqlite() {
    scoped_everywhere(Store::Sqlite, Split::Tenants).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn tenants_see_only_their_own_tasks_in_postgres() {
    scoped_everywhere(Store::Postgres, Split::Tenants).await;
}

/// What Bob may try, on his own tasks or Alice's.
#[derive(Debug, Clone)]
enum Op {
    Send(u8),
    Get(usize, bool),
    List(Option<usize>),
    Cancel(usize),
    Subscribe(usize),
    Continue(usize),
    Rest(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        any::<u8>().prop_map(Op::Send),
        (0..6usize, any::<bool>()).prop_map(|(n, v1)| Op::Get(n, v1)),
        proptest::option::of(0..6usize).prop_map(Op::List),
        (0..6usize).prop_map(Op::Cancel),
        (0..6usize).prop_map(Op::Subscribe),
        (0..6usize).prop_map(Op::Continue),
        (0..6usize).prop_map(Op::Rest),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// No sequence of Bob's operations gets him a byte of Alice's tasks: not her texts,
    /// and not her task ids unless he sent them himself.
    #[test]
    fn no_answer_to_one_caller_holds_the_others_tasks(
        ops in proptest::collection::vec(op(), 1..10),
        sqlite in any::<bool>(),
        tenants in any::<bool>(),
    ) {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let store = if sqlite { Store::Sqlite } else { Store::Memory };
            let split = if tenants { Split::Tenants } else { Split::Principals };
            let Some(Callers { _server: _serving, alice, bob, .. }) = callers(store, split).await
            else {
                return Ok(());
            };
            let mut alice_tasks = Vec::new();
            for n in 0..3 {
                alice_tasks.push(task_of(&alice, &format!("ALICE-SECRET-{n}")).await);
            }
            let mut known: Vec<(String, String)> = alice_tasks.clone();
            for op in ops {
                let pick = |n: usize| known[n % known.len()].clone();
                let (sent, answer): (Vec<String>, Value) = match op {
                    Op::Send(n) => {
                        let answer = bob.call("message/send", text_message(&format!("bob {n}"))).await;
                        if let Some(id) = answer["result"]["id"].as_str() {
                            let context = answer["result"]["contextId"].as_str().unwrap_or("");
                            known.push((id.to_owned(), context.to_owned()));
                        }
                        (vec![], answer)
                    }
                    Op::Get(n, v1) => {
                        let (id, _) = pick(n);
                        let answer = if v1 {
                            bob.call_v1("GetTask", json!({"id": id})).await
                        } else {
                            bob.call("tasks/get", json!({"id": id})).await
                        };
                        (vec![id], answer)
                    }
                    Op::List(context) => {
                        let params = match context {
                            Some(n) => json!({"contextId": pick(n).1}),
                            None => json!({}),
                        };
                        let sent = params["contextId"].as_str().map(str::to_owned).into_iter().collect();
                        (sent, bob.call_v1("ListTasks", params).await)
                    }
                    Op::Cancel(n) => {
                        let (id, _) = pick(n);
                        (vec![id.clone()], bob.call("tasks/cancel", json!({"id": id})).await)
                    }
                    Op::Subscribe(n) => {
                        let (id, _) = pick(n);
                        let events = bob.stream("tasks/resubscribe", json!({"id": id})).await.events;
                        (vec![id], Value::Array(events))
                    }
                    Op::Continue(n) => {
                        let (id, context) = pick(n);
                        let mut params = with_task(text_message("more"), &id);
                        params["message"]["contextId"] = json!(context);
                        (vec![id, context], bob.call("message/send", params).await)
                    }
                    Op::Rest(n) => {
                        let (id, _) = pick(n);
                        let (status, body) = bob.rest("GET", &format!("tasks/{id}"), None).await;
                        (vec![id], json!({"status": status, "body": body}))
                    }
                };
                let mut text = answer.to_string();
                for echoed in &sent {
                    text = text.replace(echoed.as_str(), "");
                }
                prop_assert!(!text.contains("ALICE-SECRET"), "{}", text);
                for (id, _) in &alice_tasks {
                    prop_assert!(!text.contains(id.as_str()), "{} in {}", id, text);
                }
            }
            // Alice's tasks are untouched.
            for (id, _) in &alice_tasks {
                let task = alice.result("tasks/get", json!({"id": id})).await;
                prop_assert_eq!(&task["status"]["state"], "input-required");
                prop_assert_eq!(task["history"].as_array().unwrap().len(), 1);
            }
            Ok(())
        })?;
    }
}

/// Says who asked, in which tenant, with which scopes.
async fn who(request: Request) -> Result<Reply, AgentError> {
    let caller = request.principal();
    Ok(Reply::text(format!(
        "{} in {} with [{}]",
        caller.id(),
        caller.tenant().unwrap_or("no tenant"),
        caller.scopes().join(" ")
    )))
}

#[tokio::test]
async fn the_token_files_tenant_and_scopes_reach_the_agent_over_both_versions() {
    let table =
        TokenTable::parse("carol c-token tenant=acme scopes=read,book\ndave d-token\n").unwrap();
    let server = spawn(builder(who).auth_tokens(table).build().unwrap()).await;
    let as_caller = |token: &str| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        let mut caller = TestServer::external(server.url.clone());
        caller.client = reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap();
        caller
    };
    let carol = as_caller("c-token");
    let sent = carol.call("message/send", text_message("who am I")).await;
    assert!(
        sent.to_string().contains("carol in acme with [read book]"),
        "{sent}"
    );
    let sent = carol
        .call_v1("SendMessage", text_message_v1("who am I"))
        .await;
    assert!(
        sent.to_string().contains("carol in acme with [read book]"),
        "{sent}"
    );
    let sent = as_caller("d-token")
        .call_v1("SendMessage", text_message_v1("who am I"))
        .await;
    assert!(
        sent.to_string().contains("dave in no tenant with []"),
        "{sent}"
    );
}
