//! One attempt's output read token by token: the agent's events, their text chunks pushed
//! through the reply's [`Pipeline`], and only what needs the run handed on.
//!
//! Every token of every stream goes through this loop, so it is a hand-written [`Stream`]
//! rather than an `async` loop. With thousands of streams, each token finds its stream's
//! state out of the cache and pays a miss for every cache line it reads: a [`Feed`]'s state
//! is one line, where the `async` loop's locals lay over several lines of the attempt's
//! future. It also polls the agent's stream once per chunk, with the task's own waker, where
//! the `async` loop polled it again with a no-op waker to see whether more was waiting; and
//! a chunk that completes nothing goes no further than here.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use futures::stream::Stream;
use tokio::time::{Instant, Sleep};

use super::handoff::Failure;
use crate::agent::{AgentError, ReplyEvent, ReplyStream};
use crate::pipeline::{self, Pipeline};

/// How many bytes of agent output that are already waiting are read as one chunk at most.
const JOIN_READY_BYTES: usize = 16 * 1024;

/// What the attempt acts on next.
pub(super) enum Fed {
    /// What a chunk of text completed: never an empty step.
    Step(pipeline::Step),
    /// An event other than text (a status, an artifact, a part).
    Event(ReplyEvent),
    /// Why the agent gives no more output.
    Failed(Failure),
}

/// The agent's output for one attempt, read into the reply's pipeline (see the module docs).
///
/// Chunks that are already waiting are joined into one (one feed, one update and one SSE
/// frame for all they complete). Without a coalescing window nothing waits for a chunk still
/// to come, so no part is sent later than it would be alone; with one, a chunk also waits up
/// to the window for more. Other events end a join and keep their place.
#[repr(C, align(64))]
pub(super) struct Feed<'p> {
    stream: ReplyStream,
    pipeline: &'p mut Pipeline,
    /// Everything no token of a paced model needs: boxed, so that it is one word here.
    rare: Option<Box<Rare>>,
}

/// The state of a [`Feed`] that only some replies use.
#[derive(Default)]
struct Rare {
    /// An item (or the end) read ahead while joining chunks.
    ahead: Option<Option<Item>>,
    /// The coalescing window (zero: none).
    window: Duration,
    /// A chunk waiting for more until its window closes.
    held: Option<(String, Pin<Box<Sleep>>)>,
}

/// One item of the agent's output, a panic caught.
type Item = std::thread::Result<Result<ReplyEvent, AgentError>>;

/// What ended a join of the text already waiting (see [`join_waiting`]).
enum Joined {
    /// The stream has nothing more now; it wakes the task when it has.
    Waiting,
    /// The chunk reached [`JOIN_READY_BYTES`].
    Full,
    /// An item that is not text (or the end), read ahead.
    Ahead(Option<Item>),
}

impl Rare {
    /// The held chunk with what joined it, once its window closes or nothing more can join
    /// it; `Pending` while it waits.
    fn poll_held(&mut self, stream: &mut ReplyStream, cx: &mut Context<'_>) -> Poll<String> {
        if let Some((chunk, closes)) = &mut self.held {
            match join_waiting(stream, chunk, cx) {
                Joined::Waiting => ready!(closes.as_mut().poll(cx)),
                Joined::Full => {}
                Joined::Ahead(item) => self.ahead = Some(item),
            }
        }
        Poll::Ready(self.held.take().map(|(chunk, _)| chunk).unwrap_or_default())
    }
}

impl<'p> Feed<'p> {
    /// Reads `stream` into `pipeline`.
    pub(super) fn new(stream: ReplyStream, pipeline: &'p mut Pipeline, window: Duration) -> Self {
        Feed {
            stream,
            pipeline,
            rare: (!window.is_zero()).then(|| {
                Box::new(Rare {
                    window,
                    ..Rare::default()
                })
            }),
        }
    }

