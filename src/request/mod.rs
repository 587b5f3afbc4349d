//! What the agent is handed: the user's message and everything around it.
//!
//! [`Request`] gathers what an agent needs to answer without knowing about JSON-RPC: the
//! message (text, parts, metadata), the task and context it belongs to, the earlier messages
//! of the task, and the protocol extensions the client asked for. When the client speaks
//! A2UI it also carries what was negotiated for this request (the [`RequestProcessor`] whose
//! prompt the agent gives its model) and what the user did on a surface ([`UserAction`]),
//! and who is asking: the [`Principal`] the server authenticated, with its scopes.

pub(crate) mod actions;
pub(crate) mod activation;
pub(crate) mod adapter;
pub(crate) mod client_tools;
pub(crate) mod prepared;
mod principal;
mod provenance;
mod repair;

use std::sync::Arc;

use serde_json::{Map, Value};

pub use actions::{UserAction, UserActionKind};
pub use activation::newest_extension;
pub use client_tools::{
    CLIENT_TOOL_CALL_METADATA, CLIENT_TOOL_RESULT_METADATA, CLIENT_TOOLS_METADATA, ClientTool,
};
pub use principal::Principal;
pub(crate) use provenance::GivenText;
pub use provenance::Provenance;
pub use repair::Repair;

use crate::a2a::{FileContent, Message, Metadata, Part};
use crate::a2ui::ProtocolVersion;
use crate::pipeline::RepairPolicy;
use crate::processor::RequestProcessor;

/// Where a renderer puts its data model: v0.9's key, then the v1.0 release candidate's.
const DATA_MODEL_KEYS: [&str; 2] = ["a2uiClientDataModel", "a2uiRendererDataModel"];

/// One request to the agent.
#[derive(Debug, Clone)]
pub struct Request {
    // The message and the history are shared: a request is cloned for every repair turn it
    // may need, and a message's metadata (maps of maps) is the largest thing it holds.
    message: Arc<Message>,
    task_id: String,
    context_id: String,
    history: Arc<[Message]>,
    requested_extensions: Vec<String>,
    request_metadata: Option<Metadata>,
    actions: Vec<UserAction>,
    a2ui: Option<RequestProcessor>,
    activated_extensions: Vec<String>,
    repairs: Vec<Repair>,
    principal: Principal,
    provenance: Provenance,
    /// The server's policy on the reply's A2UI, for an agent that relays another agent's
    /// A2UI and screens it as the server screens a model's (`None`: the default policy).
    reply_policy: Option<Arc<RepairPolicy>>,
}

impl Request {
    /// A request for `message` in task `task_id` of context `context_id`.
    ///
    /// The server builds requests; this constructor is for testing agents directly.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Message, Part};
    /// use a2ui_agent::request::Request;
    ///
    /// let request = Request::new(Message::user("m-1", vec![Part::text("hi")]), "t-1", "c-1");
    /// assert_eq!(request.text(), "hi");
    /// assert_eq!(request.task_id(), "t-1");
    /// ```
    pub fn new(
        message: Message,
        task_id: impl Into<String>,
        context_id: impl Into<String>,
    ) -> Self {
        Self {
            actions: actions::from_parts(&message.parts),
            message: Arc::new(message),
            task_id: task_id.into(),
            context_id: context_id.into(),
            history: Arc::new([]),
            requested_extensions: Vec::new(),
            request_metadata: None,
            a2ui: None,
            activated_extensions: Vec::new(),
            repairs: Vec::new(),
            principal: Principal::anonymous(),
            provenance: Provenance::default(),
            reply_policy: None,
        }
    }

    /// The same request with the task's earlier messages.
    #[must_use]
    pub fn with_history(mut self, history: Vec<Message>) -> Self {
        self.history = history.into();
        self
    }

    /// The same request with the extension URIs the client asked for (duplicates dropped,
    /// order kept).
    #[must_use]
    pub fn with_requested_extensions(mut self, uris: impl IntoIterator<Item = String>) -> Self {
        extend_unique(&mut self.requested_extensions, uris);
        self
    }

    /// The same request with the JSON-RPC params' `metadata`.
    #[must_use]
    pub fn with_request_metadata(mut self, metadata: Option<Metadata>) -> Self {
        self.request_metadata = metadata;
        self
    }

    /// The same request made by `principal` (the server sets the authenticated caller; set
    /// it yourself to test how an agent authorizes).
    #[must_use]
    pub fn with_principal(mut self, principal: Principal) -> Self {
        self.principal = principal;
        self
    }

