//! Deliveries written down in the store's outbox, so that they outlive this process.
//!
//! A task's lane writes its deliveries down ([`hold`]) before it queues them; a webhook's
//! worker lets go of them once they are done (see `webhook`). [`adopt`] runs once per server
//! and takes over, every [`PushOutbox::adopt_every`], the deliveries instances that stopped
//! left behind, queueing each webhook's in the order they were held; the final update the
//! store owes for a task it failed because its instance stopped is encoded here.

use std::sync::{Arc, Weak};

use axum::body::Bytes;

use super::Shared;
use super::payload::{self, Payload};
use super::settings::Counters;
use super::webhook::Delivery;
use crate::a2a::{StreamEvent, TaskStatusUpdateEvent};
use crate::store::{Adopted, Held, PendingUpdate, PushOutbox};

/// Writes `pending`, the deliveries of task `task_id` in order, down in `outbox`, and drops
/// those whose config is gone. When the store cannot be written, they are sent anyway,
/// from memory only.
pub(super) async fn hold(outbox: &dyn PushOutbox, task_id: &str, pending: &mut Vec<Delivery>) {
    let held: Vec<Held<'_>> = pending
        .iter()
        .map(|delivery| Held {
            config_id: &delivery.config.id,
            content_type: delivery.payload.content_type,
            body: &delivery.payload.body,
        })
        .collect();
    match outbox.hold(task_id, &held).await {
        Ok(ids) if ids.len() == pending.len() => {
            drop(held);
            let mut ids = ids.into_iter();
            pending.retain_mut(|delivery| {
                delivery.held = ids.next().flatten();
                delivery.held.is_some()
            });
        }
        Ok(ids) => {
            tracing::warn!(%task_id, expected = pending.len(), got = ids.len(),
                "the push outbox answered the wrong number of ids: updates sent from memory only");
        }
        Err(error) => {
            tracing::warn!(%task_id, %error, count = pending.len(),
                "cannot write push updates to the outbox: they are sent from memory only");
        }
    }
}

/// Forgets delivery `id` in the background (one dropped from a full queue).
pub(super) fn release_later(shared: &Shared, id: i64) {
    if let Some(outbox) = shared.outbox.clone() {
        tokio::spawn(async move {
            if let Err(error) = outbox.release(&[id]).await {
                tracing::debug!(%error, "could not forget a dropped push update");
            }
        });
    }
}

/// Takes over the deliveries of instances that stopped, until the server is gone: every
/// [`PushOutbox::adopt_every`], rounds until one finds nothing (a round takes a bounded
/// number of webhooks).
pub(super) async fn adopt(shared: Weak<Shared>, outbox: Arc<dyn PushOutbox>) {
    let mut ticks = tokio::time::interval(outbox.adopt_every());
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        loop {
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let adopted = match outbox.adopt().await {
                Ok(adopted) => adopted,
                Err(error) => {
                    tracing::warn!(%error,
                        "cannot look for the push deliveries of stopped instances");
                    break;
                }
            };
            if adopted.is_empty() {
                break;
            }
            for delivery in adopted {
                Counters::add(&shared.counters.adopted);
                let key = (
                    delivery.owner_key.clone(),
                    delivery.task_id.clone(),
                    delivery.config.id.clone(),
                );
                shared.webhooks.enqueue(&shared, key, taken(delivery));
            }
        }
    }
}

/// An adopted delivery as a webhook's worker sends it.
fn taken(adopted: Adopted) -> Delivery {
    let payload = match adopted.update {
        PendingUpdate::Encoded { content_type, body } => Payload {
            body: Bytes::from(body),
            content_type: match content_type.as_str() {
                "application/a2a+json" => "application/a2a+json",
                _ => "application/json",
            },
        },
        PendingUpdate::Stopped(task) => {
            let event = StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task, true));
            payload::payload(adopted.config.protocol, &event, Some(&task))
        }
    };
    Delivery {
        config: Arc::new(adopted.config),
        payload,
        held: Some(adopted.id),
    }
}
