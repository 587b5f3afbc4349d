//! The request step: what is decided about a send before its task starts.
//!
//! The server decodes a send (any protocol version) into a [`SendRequest`], and this step
//! gathers the extension URIs the client asked for and runs the A2UI adapter on the message.
//! The task layer then creates or continues the task and builds the agent's [`Request`]
//! from the result; it never negotiates, and never sees a wire type.

use super::adapter::{A2uiAdapter, A2uiOutcome, Adapted, Refusal};
use super::{Principal, Request};
use crate::a2a::{Message, Metadata, SendRequest};

/// A send, with its A2UI decided: the message, which the task layer files, and the rest.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The user's message, as sent.
    pub(crate) message: Message,
    /// Everything else the agent's request is built from.
    pub(crate) decided: Decided,
}

/// What the request step decided, beside the message.
#[derive(Debug)]
pub(crate) struct Decided {
    /// The request's metadata, beside the message.
    metadata: Option<Metadata>,
    /// The extension URIs asked for: the headers', then the message's, once each.
    requested_extensions: Vec<String>,
    /// The adapter's decision.
    adapted: Adapted,
    /// Who sends it.
    principal: Principal,
    /// Earlier turns the client sent along, for a conversation the store keeps none of.
    client_history: Vec<Message>,
}

impl A2uiAdapter {
    /// Decides how the message of `send` by `principal` is answered; `header_extensions`
    /// are the URIs of the `A2A-Extensions` / `X-A2A-Extensions` headers. The send's
    /// configuration is the caller's to apply.
    pub(crate) fn prepare(
        &self,
        send: SendRequest,
        header_extensions: Vec<String>,
        principal: Principal,
    ) -> Prepared {
        let SendRequest {
            message, metadata, ..
        } = send;
        let mut requested_extensions: Vec<String> = Vec::new();
        super::extend_unique(
            &mut requested_extensions,
            header_extensions
                .into_iter()
                .chain(message.extensions.iter().cloned()),
        );
        let adapted = self.adapt(&requested_extensions, &message);
        Prepared {
            message,
            decided: Decided {
                metadata,
                requested_extensions,
                adapted,
                principal,
                client_history: Vec::new(),
            },
        }
    }
}

impl Prepared {
    /// The same send with the earlier turns of its conversation as the client sent them
    /// (a binding whose clients send the whole conversation, as AG-UI's do): the agent gets
    /// them as history when the task it runs in has none of its own (a new task).
    pub(crate) fn with_client_history(mut self, history: Vec<Message>) -> Self {
        self.decided.client_history = history;
        self
    }

    /// The extension URIs the request activates, to echo in the response header.
    pub(crate) fn activated(&self) -> &[String] {
        &self.decided.adapted.activated
    }
}

impl Decided {
    /// The agent's request for `message` (the sent one, with its task and context set) in
    /// task `task_id`, after `history` (the client's earlier turns when the task has none),
    /// or why the agent must not be called; and the extension URIs to echo.
    pub(crate) fn into_request(
        self,
        message: Message,
        task_id: &str,
        context_id: &str,
        history: Vec<Message>,
    ) -> (Result<Request, Refusal>, Vec<String>) {
        let Decided {
            metadata,
            requested_extensions,
            adapted: Adapted { outcome, activated },
            principal,
            client_history,
        } = self;
        let history = if history.is_empty() {
            client_history
        } else {
            history
        };
        let request = Request::new(message, task_id, context_id)
            .with_principal(principal)
            .with_history(history)
            .with_requested_extensions(requested_extensions)
            .with_request_metadata(metadata)
            .with_activated_extensions(activated.clone());
        let request = match outcome {
            A2uiOutcome::Plain => Ok(request),
            A2uiOutcome::A2ui(processor) => Ok(request.with_a2ui(processor)),
            A2uiOutcome::Refused(refusal) => Err(refusal),
        };
        (request, activated)
    }
}
