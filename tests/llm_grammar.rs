//! The connector's grammar over real HTTP: a client that constrains answers sends the
//! Express grammar of the request's negotiated catalogs as the member it was told to
//! (llama.cpp's `grammar`), and sends none where a server could not take one: a format
//! without a grammar (Direct JSON), a request that offers tools (llama.cpp's server
//! refuses a grammar beside tools), a client that does not constrain.
#![cfg(feature = "llm")]

mod llm_support;
mod support;

use std::time::Duration;

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::{OpenAiChat, OpenAiChatBuilder, Tool};
use llm_support::{Answer, MockModel, sse, text};
use serde_json::{Value, json};
use support::{capabilities, params, spawn};

const V: ProtocolVersion = ProtocolVersion::V0_9;

/// An answer a grammar admits: a line, a block.
fn answer() -> Answer {
    Answer::Sse {
        body: sse(
            &[text(
                "Here it is.\n<a2ui>\nroot = Text(\"Hello\")\n</a2ui>\nDone.",
            )],
            "stop",
        ),
        pause: Duration::ZERO,
    }
}

fn express() -> Generator {
    Generator::builder(V)
        .format(Express::new())
        .build()
        .unwrap()
}

/// What the model server received for one `message/stream` to a server whose agent is
/// built by `chat` and whose generator is `generator`.
async fn request_sent(
    chat: impl FnOnce(OpenAiChatBuilder) -> OpenAiChatBuilder,
    generator: Generator,
) -> Value {
    let mock = MockModel::start(vec![answer()]).await;
    let model = chat(OpenAiChat::builder(&mock.base_url, "m").idle_timeout(Duration::from_secs(5)))
        .build()
        .unwrap();
    let server = spawn(
        support::builder(model)
            .generator(generator)
            .build()
            .unwrap(),
    )
    .await;
    let answer = server
        .exchange(
            "message/stream",
            params(
                json!([{"kind": "text", "text": "Say hello"}]),
                Some(capabilities(V, &[V.basic_catalog_id()])),
                None,
            ),
            &[V.extension_uri()],
        )
        .await;
    assert_ne!(
        answer.last()["status"]["state"],
        "failed",
        "{:?}",
        answer.last()
    );
    mock.requests().remove(0)
}

#[tokio::test]
async fn a_constrained_express_request_carries_the_grammar_of_its_catalogs() {
    let sent = request_sent(|chat| chat.constrain("grammar"), express()).await;
    let processor = express().negotiate(None).unwrap();
    assert_eq!(
        sent["grammar"].as_str(),
        processor.grammar(),
        "the negotiated catalogs' grammar, whole"
    );
    // Another server's member name is the user's to give.
    let sent = request_sent(|chat| chat.constrain("guided_grammar"), express()).await;
    assert_eq!(sent["guided_grammar"].as_str(), processor.grammar());
    assert!(sent.get("grammar").is_none());
}

#[tokio::test]
async fn no_grammar_goes_where_the_server_could_not_take_one() {
    // Not asked for.
    let sent = request_sent(|chat| chat, express()).await;
    assert!(sent.get("grammar").is_none(), "{sent}");
    // Direct JSON has none.
    let sent = request_sent(|chat| chat.constrain("grammar"), Generator::v0_9()).await;
    assert!(sent.get("grammar").is_none(), "{sent}");
    // Tools are offered: llama.cpp refuses the pair, so the tools win.
    let lookup = Tool::new(
        "lookup",
        "Looks a thing up.",
        json!({"type": "object", "properties": {}}),
        |_args| async move { Ok(json!("nothing")) },
    );
    let sent = request_sent(|chat| chat.constrain("grammar").tool(lookup), express()).await;
    assert!(sent.get("grammar").is_none(), "{sent}");
    assert_eq!(sent["tools"][0]["function"]["name"], "lookup");
}
