//! The MCP binding beside A2A and AG-UI on one server: each caller (a bearer token each)
//! sees only its own conversations and tasks whichever binding it used, and a request
//! naming another caller's `Mcp-Session-Id` is answered as if the session did not exist,
//! revealing nothing. `notifications/cancelled` for a `tools/call` in flight stops the
//! agent at once (its future is dropped), the task ends canceled and the call's stream
//! closes. JWT bearer tokens and tenants (`/{tenant}/mcp`) apply as over A2A.
#![cfg(all(feature = "mcp", feature = "jwt"))]

mod mcp_client;
mod support;

#[allow(dead_code)] // the other helpers serve the interop tests
#[path = "interop/support.rs"]
mod interop;

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::clock::ManualClock;
use a2ui_agent::request::Request;
use a2ui_agent::server::{JwtAuth, Principal, TokenTable};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_client::{Mcp, SESSION, read};
use serde_json::{Value, json};
use support::{TestServer, builder, spawn};
use tokio::sync::Notify;

/// An A2A 1.0 JSON-RPC call with `token`; the response.
async fn a2a(server: &TestServer, token: &str, method: &str, params: Value) -> Value {
    server
        .client
        .post(&server.url)
        .bearer_auth(token)
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The tasks `token`'s caller lists over A2A.
async fn tasks_of(server: &TestServer, token: &str) -> Vec<Value> {
    let page = a2a(server, token, "ListTasks", json!({})).await;
    page["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("{page}"))
        .clone()
}

/// An AG-UI run of `text` in `thread` with `token`, read to its end.
async fn ag_ui(server: &TestServer, token: &str, thread: &str, text: &str) -> String {
    let body = json!({"threadId": thread, "runId": support::unique_id(),
        "messages": [{"id": support::unique_id(), "role": "user", "content": text}]});
    let response = server
        .client
        .post(format!("{}ag-ui", server.url))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

#[tokio::test]
async fn a2a_ag_ui_and_mcp_callers_each_see_only_their_own_and_sessions_stay_their_callers() {
    let table = TokenTable::new()
        .with(Principal::new("alice"), "alice-token")
        .with(Principal::new("bob"), "bob-token")
        .with(Principal::new("carol"), "carol-token");
    let server = spawn(
        builder(interop::test_agent)
            .auth_tokens(table)
            .ag_ui("/ag-ui")
            .mcp("/mcp")
            .build()
            .unwrap(),
    )
    .await;
    let mcp_url = format!("{}mcp", server.url);
    // Alice over A2A, Bob over AG-UI, Carol over MCP, all at once.
    let alice = a2a(
        &server,
        "alice-token",
        "SendMessage",
        json!({"message": {"role": "ROLE_USER", "messageId": "alice-m1",
            "parts": [{"text": "alice-secret"}]}}),
    );
    let bob = ag_ui(&server, "bob-token", "bob-thread", "bob-secret");
    let mut carol = Mcp::new(&mcp_url, Some("carol-token"));
    let carols = async {
        carol.initialize().await;
        let tool = carol.tool_name().await;
        carol.ask(&tool, "carol-secret").await
    };
    let (alice, bob, carols) = tokio::join!(alice, bob, carols);
    assert!(alice.to_string().contains("echo: alice-secret"), "{alice}");
    assert!(bob.contains("echo: bob-secret"), "{bob}");
    assert!(
        carols.to_string().contains("echo: carol-secret"),
        "{carols}"
    );
    let carol_conversation = carols["_meta"]["a2ui-agent/contextId"]
        .as_str()
        .unwrap_or_else(|| panic!("{carols}"))
        .to_owned();

    // Each caller lists its one task, whichever binding made it.
    for (token, secret, others) in [
        (
            "alice-token",
            "alice-secret",
            ["bob-secret", "carol-secret"],
        ),
        ("bob-token", "bob-secret", ["alice-secret", "carol-secret"]),
        (
            "carol-token",
            "carol-secret",
            ["alice-secret", "bob-secret"],
        ),
    ] {
        let tasks = tasks_of(&server, token).await;
        let listed = json!(tasks).to_string();
        assert_eq!(tasks.len(), 1, "{token}: {listed}");
        assert!(listed.contains(secret), "{token}: {listed}");
        assert!(
            others.iter().all(|other| !listed.contains(other)),
            "{token}: {listed}"
        );
    }
    let carols_tasks = tasks_of(&server, "carol-token").await;
    assert_eq!(carols_tasks[0]["contextId"], carol_conversation.as_str());

    // Bob presenting Carol's session, with his own token: the answer an unknown session
    // gets, for every method, and nothing of Carol's in it.
    let mut intruder = carol.clone();
    intruder.token = Some("bob-token".into());
    let unknown = Mcp {
        session: Some("no-such-session".into()),
        ..intruder.clone()
    };
    let never = unknown.request(5, "tools/list", json!({})).await;
    for answer in [
        intruder.request(5, "tools/list", json!({})).await,
        intruder
            .request(
                6,
                "tools/call",
                json!({"name": "interop", "arguments": {"message": "what did carol say?"}}),
            )
            .await,
    ] {
        assert_eq!(answer.status, 404, "{answer:?}");
        assert_eq!(answer.text, never.text);
        assert!(!answer.text.contains("carol"), "{answer:?}");
    }
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = server
            .client
            .request(method.clone(), &mcp_url)
            .bearer_auth("bob-token")
            .header("accept", "text/event-stream")
            .header(SESSION, carol.session.clone().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404, "{method}");
    }
    // Carol's session is still hers, whole.
    assert_eq!(carol.request(7, "tools/list", json!({})).await.status, 200);

    // Bob naming Carol's conversation in `_meta`: a conversation of his own, none of her
    // turns in it.
    let mut bobs_mcp = Mcp::new(&mcp_url, Some("bob-token"));
    bobs_mcp.initialize().await;
    let tool = carol.tool_name().await;
    let answer = bobs_mcp
        .request(
            8,
            "tools/call",
            json!({"name": tool, "arguments": {"message": "bob-again"},
            "_meta": {"a2ui-agent/contextId": carol_conversation}}),
        )
        .await;
    let text = answer.body.to_string();
    assert!(
        text.contains("echo: bob-again") && !text.contains("carol-secret"),
        "{answer:?}"
    );
    let carols_after = tasks_of(&server, "carol-token").await;
    assert_eq!(carols_after.len(), 1, "{carols_after:?}");
    assert!(!json!(carols_after).to_string().contains("bob"));
}

/// Raised when the agent's work is dropped.
struct Dropped(Arc<Notify>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

#[tokio::test]
async fn a_cancelled_tool_call_stops_the_agent_and_ends_its_task_canceled() {
    let dropped = Arc::new(Notify::new());
    let flag = dropped.clone();
    let agent = move |_request: Request| {
        let guard = Dropped(flag.clone());
        async move {
            // One word, then the model thinks for ever; the guard lives as long as the reply.
            let words = futures::stream::unfold((guard, false), |(guard, said)| async move {
                if said {
                    futures::future::pending::<()>().await;
                }
                Some(("thinking ".to_owned(), (guard, true)))
            });
            Ok::<_, AgentError>(Reply::stream(words))
        }
    };
    let server = spawn(builder(agent).mcp("/mcp").build().unwrap()).await;
    let mut client = Mcp::new(format!("{}mcp", server.url), None);
    client.initialize().await;
    let tool = client.tool_name().await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": tool, "arguments": {"message": "think"}, "_meta": {"progressToken": "p"}}});
    let mut response = client.post(call.to_string()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    // The model has started: its first word came as progress.
    let mut seen = String::new();
    while !seen.contains("thinking") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk())
            .await
            .expect("no progress in time")
            .unwrap()
            .expect("the stream ended before any progress");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let cancelled = client
        .send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "the user changed their mind"}}),
        )
        .await;
    assert_eq!(cancelled.status, 202, "{cancelled:?}");
    tokio::time::timeout(Duration::from_secs(5), dropped.notified())
        .await
        .expect("the agent was not stopped");
    // The call's stream closes (no result for a cancelled request).
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        let mut rest = String::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            rest.push_str(&String::from_utf8_lossy(&chunk));
        }
        rest
    })
    .await
    .expect("the call's stream stayed open");
    assert!(!rest.contains("\"result\""), "{rest}");
    let mut state = Value::Null;
    for _ in 0..100 {
        let page = server.call_v1("ListTasks", json!({})).await;
        state = page["result"]["tasks"][0]["status"]["state"].clone();
        if state == "TASK_STATE_CANCELED" {
            // The session goes on: the next call is answered.
            let next = client.request(8, "tools/list", json!({})).await;
            assert_eq!(next.status, 200, "{next:?}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task was not canceled: {state}");
}

/// Ed25519 keys made with `openssl genpkey -algorithm ed25519` for the JWT tests only:
/// PKCS#8 DER, and the public key as the JWKS `x` (the keys of `tests/server_jwt.rs`).
const KEY_A: &str = "302e020100300506032b65700422042018ac5236fd8da698e8732608b377b6ea8d15e1da3917b39262bb5793b8f4ae05";
const PUBLIC_A: &str = "ZSDaY5qNfZKHA8AqykXG6_ymy-Leme_5HWn1wzWOzb4";
const KEY_B: &str = "302e020100300506032b657004220420ea4221c066806828832ae3e63ce1f4bd49d05f2080e2fbea3ceffbf1cf2c1832";
const ISSUER: &str = "https://issuer.test";
const AUDIENCE: &str = "a2ui-test-agent";
/// The server's clock, in seconds since the epoch.
const NOW: u64 = 1_800_000_000;

fn signed(key_hex: &str, sub: &str, tenant: &str) -> String {
    let der: Vec<u8> = (0..key_hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&key_hex[at..at + 2], 16).unwrap())
        .collect();
    let claims = json!({"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "tenant": tenant,
        "exp": NOW + 600, "iat": NOW});
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some("a".into());
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ed_der(&der)).unwrap()
}

