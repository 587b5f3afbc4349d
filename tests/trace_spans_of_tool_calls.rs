//! The model connector's spans, as any `tracing` subscriber sees them (an OpenTelemetry
//! exporter turns these into the trace): one `gen_ai.chat` span per model request of the
//! tool loop, with its GenAI attributes, and one `gen_ai.execute_tool` span per tool call,
//! failed ones marked as errors. Against a scripted model server over real HTTP.
#![cfg(feature = "llm")]

mod llm_support;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2ui_agent::llm::{ChatMessage, OpenAiChat, Tool, ToolError};
use futures::StreamExt;
use llm_support::{MockModel, call, text};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as seen: its name and the fields recorded on it.
#[derive(Debug, Clone, Default)]
struct Seen {
    name: String,
    fields: HashMap<String, String>,
}

/// A layer that keeps every span of the crate's trace target.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<HashMap<u64, Seen>>>);

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attributes.metadata().target() != "a2ui_agent::trace" {
            return;
        }
        let mut seen = Seen {
            name: attributes.metadata().name().to_owned(),
            ..Seen::default()
        };
        attributes.record(&mut Fields(&mut seen.fields));
        self.0.lock().unwrap().insert(id.into_u64(), seen);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        if let Some(seen) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
}

impl Spans {
    fn named(&self, name: &str) -> Vec<Seen> {
        let spans = self.0.lock().unwrap();
        spans
            .values()
            .filter(|span| span.name == name)
            .cloned()
            .collect()
    }
}

#[tokio::test]
async fn each_model_request_and_tool_call_is_a_span_with_its_gen_ai_attributes() {
    let calls = llm_support::Answer::Sse {
        body: llm_support::sse(
            &[
                call(0, Some("c1"), Some("search"), "{}"),
                call(1, Some("c2"), Some("book"), "{}"),
            ],
            "tool_calls",
        ),
        pause: Duration::ZERO,
    };
    let done = llm_support::Answer::Sse {
        body: llm_support::sse(&[text("Found "), text("two.")], "stop"),
        pause: Duration::ZERO,
    };
    let mock = MockModel::start(vec![calls, done]).await;
    let search = Tool::new("search", "d", json!({}), |_| async {
        Ok(json!(["Sakura"]))
    });
    let book = Tool::new("book", "d", json!({}), |_| async {
        Err(ToolError::new("no table is free"))
    });
    let chat = OpenAiChat::builder(&mock.base_url, "mock-model")
        .retries(0, Duration::ZERO, Duration::ZERO)
        .tool(search)
        .tool(book)
        .build()
        .unwrap();

    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _default = tracing::subscriber::set_default(subscriber);
    let mut reply = Box::pin(chat.reply(vec![ChatMessage::user("Thai food?")]));
    while let Some(item) = reply.next().await {
        item.unwrap();
    }
    drop(reply);

    let models = spans.named("gen_ai.chat");
    assert_eq!(models.len(), 2, "{models:?}");
    for model in &models {
        assert_eq!(model.fields["gen_ai.operation.name"], "chat");
        assert_eq!(model.fields["gen_ai.request.model"], "mock-model");
        assert!(
            model
                .fields
                .contains_key("gen_ai.server.time_to_first_token")
        );
        assert!(!model.fields.contains_key("otel.status_code"), "{model:?}");
    }
    let reasons: Vec<&str> = models
        .iter()
        .map(|model| model.fields["gen_ai.response.finish_reasons"].as_str())
        .collect();
    assert!(
        reasons.contains(&"tool_calls") && reasons.contains(&"stop"),
        "{reasons:?}"
    );

    let tools = spans.named("gen_ai.execute_tool");
    assert_eq!(tools.len(), 2, "{tools:?}");
    let tool = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.fields["gen_ai.tool.name"] == name)
            .unwrap_or_else(|| panic!("no span of {name}: {tools:?}"))
            .clone()
    };
    assert_eq!(tool("search").fields["gen_ai.tool.call.id"], "c1");
    assert!(!tool("search").fields.contains_key("otel.status_code"));
    assert_eq!(tool("book").fields["otel.status_code"], "ERROR");
}
