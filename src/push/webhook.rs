//! One webhook's queue and the worker that empties it: one update at a time, in order,
//! each tried until the receiver acknowledges it (2xx) or the attempts run out, with
//! exponential backoff and jitter between attempts.
//!
//! A queue is bounded ([`PushSettings::queue`](super::PushSettings::queue)); an update that
//! does not fit is dropped, logged and counted. A receiver that hangs holds only its own
//! queue, for at most the attempt timeout per try: the task and every other webhook go on.
//! A worker ends once its queue stayed empty for [`IDLE`], and removes its queue then, so
//! idle webhooks cost nothing. A delivery written down in the store's outbox is let go of
//! once it is done (acknowledged, given up on, or dropped).

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use reqwest::StatusCode;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tracing::Instrument;

use super::queues::{Delivery, IDLE, Queue, WebhookKey};
use super::settings::Counters;
use super::shared::Shared;
use crate::observe::trace;

/// Queues `delivery` for webhook `key`, starting its worker if none runs; never waits.
/// Sent under the map's lock, so a worker that ends (also under it) never strands one.
pub(crate) fn enqueue(shared: &Arc<Shared>, key: WebhookKey, delivery: Delivery) {
    let mut map = shared.webhooks.lock();
    let queue = map.entry(key.clone()).or_insert_with(|| {
        let (sender, receiver) = mpsc::channel(shared.settings.queue);
        tokio::spawn(run(shared.clone(), key.clone(), receiver));
        Queue {
            sender,
            overflowing: false,
        }
    });
    match queue.sender.try_send(delivery) {
        Ok(()) => queue.overflowing = false,
        Err(TrySendError::Full(dropped) | TrySendError::Closed(dropped)) => {
            Counters::add(&shared.counters.dropped);
            if let (Some(id), Some(batched)) = (dropped.held, shared.batched.get()) {
                batched.release_now(id);
            }
            if !queue.overflowing {
                queue.overflowing = true;
                tracing::warn!(task_id = %key.1, config_id = %key.2,
                    queue = shared.settings.queue,
                    "push notification queue full: dropping updates for this webhook");
            }
        }
    }
}

/// The worker of webhook `key`.
async fn run(shared: Arc<Shared>, key: WebhookKey, mut receiver: mpsc::Receiver<Delivery>) {
    loop {
        let delivery = match tokio::time::timeout(IDLE, receiver.recv()).await {
            Ok(Some(delivery)) => delivery,
            Ok(None) => return,
            Err(_idle) => {
                if shared.webhooks.retire(&key, &receiver) {
                    return;
                }
                continue;
            }
        };
        let held = delivery.held;
        deliver(&shared, &key.1, delivery).await;
        if let (Some(id), Some(batched)) = (held, shared.batched.get()) {
            batched.release(id).await;
        }
    }
}

/// How one attempt ended.
enum Attempt {
    Delivered,
    /// Worth trying again: an error status, a timeout, a refused connection.
    Failed(String),
    /// Not worth trying again: a redirect (never followed), a refused address.
    Refused(String),
}

/// Tries `delivery` until it is acknowledged, refused, or out of attempts, in a span of
/// its own (in the trace of the run that made the update).
async fn deliver(shared: &Shared, task_id: &str, delivery: Delivery) {
    let span = trace::push(&delivery.trace, task_id, &delivery.config.id);
    let (attempts, outcome) = attempts(shared, task_id, &delivery)
        .instrument(span.clone())
        .await;
    span.record("a2a.push.attempts", i64::from(attempts));
    span.record("a2a.push.outcome", outcome);
    if outcome != "delivered" {
        span.record("otel.status_code", "ERROR");
    }
}

/// [`deliver`]'s attempts: how many were made, and how they ended (`delivered`, `refused`,
/// `failed`).
async fn attempts(shared: &Shared, task_id: &str, delivery: &Delivery) -> (u32, &'static str) {
    let settings = &shared.settings;
    for attempt in 1..=settings.max_attempts {
        let reason = match try_once(shared, delivery).await {
            Attempt::Delivered => {
                Counters::add(&shared.counters.delivered);
                return (attempt, "delivered");
            }
            Attempt::Refused(reason) => {
                Counters::add(&shared.counters.failed);
                tracing::warn!(task_id, config_id = %delivery.config.id, %reason,
                    "push notification not delivered");
                return (attempt, "refused");
            }
            Attempt::Failed(reason) => reason,
        };
        if attempt == settings.max_attempts {
            Counters::add(&shared.counters.failed);
            tracing::warn!(task_id, config_id = %delivery.config.id, %reason, attempts = attempt,
                "push notification not delivered: giving up");
            return (attempt, "failed");
        }
        Counters::add(&shared.counters.retried);
        let wait = settings.backoff(attempt, jitter());
        tracing::debug!(task_id, config_id = %delivery.config.id, %reason, ?wait,
            "push notification failed: trying again");
        tokio::time::sleep(wait).await;
    }
    (settings.max_attempts, "failed")
}

/// One POST of `delivery`.
async fn try_once(shared: &Shared, delivery: &Delivery) -> Attempt {
    let config = &delivery.config;
    // Checked again at each attempt: literal addresses here, names in the resolver.
    if let Err(refusal) = shared.policy.check(&config.url) {
        return Attempt::Refused(refusal.to_string());
    }
    let mut request = shared
        .client
        .post(&config.url)
        .header(reqwest::header::CONTENT_TYPE, delivery.payload.content_type)
        .body(delivery.payload.body.clone());
    if let Some(token) = &config.token {
        request = request.header("X-A2A-Notification-Token", token);
    }
    if let Some(authorization) = config.authorization() {
        request = request.header(reqwest::header::AUTHORIZATION, authorization);
    }
    // The webhook's handler goes on in the trace of the run that made the update.
    let mut traced = reqwest::header::HeaderMap::new();
    crate::observe::inject(&mut traced);
    if !traced.is_empty() {
        request = request.headers(traced);
    }
    match request.send().await {
        Ok(response) if response.status().is_success() => Attempt::Delivered,
        Ok(response) if response.status().is_redirection() => Attempt::Refused(format!(
            "the webhook answered {} (a redirect, which is not followed)",
            response.status()
        )),
        Ok(response) => Attempt::Failed(format!("the webhook answered {}", status(&response))),
        Err(error) if error.is_builder() => Attempt::Refused(format!("bad request: {error}")),
        // The causes name the resolver's refusal, when it refused.
        Err(error) => Attempt::Failed(crate::error_chain::chain(&error)),
    }
}

fn status(response: &reqwest::Response) -> StatusCode {
    response.status()
}

/// A random number in `0..=1`, from the standard library's randomly keyed hasher.
fn jitter() -> f64 {
    let bits = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    (bits >> 11) as f64 / (1u64 << 53) as f64
}
