//! The tool loop: ask the model, run the tools it calls, give it their results, ask again,
//! until it answers without calling any (or the rounds run out).
//!
//! What the client sees, as [`ReplyEvent`]s: the model's text as it streams, in every round;
//! "The model is reading the prompt…" as a passing status when the first token is slow to
//! come; "Calling name…" as a passing status while handlers run; then one text part per call
//! (its status line, the [`ToolRecord`] in its metadata), which is how the next turn's chat
//! gets the calls and results again. Dropping the stream (a canceled task) drops the HTTP
//! response and the handlers' futures: the model stops, the handlers stop.

use std::pin::Pin;

use futures::StreamExt;
use futures::future::join_all;
use tokio::time::Sleep;
use tracing::Instrument;

use super::a2ui_call::Drawing;
use super::chat::ChatMessage;
use super::client::OpenAiChat;
use super::completion::{Piece, pieces};
use super::error::LlmError;
use super::text_calls::TextCalls;
use super::tools::{Tool, ToolCall, ToolChoice, ToolRecord, run};
use crate::a2a::Part;
use crate::agent::ReplyEvent;
use crate::observe::{Meter, trace};
use crate::request::Provenance;
use crate::request::client_tools::client_call_part;

/// The status while the model has written nothing yet.
pub(crate) const READING: &str = "The model is reading the prompt…";

/// How one turn asks: the tools offered, at `temperature`, under `grammar` if any, the
/// first round with the tool choice `first` (later ones left to the model); each tool result
/// is added to `given`, the request's provenance, so a URL a tool returned may be shown.
pub(crate) struct Turn {
    pub(crate) tools: Vec<Tool>,
    pub(crate) temperature: Option<f32>,
    pub(crate) grammar: Option<String>,
    pub(crate) first: ToolChoice,
    pub(crate) given: Option<Provenance>,
    /// The caller's tenant, a label of the token counts.
    pub(crate) tenant: Option<String>,
}

/// The reply to `messages` asked as `turn` says, tools and all.
pub(crate) fn reply(
    chat: OpenAiChat,
    mut messages: Vec<ChatMessage>,
    turn: Turn,
) -> impl futures::Stream<Item = Result<ReplyEvent, LlmError>> + Send + 'static {
    #[rustfmt::skip]
    let Turn { tools, temperature, grammar, first, given, tenant } = turn;
    let inner = chat.inner.clone();
    async_stream::stream! {
        let mut round = 0;
        loop {
            // The request, and the notice if its first token is slow to come.
            let (notice, mut noticed) = (tokio::time::sleep(inner.options.reading_notice), false);
            tokio::pin!(notice);
            let choice = if round == 0 { first.clone() } else { ToolChoice::Auto };
            let span = model_span(&inner.options.model, round, &messages);
            let sent = {
                let send = chat.send(&messages, &tools, &choice, temperature, grammar.as_deref()).instrument(span.clone());
                tokio::pin!(send);
                match before_notice(&mut send, notice.as_mut(), false).await {
                    Some(sent) => sent,
                    None => {
                        noticed = true;
                        yield Ok(ReplyEvent::Status(READING.to_owned()));
                        send.await
                    }
                }
            };
            let (response, started) = match sent {
                Ok(sent) => sent,
                Err(error) => { span.record("otel.status_code", "ERROR"); yield Err(error); return; }
            };
            let answer = pieces(response, started, inner.options.first_token_timeout, inner.clone(), round, inner.options.meter.model_call(&inner.options.model, tenant.as_deref()).traced(span.clone(), started.into_std()));
            tokio::pin!(answer);
            let mut begun = false;
            let mut heard = Heard::new(&choice.callable(&tools));
            loop {
                let next = before_notice(answer.next(), notice.as_mut(), begun || noticed).await;
                let Some(next) = next else {
                    noticed = true;
                    yield Ok(ReplyEvent::Status(READING.to_owned()));
                    continue;
                };
                begun = true;
                let Some(piece) = next else { break };
                match heard.hear(piece, &tools, round) {
                    Ok(out) => if let Some(out) = out { yield Ok(ReplyEvent::Text(out)) },
                    Err(error) => { yield Err(error); return; }
                }
            }
            if let Some(rest) = heard.settle(&tools, round) {
                yield Ok(ReplyEvent::Text(rest));
            }
            content(&span, "gen_ai.output.messages", &heard.said);
            // Calls the client runs end the reply after ours ran; calls that drew, alone, now.
            let theirs = heard.take_client_calls(&tools);
            let last = !theirs.is_empty();
            if heard.calls.iter().all(|call| draws(&tools, call)) && !last {
                return;
            }
            if !last && round >= inner.options.max_tool_rounds {
                yield Err(LlmError::ToolRounds(inner.options.max_tool_rounds));
                return;
            }
            round += 1;
            if !heard.calls.is_empty() {
                yield Ok(ReplyEvent::Status(calling(&heard.calls)));
                for part in answer_calls(&mut messages, &tools, heard.said, heard.calls, given.as_ref(), &inner.options.meter).await {
                    yield Ok(ReplyEvent::part(part));
                }
            }
            for part in theirs {
                yield Ok(ReplyEvent::part(part));
            }
            if last {
                return;
            }
        }
    }
}