/// Says who asked, and waits for the next turn.
async fn who(request: Request) -> Result<Reply, AgentError> {
    let caller = request.principal();
    Ok(Reply::text(format!(
        "hi {} of {}: {}",
        caller.id(),
        caller.tenant().unwrap_or("no tenant"),
        request.text()
    ))
    .with_final_state(TaskState::InputRequired))
}

#[tokio::test]
async fn jwt_callers_reach_their_own_tenants_mcp_and_no_other() {
    let jwks = json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "a", "x": PUBLIC_A}]});
    let jwt = JwtAuth::from_jwks(&jwks.to_string())
        .unwrap()
        .issuer(ISSUER)
        .audience(AUDIENCE)
        .tenant_claim("tenant");
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + Duration::from_secs(NOW)));
    let server = spawn(
        builder(who)
            .jwt(jwt)
            .clock(clock)
            .tenants(["acme", "globex"])
            .mcp("/mcp")
            .build()
            .unwrap(),
    )
    .await;
    let acme = format!("{}acme/mcp", server.url);
    let globex = format!("{}globex/mcp", server.url);
    let alice = signed(KEY_A, "alice", "acme");
    let bob = signed(KEY_A, "bob", "globex");

    // Alice in her tenant: a session, and the agent knows who she is.
    let mut client = Mcp::new(&acme, Some(&alice));
    client.initialize().await;
    let tool = client.tool_name().await;
    let result = client.ask(&tool, "book a table").await;
    let text = result.to_string();
    assert!(text.contains("hi alice of acme: book a table"), "{text}");

    // No token, a token signed by another key, one that is no JWT: 401, before MCP.
    let forged = signed(KEY_B, "alice", "acme");
    for token in [None, Some(forged.as_str()), Some("not.a.jwt")] {
        let refused = Mcp::new(&acme, token)
            .request(1, "tools/list", json!({}))
            .await;
        assert_eq!(refused.status, 401, "{token:?}: {refused:?}");
        assert!(!refused.text.contains("alice"), "{refused:?}");
    }
    // Alice in another tenant's path: as if there were nothing there, session or not.
    let mut elsewhere = Mcp::new(&globex, Some(&alice));
    let refused = elsewhere.request(1, "initialize", json!({})).await;
    assert_eq!(refused.status, 404, "{refused:?}");
    elsewhere.session = client.session.clone();
    assert_eq!(
        elsewhere.request(2, "tools/list", json!({})).await.status,
        404
    );
    // Bob of globex with Alice's session, on either path: unknown.
    for url in [&acme, &globex] {
        let intruder = Mcp {
            url: url.to_string(),
            token: Some(bob.clone()),
            ..client.clone()
        };
        let answer = intruder.request(3, "tools/list", json!({})).await;
        assert_eq!(answer.status, 404, "{url}: {answer:?}");
    }
    // Bob in his own tenant: his own session and conversation, none of Alice's.
    let mut bobs = Mcp::new(&globex, Some(&bob));
    bobs.initialize().await;
    let text = bobs.ask(&tool, "anything booked?").await.to_string();
    assert!(
        text.contains("hi bob of globex") && !text.contains("book a table"),
        "{text}"
    );
    // Over A2A, each tenant lists only its own task.
    for (tenant, token, said) in [
        ("acme", &alice, "book a table"),
        ("globex", &bob, "anything"),
    ] {
        let page: Value = server
            .client
            .post(format!("{}{tenant}/", server.url))
            .bearer_auth(token)
            .header("A2A-Version", "1.0")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let tasks = page["result"]["tasks"].as_array().unwrap();
        assert_eq!(tasks.len(), 1, "{tenant}: {page}");
        assert!(page.to_string().contains(said), "{tenant}: {page}");
    }
    // The session answers its owner after all that.
    let ping = client.post(json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string());
    let answer = read(ping.send().await.unwrap()).await;
    assert_eq!(
        (answer.status, answer.body["result"].clone()),
        (200, json!({})),
        "{answer:?}"
    );
}
