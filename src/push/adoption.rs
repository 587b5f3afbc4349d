//! Taking over the deliveries that instances which stopped left in the store's outbox, and
//! the final update the store owes for a task it failed because its instance stopped.

use std::sync::{Arc, Weak};

use axum::body::Bytes;

use super::payload::{self, Payload};
use super::queues::Delivery;
use super::settings::Counters;
use super::shared::Shared;
use super::webhook;
use crate::a2a::{StreamEvent, TaskStatusUpdateEvent};
use crate::store::{Adopted, PendingUpdate, PushOutbox};

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
                webhook::enqueue(&shared, key, taken(delivery));
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
        trace: Default::default(),
    }
}
