//! A task's events followed to its end across dropped connections: [`Client::follow`] and
//! [`EventStream::resuming`].
//!
//! A stream is cut by a proxy's timeout, a restart or a network change long before a
//! long task ends. When the connection breaks, goes silent past the idle timeout or closes
//! before the last event, the follower subscribes to the task again (0.3
//! `tasks/resubscribe`, 1.0 `SubscribeToTask`), waiting the retry backoff (doubled each
//! time) between attempts, and reconciles ([`super::reconcile`]): the new stream starts with
//! the task as it is, of which the caller gets only what it missed, so it sees one sequence
//! without repeats that ends in the task's real last state. When the task ended while the
//! connection was down, the agent refuses the subscription; the follower then reads the task
//! and ends with its final status.

use futures::StreamExt;

use super::calls::Client;
use super::error::ClientError;
use super::events::EventStream;
use super::reconcile::Seen;
use crate::a2a::TaskQuery;

/// The A2A error for a subscription to a task that has ended (0.3 and 1.0
/// UnsupportedOperation).
const ENDED: i64 = -32004;

impl Client {
    /// Streams task `task_id`'s events up to its last (a terminal or interrupted state),
    /// subscribing again whenever the connection drops first; see [`EventStream::resuming`].
    ///
    /// # Errors
    ///
    /// None before the stream: the subscription is made when the stream is first polled, and
    /// its errors are the stream's.
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::client::Client;
    /// use futures::StreamExt;
    ///
    /// # async fn run(client: Client) -> Result<(), a2ui_agent::client::ClientError> {
    /// let mut events = client.follow("task-1");
    /// while let Some(event) = events.next().await {
    ///     println!("{:?}", event?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn follow(&self, task_id: &str) -> EventStream {
        follow(self.clone(), None, Seen::new(Some(task_id.to_owned())))
    }
}

impl EventStream {
    /// This stream, picked up again through `client` when its connection drops before the
    /// last event: the task it is about (named by its first event) is subscribed to again,
    /// at most [`ClientBuilder::retries`](super::ClientBuilder::retries) times in a row
    /// without anything new, with the retry backoff doubled between attempts. The caller
    /// sees no event twice and misses no change of status or artifact: after re-subscribing,
    /// the task as the agent shows it is reconciled with what was given (an artifact that
    /// grew comes as an append of its new parts, a status only when it changed).
    ///
    /// Status messages that came and went while the connection was down are not recovered:
    /// a task shows only its current one.
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::client::{Client, text_request};
    /// use futures::StreamExt;
    ///
    /// # async fn run(client: Client) -> Result<(), a2ui_agent::client::ClientError> {
    /// let request = text_request("Plan my week");
    /// let mut events = client.send_streaming(request).await?.resuming(&client);
    /// while let Some(event) = events.next().await {
    ///     println!("{:?}", event?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn resuming(self, client: &Client) -> EventStream {
        follow(client.clone(), Some(self), Seen::new(None))
    }
}

/// The follower: `first` (or a fresh subscription) and then re-subscriptions, reconciled.
fn follow(client: Client, first: Option<EventStream>, mut seen: Seen) -> EventStream {
    let stream = async_stream::stream! {
        let retry = client.http().retry;
        let mut current = first;
        let mut failures = 0_u32;
        let mut wait = retry.backoff;
        loop {
            let stream = match current.take() {
                Some(stream) => Ok(stream),
                None => match seen.task_id.clone() {
                    Some(id) => client.subscribe(&id).await,
                    None => Err(ClientError::BadAnswer(
                        "the stream broke before it named its task".into(),
                    )),
                },
            };
            let failure = match stream {
                Err(error) => error,
                Ok(mut stream) => {
                    let mut gave = false;
                    let mut failure = None;
                    while let Some(item) = stream.next().await {
                        match item {
                            Ok(event) => {
                                for event in seen.live(event) {
                                    gave = true;
                                    yield Ok(event);
                                }
                                if seen.ended {
                                    return;
                                }
                            }
                            Err(error) => {
                                failure = Some(error);
                                break;
                            }
                        }
                    }
                    if gave {
                        failures = 0;
                        wait = retry.backoff;
                    }
                    match failure {
                        Some(error) => error,
                        // A stream only ends quietly after its last event.
                        None => return,
                    }
                }
            };
            if let (Some(ENDED), Some(id)) = (failure.agent_code(), seen.task_id.clone()) {
                // The task ended while the connection was down (the agent refuses the
                // subscription, before or as the stream's first event): its last state is
                // read instead.
                let query = TaskQuery { id, history_length: Some(0) };
                match client.get_task(query).await {
                    Ok(task) => {
                        for event in seen.snapshot(task) {
                            yield Ok(event);
                        }
                        if !seen.ended {
                            yield Err(failure);
                        }
                    }
                    Err(error) => yield Err(error),
                }
                return;
            }
            if !failure.is_resumable() || failures >= retry.times || seen.task_id.is_none() {
                yield Err(failure);
                return;
            }
            failures += 1;
            tracing::debug!(error = %failure, attempt = failures, "re-subscribing to a task");
            tokio::time::sleep(wait).await;
            wait = wait.saturating_mul(2);
        }
    };
    EventStream::of(stream)
}