    /// What the agent was given while it answers, beyond the messages (tool results, its
    /// instructions): a URL may go out in the reply's UI only when it appeared in the user's
    /// messages, the task's earlier tool results or here (see [`Provenance`]). Every clone of
    /// the request shares it.
    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    /// The same request answered under the server's `policy` on A2UI.
    pub(crate) fn with_reply_policy(mut self, policy: Arc<RepairPolicy>) -> Self {
        self.reply_policy = Some(policy);
        self
    }

    /// The server's policy on the reply's A2UI (the default one when the request did not
    /// come through a server).
    #[cfg_attr(not(feature = "orchestrator"), allow(dead_code))]
    pub(crate) fn reply_policy(&self) -> Arc<RepairPolicy> {
        self.reply_policy.clone().unwrap_or_default()
    }

    /// What the reply's URLs may come from (see [`GivenText`]).
    pub(crate) fn given(&self) -> GivenText {
        GivenText::new(
            self.message.clone(),
            self.history.clone(),
            self.provenance.clone(),
        )
    }

    /// Who is asking: the caller the server authenticated (its id, tenant and scopes from a
    /// token file line, a JWT's `scope`/`scp` claim or your own middleware), or the anonymous
    /// principal without authentication.
    ///
    /// The server scopes tasks to the caller but enforces no scope: A2A defines none, so
    /// what a scope allows is the agent's to decide.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Message, Part};
    /// use a2ui_agent::agent::{AgentError, Reply};
    /// use a2ui_agent::request::{Principal, Request};
    ///
    /// async fn agent(request: Request) -> Result<Reply, AgentError> {
    ///     let may_book = request.principal().scopes().iter().any(|scope| scope == "book");
    ///     if request.text().contains("book") && !may_book {
    ///         return Ok(Reply::text("You may look, but booking needs the `book` scope."));
    ///     }
    ///     Ok(Reply::text(format!("Booked for {}.", request.principal().id())))
    /// }
    ///
    /// let request = Request::new(Message::user("m", vec![Part::text("book a table")]), "t", "c")
    ///     .with_principal(Principal::new("carol").with_scopes(["read"]));
    /// assert_eq!(request.principal().id(), "carol");
    /// # let _ = agent(request);
    /// ```
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The text of the message's text parts, joined without separator.
    pub fn text(&self) -> String {
        self.message.text()
    }

    /// All parts of the message.
    pub fn parts(&self) -> &[Part] {
        &self.message.parts
    }

    /// The files the user sent: the message's file parts, inline bytes or by URI, in order.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Message, Part};
    /// use a2ui_agent::request::Request;
    ///
    /// let part = Part::file_bytes(b"hello", Some("hi.txt"), Some("text/plain"));
    /// let request = Request::new(Message::user("m", vec![Part::text("see"), part]), "t", "c");
    /// let file = request.files().next().unwrap();
    /// assert_eq!(file.name.as_deref(), Some("hi.txt"));
    /// assert_eq!(file.bytes().as_deref(), Some(&b"hello"[..]));
    /// ```
    pub fn files(&self) -> impl Iterator<Item = &FileContent> {
        self.message.parts.iter().filter_map(Part::as_file)
    }

    /// The structured data the user sent: the object of each data part, in order (A2UI
    /// actions among them; [`actions`](Self::actions) reads those).
    pub fn data(&self) -> impl Iterator<Item = &Map<String, Value>> {
        self.message.parts.iter().filter_map(Part::as_data)
    }