    /// The step of the agent's `failure`, after which the feed ends: a stream that
    /// panicked is not polled again.
    fn failed(&mut self, failure: Failure) -> Fed {
        self.stream = Box::pin(futures::stream::empty());
        if let Some(rare) = self.rare.as_deref_mut() {
            rare.ahead = None;
            rare.held = None;
        }
        Fed::Failed(failure)
    }

    /// What waited for a lookup, screened with its verdicts (see [`Pipeline::resume`]).
    pub(super) fn resume(&mut self, resolved: pipeline::Resolved) -> pipeline::Step {
        self.pipeline.resume(resolved)
    }

    /// Pushes `chunk` through the pipeline: what it completed, if anything.
    fn feed(&mut self, chunk: String) -> Option<Fed> {
        let step = self.pipeline.push(&chunk);
        // Most chunks complete nothing: no update.
        (!step.is_empty()).then_some(Fed::Step(step))
    }
}

/// Joins to `chunk` the text already waiting in `stream`, up to [`JOIN_READY_BYTES`].
fn join_waiting(stream: &mut ReplyStream, chunk: &mut String, cx: &mut Context<'_>) -> Joined {
    while chunk.len() < JOIN_READY_BYTES {
        match poll_item(stream, cx) {
            Poll::Ready(Some(Ok(Ok(ReplyEvent::Text(more))))) => chunk.push_str(&more),
            Poll::Ready(other) => return Joined::Ahead(other),
            Poll::Pending => return Joined::Waiting,
        }
    }
    Joined::Full
}

/// The next item of the agent's `stream`, a panic in it caught.
fn poll_item(stream: &mut ReplyStream, cx: &mut Context<'_>) -> Poll<Option<Item>> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| stream.as_mut().poll_next(cx))) {
        Ok(Poll::Pending) => Poll::Pending,
        Ok(Poll::Ready(item)) => Poll::Ready(item.map(Ok)),
        Err(panic) => Poll::Ready(Some(Err(panic))),
    }
}