/// Counts the call of `record` by tool and outcome; a name the agent does not offer is
/// `unknown` (a label never holds a name the model made up).
fn count_call(meter: &Meter, tools: &[Tool], record: &ToolRecord) {
    if !meter.is_on() {
        return;
    }
    let offered = tools.iter().any(|tool| tool.name() == record.call.name);
    let name = if offered {
        &record.call.name
    } else {
        "unknown"
    };
    meter.tool_call(name, if record.is_error { "error" } else { "ok" });
}

/// The span of the model request of `round`, asked with `messages` (the prompt an event
/// of it, for a subscriber that records content).
fn model_span(model: &str, round: u32, messages: &[ChatMessage]) -> tracing::Span {
    let span = trace::model(model, round);
    content(&span, "gen_ai.input.messages", &Json(messages));
    span
}

/// Prompt or completion `text` as the event `name` of the model request's `span`, under
/// the content target an exporter drops unless told to record content. `text` is only
/// formatted when a subscriber takes the event.
fn content(span: &tracing::Span, name: &str, text: &dyn std::fmt::Display) {
    if span.is_disabled() {
        return;
    }
    tracing::trace!(target: trace::CONTENT, parent: span, { gen_ai.content = %text }, "{name}");
}

/// Chat messages written as JSON when formatted.
struct Json<'m>(&'m [ChatMessage]);

impl std::fmt::Display for Json<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(self.0).map_err(|_| std::fmt::Error)?;
        formatter.write_str(&text)
    }
}

/// `next`, or `None` when the `notice` comes first; once `noticed`, only `next` is awaited.
async fn before_notice<T>(
    next: impl Future<Output = T>,
    notice: Pin<&mut Sleep>,
    noticed: bool,
) -> Option<T> {
    if noticed {
        return Some(next.await);
    }
    tokio::select! {
        biased;
        next = next => Some(next),
        () = notice => None,
    }
}

/// Whether `call` names the A2UI tool, whose calls are drawn as they stream.
fn draws(tools: &[Tool], call: &ToolCall) -> bool {
    tools
        .iter()
        .any(|tool| tool.name() == call.name && tool.draws())
}

/// Whether `call` names a tool the client runs.
fn runs_in_client(tools: &[Tool], call: &ToolCall) -> bool {
    tools
        .iter()
        .any(|tool| tool.name() == call.name && tool.runs_in_client())
}

/// The part that asks the client to run `call`.
fn client_call(call: ToolCall) -> Part {
    let mut asked = serde_json::Map::new();
    asked.insert("id".into(), call.id.into());
    asked.insert("name".into(), call.name.into());
    asked.insert("arguments".into(), call.arguments.into());
    client_call_part(asked)
}

/// The status while `calls` run: "Calling name, name…".
fn calling(calls: &[ToolCall]) -> String {
    let names: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
    format!("Calling {}…", names.join(", "))
}

/// What one round's answer said and asked for, as it streams.
struct Heard {
    /// The answer's text.
    said: String,
    /// The calls it asked for.
    calls: Vec<ToolCall>,
    /// With tools offered, text that may be a call written out is held back here.
    written: Option<TextCalls>,
    /// With the A2UI tool offered, its calls' arguments as block text.
    drawing: Option<Drawing>,
}

impl Heard {
    /// Nothing heard yet; text is held back as maybe a call when tools are `offered`, and
    /// the A2UI tool's arguments drawn when it is one of them.
    fn new(offered: &[&Tool]) -> Self {
        Self {
            said: String::new(),
            calls: Vec::new(),
            written: (!offered.is_empty()).then(TextCalls::default),
            drawing: offered
                .iter()
                .any(|tool| tool.draws())
                .then(Drawing::default),
        }
    }

