//! A failed model call tells the client what kind of failure it was and an error id, never
//! the endpoint or the cause chain (they name internal hosts); the log has both, under the
//! same id. Real sockets: a server in front of a model endpoint that refuses connections.
#![cfg(feature = "llm")]

mod support;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::llm::OpenAiChat;

/// What the server logged, shared with the subscriber's writer.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// The failed task's status text from `server`, asked over a real socket.
async fn failure_shown(server: a2ui_agent::server::A2uiServer) -> String {
    let server = support::spawn(server).await;
    let sse = server
        .stream("message/stream", support::text_message("hi"))
        .await;
    let last = sse.results().last().cloned().unwrap().clone();
    assert_eq!(last["status"]["state"], "failed", "{last}");
    last["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The id in "... (error id ID).".
fn error_id(shown: &str) -> &str {
    let (_, id) = shown
        .split_once("(error id ")
        .unwrap_or_else(|| panic!("no error id in {shown:?}"));
    id.trim_end_matches(").")
}

#[tokio::test]
async fn an_unreachable_model_is_named_to_the_client_without_its_address() {
    let log = Log::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    // A port nothing listens on, behind a name that must stay inside.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let base = format!("http://127.0.0.1:{port}/model-gateway.internal/v1");
    let chat = OpenAiChat::builder(&base, "mock-model")
        .retries(0, Duration::from_millis(1), Duration::from_millis(1))
        .build()
        .unwrap();
    let shown = failure_shown(support::builder(chat).build().unwrap()).await;
    assert!(
        shown.starts_with("Could not reach the model server (error id "),
        "{shown}"
    );
    assert!(!shown.contains("model-gateway.internal"), "{shown}");
    assert!(!shown.contains(&port.to_string()), "{shown}");

    let id = error_id(&shown);
    let logged = log.text();
    let line = logged
        .lines()
        .find(|line| line.contains(id))
        .unwrap_or_else(|| panic!("error id {id} not logged:\n{logged}"));
    assert!(line.contains("model-gateway.internal"), "{line}");

    // An agent's own `?` on a foreign error: the same rule.
    let agent = |_request: a2ui_agent::request::Request| async {
        std::fs::read("/srv/secret-share/agent.toml")?;
        Ok::<_, AgentError>(Reply::text("unreachable"))
    };
    let shown = failure_shown(support::builder(agent).build().unwrap()).await;
    assert!(shown.starts_with("The agent failed (error id "), "{shown}");
    assert!(!shown.contains("secret-share"), "{shown}");
    let id = error_id(&shown);
    assert!(
        log.text()
            .lines()
            .any(|line| line.contains(id) && line.contains("No such file")),
        "{}",
        log.text()
    );

    // A message the agent wrote for the user is shown as it is.
    let agent = |_request: a2ui_agent::request::Request| async {
        Err::<Reply, _>(AgentError::new("The calendar is closed on Sundays."))
    };
    let shown = failure_shown(support::builder(agent).build().unwrap()).await;
    assert_eq!(shown, "The calendar is closed on Sundays.");
}
