//! What a client asks for, whatever the protocol version: send a message, read a task, list
//! tasks.
//!
//! Each wire module ([`super::v0_3`], [`super::v1_0`]) decodes its requests into these types,
//! so the task layer and the request adapter never see a wire type. Defaults are the
//! protocol's: a send waits for the task to stop unless told otherwise.

use super::{Message, Metadata, PushConfig, Task, TaskState};

/// A message sent to the agent (0.3 `message/send` / `message/stream`, 1.0 `SendMessage` /
/// `SendStreamingMessage`).
#[derive(Debug, Clone, PartialEq)]
pub struct SendRequest {
    /// The user's message.
    pub message: Message,
    /// Options.
    pub configuration: SendConfiguration,
    /// Free-form metadata of the request, beside the message.
    pub metadata: Option<Metadata>,
}

/// How a send is answered.
#[derive(Debug, Clone, PartialEq)]
pub struct SendConfiguration {
    /// Whether a non-streaming send waits for the task to stop (0.3 `blocking`, 1.0
    /// `!returnImmediately`; default: yes).
    pub blocking: bool,
    /// How many history messages the returned task carries (`None`: all).
    pub history_length: Option<usize>,
    /// The output MIME types the client accepts; `None` or empty: any.
    pub accepted_output_modes: Option<Vec<String>>,
    /// The push notification config given with the send, if any: registered on the task
    /// before it runs (its `id` empty when the client left it to the server).
    pub push_notification_config: Option<PushConfig>,
}

impl Default for SendConfiguration {
    fn default() -> Self {
        Self {
            blocking: true,
            history_length: None,
            accepted_output_modes: None,
            push_notification_config: None,
        }
    }
}

/// Which task to read, and how much of its history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskQuery {
    /// The task's id.
    pub id: String,
    /// How many history messages to return (`None`: all).
    pub history_length: Option<usize>,
}

/// Which tasks to list (1.0 `ListTasks`), one page at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskListQuery {
    /// Only tasks of this context.
    pub context_id: Option<String>,
    /// Only tasks in this state.
    pub state: Option<TaskState>,
    /// Only tasks whose status changed at or after this RFC 3339 UTC timestamp.
    pub status_timestamp_after: Option<String>,
    /// The most tasks on one page, within `1..=`[`TaskListQuery::MAX_PAGE_SIZE`].
    pub page_size: usize,
    /// Where the page starts: the `next_page_token` of the previous page.
    pub page_token: Option<String>,
    /// How many history messages each task carries (`None`: all).
    pub history_length: Option<usize>,
    /// Whether tasks carry their artifacts.
    pub include_artifacts: bool,
}

impl TaskListQuery {
    /// The page size when the client names none.
    pub const DEFAULT_PAGE_SIZE: usize = 50;
    /// The largest page a client may ask for.
    pub const MAX_PAGE_SIZE: usize = 100;
}

impl Default for TaskListQuery {
    fn default() -> Self {
        Self {
            context_id: None,
            state: None,
            status_timestamp_after: None,
            page_size: Self::DEFAULT_PAGE_SIZE,
            page_token: None,
            history_length: None,
            include_artifacts: false,
        }
    }
}

/// One page of a task listing, most recently updated first.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPage {
    /// The tasks on this page.
    pub tasks: Vec<Task>,
    /// The token of the next page; empty on the last page.
    pub next_page_token: String,
    /// The page size used.
    pub page_size: usize,
    /// How many tasks match the filters, over all pages.
    pub total_size: usize,
}