impl Stream for Feed<'_> {
    type Item = Fed;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Fed>> {
        let this = self.get_mut();
        loop {
            if let Some(rare) = this.rare.as_deref_mut().filter(|rare| rare.held.is_some()) {
                let chunk = ready!(rare.poll_held(&mut this.stream, cx));
                match this.feed(chunk) {
                    Some(step) => return Poll::Ready(Some(step)),
                    None => continue,
                }
            }
            let ahead = this.rare.as_deref_mut().and_then(|rare| rare.ahead.take());
            let item = match ahead {
                Some(item) => item,
                None => ready!(poll_item(&mut this.stream, cx)),
            };
            let mut chunk = match item {
                None => return Poll::Ready(None),
                Some(Ok(Ok(ReplyEvent::Text(chunk)))) => chunk,
                Some(Ok(Ok(other))) => return Poll::Ready(Some(Fed::Event(other))),
                Some(Ok(Err(error))) => {
                    return Poll::Ready(Some(this.failed(Failure::Agent(error))));
                }
                Some(Err(panic)) => return Poll::Ready(Some(this.failed(Failure::Panic(panic)))),
            };
            let waiting = match join_waiting(&mut this.stream, &mut chunk, cx) {
                Joined::Waiting => true,
                Joined::Full => false,
                Joined::Ahead(item) => {
                    this.rare.get_or_insert_default().ahead = Some(item);
                    false
                }
            };
            if waiting && let Some(rare) = this.rare.as_deref_mut().filter(|r| !r.window.is_zero())
            {
                let closes = Instant::now() + rare.window;
                rare.held = Some((chunk, Box::pin(tokio::time::sleep_until(closes))));
                continue;
            }
            match this.feed(chunk) {
                Some(step) => return Poll::Ready(Some(step)),
                // The stream was polled last and has nothing: it wakes the task when it has.
                None if waiting => return Poll::Pending,
                None => continue,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use futures::StreamExt;

    use super::*;
    use crate::a2a::{Message, Part};
    use crate::generator::Generator;
    use crate::pipeline::RepairPolicy;
    use crate::pipeline::sink::TextOutput;
    use crate::request::Request;

    /// What a feed of `stream` through a text pipeline hands on, one line per step: the
    /// text a feed completed, `event`, or `failed`; and the text the pipeline kept for a
    /// repair turn (`keep`: the request negotiated A2UI, so a repair turn may come).
    async fn steps(stream: ReplyStream, keep: bool, window: Duration) -> (Vec<String>, String) {
        let mut request = Request::new(Message::user("m", vec![Part::text("hi")]), "t", "c");
        if keep {
            request = request.with_a2ui(Generator::v0_9().negotiate(None).unwrap());
        }
        let policy = RepairPolicy::default();
        let mut pipeline = Pipeline::new(&policy, Arc::new(TextOutput), &request, true);
        let mut feed = Feed::new(stream, &mut pipeline, window);
        let mut steps = Vec::new();
        while let Some(fed) = feed.next().await {
            steps.push(match fed {
                Fed::Step(step) => match step.send.as_slice() {
                    [Part::Text { text, .. }] if step.end.is_none() => text.clone(),
                    other => format!("{other:?} {:?}", step.end),
                },
                Fed::Event(_) => "event".to_owned(),
                Fed::Failed(_) => "failed".to_owned(),
            });
        }
        (steps, pipeline.said().to_owned())
    }

    fn text(text: &str) -> Result<ReplyEvent, AgentError> {
        Ok(ReplyEvent::Text(text.to_owned()))
    }

    /// Chunks `a` and `b`, `gap` apart, then the end.
    fn two_chunks(gap: Duration) -> ReplyStream {
        futures::stream::iter(["a", "b"])
            .then(move |chunk| async move {
                if chunk == "b" {
                    tokio::time::sleep(gap).await;
                }
                text(chunk)
            })
            .boxed()
    }

    #[tokio::test(start_paused = true)]
    async fn a_chunk_waits_for_more_only_within_the_coalescing_window() {
        let gap = Duration::from_millis(2);
        let (alone, _) = steps(two_chunks(gap), false, Duration::ZERO).await;
        assert_eq!(alone, ["a", "b"], "no window: nothing waits");
        let (joined, _) = steps(two_chunks(gap), false, Duration::from_millis(5)).await;
        assert_eq!(joined, ["ab"], "the second came within the window");
        let late = two_chunks(Duration::from_millis(20));
        let (late, _) = steps(late, false, Duration::from_millis(5)).await;
        assert_eq!(late, ["a", "b"], "the second came after the window");
    }

    #[tokio::test]
    async fn chunks_already_waiting_are_one_feed_and_other_events_keep_their_place() {
        let stream = futures::stream::iter([
            text("a"),
            text("b"),
            Ok(ReplyEvent::part(Part::text("p"))),
            text("c"),
        ])
        .boxed();
        let (steps, kept) = steps(stream, true, Duration::ZERO).await;
        assert_eq!(steps, ["ab", "event", "c"]);
        assert_eq!(kept, "abc", "the text is kept as the agent wrote it");
    }

    #[tokio::test]
    async fn a_chunk_that_completes_nothing_is_no_step_and_text_is_kept_only_when_asked() {
        let stream = futures::stream::iter([text(""), text("a")])
            .then(|item| async move {
                tokio::task::yield_now().await;
                item
            })
            .boxed();
        let (steps, kept) = steps(stream, false, Duration::ZERO).await;
        assert_eq!(steps, ["a"]);
        assert_eq!(kept, "", "no repair turn would show it");
    }

    #[tokio::test]
    async fn a_panic_in_the_agents_stream_is_its_failure_after_what_came_before() {
        let stream = futures::stream::iter([Some("a"), None, Some("b")])
            .map(|chunk| match chunk {
                Some(chunk) => text(chunk),
                None => panic!("the agent's stream broke"),
            })
            .boxed();
        let (steps, _) = steps(stream, false, Duration::ZERO).await;
        assert_eq!(steps, ["a", "failed"], "and nothing after");
    }
}