    /// The message's metadata (an empty map when it has none).
    pub fn metadata(&self) -> &Map<String, Value> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        self.message
            .metadata
            .as_ref()
            .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
    }

    /// The `metadata` of the JSON-RPC params, beside the message.
    pub fn request_metadata(&self) -> Option<&Metadata> {
        self.request_metadata.as_ref()
    }

    /// The whole message.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// The message's id.
    pub fn message_id(&self) -> &str {
        &self.message.message_id
    }

    /// The task this request runs in (new or continued).
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The conversation the task belongs to.
    pub fn context_id(&self) -> &str {
        &self.context_id
    }

    /// The task's earlier messages, oldest first: the user's messages and the agent's
    /// replies, without the current message.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The extension URIs the client asked for: the `X-A2A-Extensions` and `A2A-Extensions`
    /// headers, then `message.extensions`, without duplicates.
    pub fn requested_extensions(&self) -> &[String] {
        &self.requested_extensions
    }

    /// The same request answered with A2UI through `processor`: the server sets it after
    /// negotiating; set it yourself to test an agent directly.
    #[must_use]
    pub fn with_a2ui(mut self, processor: RequestProcessor) -> Self {
        self.a2ui = Some(processor);
        self
    }

    /// The same request with the extension URIs the server activated for it.
    #[must_use]
    pub(crate) fn with_activated_extensions(mut self, uris: Vec<String>) -> Self {
        self.activated_extensions = uris;
        self
    }

    /// The A2UI negotiated for this request: its processor gives the prompt for the model
    /// and checks what the model writes. `None` when the client does not speak A2UI; answer
    /// in plain text then.
    pub fn a2ui(&self) -> Option<&RequestProcessor> {
        self.a2ui.as_ref()
    }

    /// The A2UI protocol version negotiated, if any.
    pub fn a2ui_version(&self) -> Option<ProtocolVersion> {
        self.a2ui.as_ref().map(RequestProcessor::version)
    }

    /// What the user did on a surface: the A2UI actions and renderer errors in the message's
    /// DataParts, in order (v0.8 `userAction`, v0.9 `action` and `error`, whatever envelope
    /// the client used).
    pub fn actions(&self) -> &[UserAction] {
        &self.actions
    }

    /// The renderer's data model, `metadata.a2uiClientDataModel` (v0.9; `{version, surfaces:
    /// {id: model}}`) or `metadata.a2uiRendererDataModel` (the v1.0 release candidate's
    /// name), from the message's metadata or an A2UI DataPart's.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Message, Part};
    /// use a2ui_agent::request::Request;
    /// use serde_json::json;
    ///
    /// let mut message = Message::user("m-1", vec![Part::text("hi")]);
    /// let model = json!({"version": "v1.0", "surfaces": {"s": {"name": "Ada"}}});
    /// let metadata = json!({"a2uiRendererDataModel": model});
    /// message.metadata = metadata.as_object().cloned();
    /// let request = Request::new(message, "t-1", "c-1");
    /// assert_eq!(request.client_data_model(), Some(&model));
    /// ```
    pub fn client_data_model(&self) -> Option<&Value> {
        let metadata = self.message.metadata.as_ref();
        DATA_MODEL_KEYS
            .iter()
            .find_map(|key| metadata.and_then(|m| m.get(*key)))
            .or_else(|| {
                self.message.parts.iter().find_map(|part| match part {
                    Part::Data { data, .. } => {
                        let metadata = data.get("metadata")?;
                        DATA_MODEL_KEYS.iter().find_map(|key| metadata.get(*key))
                    }
                    _ => None,
                })
            })
    }

    /// The tools the client runs itself and offers the agent's model (AG-UI's frontend
    /// tools; the request metadata member [`CLIENT_TOOLS_METADATA`]). The `llm` connector
    /// offers them beside its own; a call to one ends the reply for the client to run it.
    pub fn client_tools(&self) -> Vec<ClientTool> {
        client_tools::from_metadata(self.request_metadata.as_ref())
    }

    /// The extension URIs the server activated for this request (echoed to the client in
    /// the `X-A2A-Extensions` response header).
    pub fn activated_extensions(&self) -> &[String] {
        &self.activated_extensions
    }

    /// The same request with one more rejected attempt to repair (see [`Repair`]); the
    /// server adds these, set them yourself to test an agent's repair turn.
    #[must_use]
    pub fn with_repair(mut self, repair: Repair) -> Self {
        self.repairs.push(repair);
        self
    }

    /// The attempts at this reply that were rejected because their A2UI did not validate,
    /// oldest first; empty on a first attempt. See [`Repair`] for how to answer.
    pub fn repairs(&self) -> &[Repair] {
        &self.repairs
    }

    /// The latest rejected attempt, when this call is a repair turn.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::agent::{AgentError, Reply};
    /// use a2ui_agent::request::Request;
    ///
    /// async fn agent(request: Request) -> Result<Reply, AgentError> {
    ///     if let Some(repair) = request.repair() {
    ///         // Ask the model again with `repair.prompt()` after `repair.answer()`.
    ///         return Ok(Reply::text(format!("{} problem(s) fixed.", repair.errors().len())));
    ///     }
    ///     Ok(Reply::text("first answer"))
    /// }
    /// ```
    pub fn repair(&self) -> Option<&Repair> {
        self.repairs.last()
    }
}

/// Appends each of `uris` not already in `list`, in order: the one place extension URIs are
/// de-duplicated. Linear (a set of those seen), so a message listing thousands of URIs costs
/// no more than reading them.
pub(crate) fn extend_unique(list: &mut Vec<String>, uris: impl IntoIterator<Item = String>) {
    let mut seen: std::collections::HashSet<String> = list.iter().cloned().collect();
    for uri in uris {
        if seen.insert(uri.clone()) {
            list.push(uri);
        }
    }
}