    /// Takes in the answer's next `piece`: the text the client sees now, if any, or the
    /// error that ends the answer.
    fn hear(
        &mut self,
        piece: Result<Piece, LlmError>,
        tools: &[Tool],
        round: u32,
    ) -> Result<Option<String>, LlmError> {
        match piece? {
            Piece::Text(text) => Ok(self.text(text)),
            Piece::Calling => Ok(None),
            Piece::Arguments(arguments) => {
                let Some(drawing) = self.drawing.as_mut() else {
                    return Ok(None);
                };
                let Some(block) = drawing.hear(&arguments) else {
                    return Ok(None);
                };
                // A call through the API: the text held back as maybe a written call is
                // text, and goes out before the block.
                let held = match self
                    .written
                    .take()
                    .map(|written| written.finish(tools, round))
                {
                    Some(Err(rest)) => rest,
                    _ => String::new(),
                };
                Ok(Some(held + &block))
            }
            Piece::Calls(asked) => {
                self.calls = asked;
                Ok(None)
            }
        }
    }

    /// Takes the calls of tools the client runs out of the calls asked for: the parts that
    /// ask the client to run them.
    fn take_client_calls(&mut self, tools: &[Tool]) -> Vec<Part> {
        let (theirs, ours) = std::mem::take(&mut self.calls)
            .into_iter()
            .partition(|call| runs_in_client(tools, call));
        self.calls = ours;
        theirs.into_iter().map(client_call).collect()
    }

    /// What of the answer's next `text` the client sees now: all of it, or (while text is
    /// held back as maybe a call) what is released.
    fn text(&mut self, text: String) -> Option<String> {
        self.said.push_str(&text);
        let released = match self.written.as_mut() {
            Some(written) => written.push(&text),
            None => Some(text),
        }?;
        match self.drawing.as_mut().and_then(Drawing::interrupt) {
            Some(closed) => Some(closed + &released),
            None => Some(released),
        }
    }

    /// What the held-back text comes to once the answer ended: calls written as text
    /// replace the answer's text and become its calls (when it asked for none the API's
    /// way); otherwise the held text, if any, goes out.
    fn settle(&mut self, tools: &[Tool], round: u32) -> Option<String> {
        let mut out = self.settle_written(tools, round).unwrap_or_default();
        if let Some(drawing) = self.drawing.as_mut() {
            out.extend(drawing.finish());
            if !drawing.streamed() {
                // Calls written as text (or sent whole without pieces) draw now.
                for call in self.calls.iter().filter(|call| draws(tools, call)) {
                    out.push_str(&drawing.whole(&call.arguments));
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// What the held-back text comes to: see [`settle`](Self::settle).
    fn settle_written(&mut self, tools: &[Tool], round: u32) -> Option<String> {
        match self.written.take()?.finish(tools, round) {
            Ok(spelled) if self.calls.is_empty() => {
                tracing::debug!("the model wrote its tool calls as text");
                self.said.clear();
                self.calls = spelled;
                None
            }
            Ok(_) => None,
            Err(rest) => (!rest.is_empty()).then_some(rest),
        }
    }
}

/// Runs `calls` (together) and adds the round to `messages`: the answer's text `said` with
/// its calls, each call's result (also to `given`), and the guides of the tools that
/// answered. Returns the
/// part each call shows as to the client.
async fn answer_calls(
    messages: &mut Vec<ChatMessage>,
    tools: &[Tool],
    said: String,
    calls: Vec<ToolCall>,
    given: Option<&Provenance>,
    meter: &Meter,
) -> Vec<Part> {
    let records = join_all(calls.iter().cloned().map(|call| async move {
        let span = trace::tool(&call.name, &call.id);
        let record = run(tools, call).instrument(span.clone()).await;
        if record.is_error {
            span.record("otel.status_code", "ERROR");
        }
        record
    }))
    .await;
    messages.push(ChatMessage::assistant_calls(said, calls));
    let mut parts = Vec::with_capacity(records.len());
    for record in &records {
        tracing::debug!(tool = %record.call.name, failed = record.is_error, "tool called");
        count_call(meter, tools, record);
        if let Some(given) = given {
            given.add(record.result.clone());
        }
        messages.push(ChatMessage::tool(
            record.call.id.clone(),
            record.result.clone(),
        ));
        if !draws(tools, &record.call) {
            parts.push(record.to_part());
        }
    }
    if let Some(guides) = guides(tools, &records) {
        messages.push(ChatMessage::system(guides));
    }
    parts
}

/// The guides of the tools that answered without error, once each, as one system turn.
fn guides(tools: &[Tool], records: &[ToolRecord]) -> Option<String> {
    let mut guides: Vec<&str> = Vec::new();
    for record in records {
        let guide = tools
            .iter()
            .find(|tool| tool.name() == record.call.name)
            .and_then(Tool::guide_text)
            .filter(|_| !record.is_error);
        if let Some(guide) = guide.filter(|guide| !guides.contains(guide)) {
            guides.push(guide);
        }
    }
    (!guides.is_empty()).then(|| guides.join("\n\n"))
}
