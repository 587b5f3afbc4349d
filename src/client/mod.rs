//! An A2A client: the other side of what [`crate::server`] serves, to call any A2A agent.
//!
//! A2A exists so that one agent can call another. [`Client::connect`] reads the agent's card
//! from `/.well-known/agent-card.json` (kept as its `Cache-Control` and `ETag` allow), picks
//! the first interface of the caller's preference the card lists ([`Transport`]: JSON-RPC
//! 1.0, HTTP+JSON 1.0, JSON-RPC 0.3), and then offers the operations: [`Client::send`],
//! [`Client::send_streaming`] (an [`EventStream`] of typed events), [`Client::get_task`],
//! [`Client::list_tasks`] (1.0), [`Client::cancel_task`], [`Client::subscribe`] (and
//! [`Client::follow`], which subscribes again after a dropped connection without losing or
//! repeating events), the push notification configs ([`Client::set_push_config`], get,
//! list, delete) and [`Client::extended_card`]. [`WebhookReceiver`] is the other end of a
//! push config: it checks a notification's token and decodes its body.
//!
//! Requests are encoded and answers decoded by the crate's own wire codecs (the ones the
//! server uses, run in the other direction) into the [`crate::a2a`] model, so a task read
//! from another agent is the same `Task` the server stores. Every answer is bounded before it
//! is decoded: its size ([`ClientBuilder::max_answer_bytes`]), and its depth and number of
//! JSON values by the server's decoding budget. Nothing an agent answers makes the client
//! panic or wait past its timeouts: each failure is a [`ClientError`] that says whose it
//! was (the agent's A2A error, an HTTP status, the network, a timeout, the card, a too large
//! or malformed answer). Idempotent calls (the cards, get, list) are retried with backoff
//! after a transport failure, a timeout or a busy status; a send never is.
//!
//! # Example
//!
//! ```no_run
//! use a2ui_agent::client::{Client, SendResult, text_request};
//!
//! # async fn run() -> Result<(), a2ui_agent::client::ClientError> {
//! let client = Client::builder("http://localhost:8080/")
//!     .bearer_token("secret")
//!     .connect()
//!     .await?;
//! println!("talking to {} over {}", client.card().await?.name, client.transport());
//! match client.send(text_request("Find me a table for two")).await? {
//!     SendResult::Task(task) => println!("task {} is {}", task.id, task.status.state),
//!     SendResult::Message(message) => println!("{}", message.text()),
//! }
//! # Ok(())
//! # }
//! ```

mod answer;
mod builder;
mod calls;
mod discovery;
mod error;
mod events;
mod follow;
mod http;
mod push;
mod reconcile;
mod transport;
mod trust;
mod webhook;

pub use builder::ClientBuilder;
pub use calls::Client;
pub use error::ClientError;
pub use events::EventStream;
pub use transport::Transport;
pub use webhook::{NOTIFICATION_TOKEN_HEADER, WebhookError, WebhookReceiver};

use crate::a2a::{Message, Part, SendConfiguration, SendRequest, Task};

/// What a blocking send answers: the task, or a message when the agent answered without one.
#[derive(Debug, Clone, PartialEq)]
pub enum SendResult {
    /// The task the message started or continued.
    Task(Task),
    /// The agent's answer, without a task.
    Message(Message),
}

/// A send of `text` as a new user message (a fresh message id, default configuration).
///
/// # Example
///
/// ```
/// let request = a2ui_agent::client::text_request("hello");
/// assert_eq!(request.message.text(), "hello");
/// assert!(request.configuration.blocking);
/// ```
pub fn text_request(text: &str) -> SendRequest {
    SendRequest {
        message: Message::user(uuid::Uuid::new_v4().to_string(), vec![Part::text(text)]),
        configuration: SendConfiguration::default(),
        metadata: None,
    }
}
