//! An agent that says nothing: its task ends without a status message (a message needs at
//! least one part), and the task reads back, alone and in a list.

mod support;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use serde_json::json;
use support::{builder, spawn, text_message_v1};

async fn silent(_: Request) -> Result<Reply, AgentError> {
    Ok(Reply::stream(futures::stream::empty::<String>()).with_final_state(TaskState::Completed))
}

#[tokio::test]
async fn a_silent_reply_completes_without_a_message_and_reads_back() {
    let server = spawn(builder(silent).build().unwrap()).await;
    let sent = server.call_v1("SendMessage", text_message_v1("hi")).await;
    let task = &sent["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
    assert!(task["status"].get("message").is_none(), "{sent}");
    let id = task["id"].as_str().unwrap();
    let got = server.call_v1("GetTask", json!({"id": id})).await;
    assert_eq!(got["result"]["id"], id, "{got}");
    let listed = server.call_v1("ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"][0]["id"], id, "{listed}");
}
