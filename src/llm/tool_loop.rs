//! The tool loop: ask the model, run the tools it calls, give it their results, ask again,
//! until it answers without calling any (or the rounds run out).
//!
//! What the client sees, as [`ReplyEvent`]s: the model's text as it streams, in every round;
//! "The model is reading the prompt…" as a passing status when the first token is slow to
//! come; "Calling name…" as a passing status while handlers run; then one text part per call
//! (its status line, the [`ToolRecord`] in its metadata), which is how the next turn's chat
//! gets the calls and results again. Dropping the stream (a canceled task) drops the HTTP
//! response and the handlers' futures: the model stops, the handlers stop.

use futures::StreamExt;
use futures::future::join_all;

use super::chat::ChatMessage;
use super::client::OpenAiChat;
use super::completion::{Piece, pieces};
use super::error::LlmError;
use super::text_calls::TextCalls;
use super::tools::{Tool, ToolCall, ToolChoice, run};
use crate::agent::ReplyEvent;

/// The status while the model has written nothing yet.
pub(crate) const READING: &str = "The model is reading the prompt…";

/// The reply to `messages` at `temperature`, under `grammar` if any, tools and all: the
/// first round with the tool choice `first`, later ones left to the model.
pub(crate) fn reply(
    chat: OpenAiChat,
    mut messages: Vec<ChatMessage>,
    temperature: Option<f32>,
    grammar: Option<String>,
    first: ToolChoice,
) -> impl futures::Stream<Item = Result<ReplyEvent, LlmError>> + Send + 'static {
    let inner = chat.inner.clone();
    async_stream::stream! {
        let mut round = 0;
        loop {
            // The request, and the notice if its first token is slow to come.
            let notice = tokio::time::sleep(inner.options.reading_notice);
            tokio::pin!(notice);
            let mut noticed = false;
            let choice = if round == 0 { first.clone() } else { ToolChoice::Auto };
            let sent = {
                let send = chat.send(&messages, &choice, temperature, grammar.as_deref());
                tokio::pin!(send);
                let sent = tokio::select! {
                    biased;
                    sent = &mut send => Some(sent),
                    () = &mut notice => None,
                };
                match sent {
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
                Err(error) => {
                    yield Err(error);
                    return;
                }
            };
            let answer = pieces(response, started, inner.options.first_token_timeout, inner.clone(), round);
            tokio::pin!(answer);
            let mut said = String::new();
            let mut calls: Vec<ToolCall> = Vec::new();
            let mut begun = false;
            // With tools offered, text that may be a call written out is held back.
            let offered = !choice.callable(&inner.options.tools).is_empty();
            let mut written = offered.then(TextCalls::default);
            loop {
                let next = if begun || noticed {
                    Some(answer.next().await)
                } else {
                    tokio::select! {
                        biased;
                        next = answer.next() => Some(next),
                        () = &mut notice => None,
                    }
                };
                let Some(next) = next else {
                    noticed = true;
                    yield Ok(ReplyEvent::Status(READING.to_owned()));
                    continue;
                };
                begun = true;
                match next {
                    None => break,
                    Some(Err(error)) => {
                        yield Err(error);
                        return;
                    }
                    Some(Ok(Piece::Text(text))) => {
                        said.push_str(&text);
                        let out = match written.as_mut() {
                            Some(written) => written.push(&text),
                            None => Some(text),
                        };
                        if let Some(out) = out {
                            yield Ok(ReplyEvent::Text(out));
                        }
                    }
                    Some(Ok(Piece::Calling)) => {}
                    Some(Ok(Piece::Calls(asked))) => calls = asked,
                }
            }
            if let Some(written) = written {
                match written.finish(&inner.options.tools, round) {
                    Ok(spelled) if calls.is_empty() => {
                        tracing::debug!("the model wrote its tool calls as text");
                        said.clear();
                        calls = spelled;
                    }
                    Ok(_) => {}
                    Err(rest) => {
                        if !rest.is_empty() {
                            yield Ok(ReplyEvent::Text(rest));
                        }
                    }
                }
            }
            if calls.is_empty() {
                return;
            }
            if round >= inner.options.max_tool_rounds {
                yield Err(LlmError::ToolRounds(inner.options.max_tool_rounds));
                return;
            }
            round += 1;
            let names: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
            yield Ok(ReplyEvent::Status(format!("Calling {}…", names.join(", "))));
            let records = join_all(calls.iter().cloned().map(|call| run(&inner.options.tools, call))).await;
            messages.push(ChatMessage::assistant_calls(said, calls));
            let mut guides: Vec<&str> = Vec::new();
            for record in records {
                tracing::debug!(tool = %record.call.name, failed = record.is_error, "tool called");
                messages.push(ChatMessage::tool(record.call.id.clone(), record.result.clone()));
                let guide = inner
                    .options.tools
                    .iter()
                    .find(|tool| tool.name() == record.call.name)
                    .and_then(Tool::guide_text)
                    .filter(|_| !record.is_error);
                if let Some(guide) = guide.filter(|guide| !guides.contains(guide)) {
                    guides.push(guide);
                }
                yield Ok(ReplyEvent::part(record.to_part()));
            }
            if !guides.is_empty() {
                messages.push(ChatMessage::system(guides.join("\n\n")));
            }
        }
    }
}
