//! The `rmcp` handler of one MCP session (or of one stateless request): what it lists,
//! and which call becomes which turn: a `tools/call` is the A2A send it is, run through the
//! operations layer, its events collected into the tool result.

use std::sync::{Arc, Mutex};

use axum::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::bundle;
use super::tools::{AgentTool, MAX_ACTIONS};
use serde_json::{Map, Value};

use super::keys::{A2UI_KEY, CONTEXT_KEY};
use super::result::{Collector, Sent};
use crate::a2a::SendRequest;
use crate::a2a::jsonrpc::RpcError;
use crate::a2ui::ProtocolVersion;
use crate::clock::timestamp;
use crate::request::Principal;
use crate::server::ServerState;
use crate::server::ops::{self, Opening, StreamOptions};
use crate::server::sse::Opened;
use crate::server::turn::{Said, Turn};

/// One session's handler: the server, the agent's tool, the session's conversation and
/// the action events its surfaces named.
pub(crate) struct Handler {
    pub(super) state: Arc<ServerState>,
    pub(super) tool: Arc<AgentTool>,
    /// The session's conversation: an A2A context of its caller's, fresh per session.
    pub(super) conversation: String,
    /// The action events the session's surfaces may send back (listed as tools).
    actions: Mutex<Vec<String>>,
}

impl Handler {
    /// A session's handler, its conversation new.
    pub(super) fn new(state: Arc<ServerState>, tool: Arc<AgentTool>) -> Self {
        let conversation = state.tasks.ids.new_id();
        Self {
            state,
            tool,
            conversation,
            actions: Mutex::new(Vec::new()),
        }
    }

    /// A request of `method` answered with `outcome`, counted in the request metrics.
    fn counted(&self, method: &'static str, outcome: &'static str) {
        self.state
            .meter
            .request(crate::observe::Binding::Mcp, method, outcome);
    }

    fn actions(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.actions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Remembers the action events a result's surfaces named (the first [`MAX_ACTIONS`]).
    pub(super) fn learn_actions(&self, named: Vec<String>) {
        let mut actions = self.actions();
        for name in named {
            if actions.len() >= MAX_ACTIONS {
                break;
            }
            if name != self.tool.name && !actions.contains(&name) {
                actions.push(name);
            }
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        self.tool.info()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let actions = self.actions().clone();
        let listed = ListToolsResult::with_all_items(self.tool.list(&actions));
        self.counted("tools/list", "ok");
        Ok(listed)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.counted("resources/list", "ok");
        Ok(bundle::list())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let read = bundle::read(&request.uri);
        let outcome = match &read {
            Ok(_) => "ok",
            Err(error) if error.code == ErrorCode::RESOURCE_NOT_FOUND => "not_found",
            Err(error) if error.code == ErrorCode::INTERNAL_ERROR => "server_error",
            Err(_) => "client_error",
        };
        self.counted("resources/read", outcome);
        read.map(Into::into)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        call(self, request, context).await.map(Into::into)
    }
}

/// The longest conversation id a stateless client may name.
const MAX_CONTEXT_ID: usize = 256;

/// What the caller asked for: a turn of its own words, or an action on a surface.
enum Ask {
    Message(String),
    Action {
        name: String,
        context: Map<String, Value>,
    },
}

/// Runs the call `request` of `handler`'s session and answers with its result, counted in
/// the request metrics.
pub(super) async fn call(
    handler: &Handler,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let result = run_call(handler, request, context).await;
    let outcome = match &result {
        Ok(result) if result.is_error != Some(true) => "ok",
        Ok(_) => "server_error",
        Err(_) => "client_error",
    };
    handler.counted("tools/call", outcome);
    result
}

/// The call `request` of `handler`'s session, run.
async fn run_call(
    handler: &Handler,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let state = &handler.state;
    let http = context.extensions.get::<Parts>();
    let principal: Principal = http
        .and_then(|parts| parts.extensions.get::<Principal>())
        .cloned()
        .unwrap_or_default();
    let headers = http.map(|parts| parts.headers.clone()).unwrap_or_default();
    // `rmcp` moves the call's `_meta` into the context.
    let meta = request
        .meta
        .as_ref()
        .filter(|meta| !meta.0.0.is_empty())
        .unwrap_or(&context.meta);
    let meta = Some(&meta.0.0);
    let a2ui = meta
        .and_then(|meta| meta.get(A2UI_KEY))
        .and_then(Value::as_object);
    let conversation = conversation(handler, meta)?;
    let ask = ask(handler, &request)?;
    let declared = declared_capabilities(a2ui, &context);
    let version = chosen_version(handler, declared.as_ref());
    let owner = principal.owner();
    let waiting = ops::waiting_task(state, &owner, &conversation)
        .await
        .map_err(|error| refusal(error.into_rpc("mcp tools/call")))?;
    let said = match ask {
        Ask::Message(text) => Said::Text(text),
        Ask::Action { name, context } => {
            if waiting.is_none() || !handler.actions().contains(&name) {
                return Err(unknown_tool(&name));
            }
            let surface = surface_of(a2ui)?;
            let now = timestamp(state.tasks.clock.now());
            Said::Action(action(name, context, surface, now))
        }
    };
    let turn = Turn {
        id: state.tasks.ids.new_id(),
        conversation: conversation.clone(),
        version,
        said,
        capabilities: declared.filter(|_| version.is_some()),
        data_model: a2ui.and_then(|a2ui| a2ui.get("dataModel")).cloned(),
    };
    let message = turn.into_message(waiting.as_ref());
    let send = SendRequest {
        message,
        configuration: Default::default(),
        metadata: None,
    };
    let how = StreamOptions {
        cancel_on_disconnect: true,
        history_length: Some(0),
        operation: "mcp tools/call",
        client_history: Vec::new(),
    };
    let (opening, _) = ops::open(state, principal, &headers, send, how)
        .await
        .map_err(|error| refusal(error.into_rpc("mcp tools/call")))?;
    let opened = match opening {
        Opening::Ready(opened) => opened,
        Opening::Later(later) => later.await.map_err(refusal)?,
    };
    let collector = collect(opened, &context).await?;
    handler.learn_actions(collector.action_names());
    Ok(collector.into_result(&handler.tool.name, &conversation))
}

/// The task's events until its run ends, progress notified as they come; a cancelled
/// call drops the stream, which cancels the task.
async fn collect(
    opened: Opened,
    context: &RequestContext<RoleServer>,
) -> Result<Collector, ErrorData> {
    let Opened {
        first,
        events,
        guard,
        slot,
    } = opened;
    let _guard = guard;
    let _slot = slot;
    let progress = context.meta.get_progress_token();
    let mut collector = Collector::default();
    let mut ended = collector.add(&first);
    let Some(mut events) = events else {
        return Ok(collector);
    };
    let mut sent = Sent::default();
    while !ended {
        let event = tokio::select! {
            () = context.ct.cancelled() => {
                return Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "The call was cancelled", None));
            }
            event = events.recv() => event,
        };
        let Some(event) = event else {
            collector.cut_off();
            break;
        };
        ended = collector.add(&event);
        if let Some(token) = &progress
            && !ended
            && let Some(param) = collector.progress(token, &mut sent)
        {
            let _ = context.peer.notify_progress(param).await;
        }
    }
    Ok(collector)
}

/// The conversation of the call: the one a stateless client names (`_meta`), else the
/// session's.
fn conversation(handler: &Handler, meta: Option<&Map<String, Value>>) -> Result<String, ErrorData> {
    match meta.and_then(|meta| meta.get(CONTEXT_KEY)) {
        None | Some(Value::Null) => Ok(handler.conversation.clone()),
        Some(Value::String(id)) if !id.is_empty() && id.len() <= MAX_CONTEXT_ID => Ok(id.clone()),
        Some(_) => Err(ErrorData::invalid_params(
            format!("_meta.{CONTEXT_KEY}: a conversation id of 1 to {MAX_CONTEXT_ID} bytes"),
            None,
        )),
    }
}

/// What the call asks: the agent's tool takes `message` (and an optional `context`); any
/// other name is a surface's action event, its arguments the action's context.
fn ask(handler: &Handler, request: &CallToolRequestParams) -> Result<Ask, ErrorData> {
    let arguments = request.arguments.clone().unwrap_or_default();
    if request.name != handler.tool.name {
        return Ok(Ask::Action {
            name: request.name.to_string(),
            context: arguments,
        });
    }
    let Some(Value::String(message)) = arguments.get("message") else {
        return Err(ErrorData::invalid_params(
            "arguments.message: the user's message, a string, is required",
            None,
        ));
    };
    let text = match arguments.get("context") {
        None | Some(Value::Null) => message.clone(),
        Some(Value::String(context)) => format!("{message}\n\nContext: {context}"),
        Some(_) => {
            return Err(ErrorData::invalid_params(
                "arguments.context: a string when given",
                None,
            ));
        }
    };
    Ok(Ask::Message(text))
}

/// The renderer capabilities the client declared: per call in `_meta["org.a2ui/ui"]`,
/// else for the session in `initialize` (`capabilities.extensions["org.a2ui/ui"]`).
fn declared_capabilities(
    a2ui: Option<&Map<String, Value>>,
    context: &RequestContext<RoleServer>,
) -> Option<Value> {
    let per_call = a2ui.and_then(|a2ui| a2ui.get("rendererCapabilities"));
    if let Some(declared) = per_call.filter(|value| value.is_object()) {
        return Some(declared.clone());
    }
    let peer = context.peer.peer_info()?;
    let extensions = peer.capabilities.extensions.as_ref()?;
    extensions
        .get(A2UI_KEY)?
        .get("rendererCapabilities")
        .filter(|value| value.is_object())
        .cloned()
}

/// The A2UI version of the turn: the newest the agent speaks among those the client
/// declared; when the client declared none, the renderer bundle's (it is how such a client
/// shows surfaces) or else the newest the agent speaks; `None` (text only) when they share
/// none or the agent speaks no A2UI.
fn chosen_version(handler: &Handler, declared: Option<&Value>) -> Option<ProtocolVersion> {
    let advertised = handler.state.a2ui.advertised();
    let mut spoken = ProtocolVersion::ALL
        .into_iter()
        .filter(|version| advertised.contains(&version.extension_uri()));
    match declared.and_then(Value::as_object) {
        None => {
            let all: Vec<ProtocolVersion> = spoken.collect();
            all.iter()
                .find(|version| **version == bundle::VERSION)
                .or(all.first())
                .copied()
        }
        Some(declared) => spoken.find(|version| {
            declared
                .keys()
                .any(|key| ProtocolVersion::from_message_version(key) == Some(*version))
        }),
    }
}

/// The A2UI action object of the user's action `name` on `surface`.
fn action(
    name: String,
    context: Map<String, Value>,
    surface: Value,
    now: String,
) -> Map<String, Value> {
    let mut action = Map::new();
    action.insert("name".into(), Value::String(name));
    action.insert("surfaceId".into(), surface);
    action.insert("sourceComponentId".into(), Value::String(String::new()));
    action.insert("timestamp".into(), Value::String(now));
    action.insert("context".into(), Value::Object(context));
    action
}

/// The surface an action names (`_meta["org.a2ui/ui"].surfaceId`): a string, or `null`
/// when the client named none.
fn surface_of(a2ui: Option<&Map<String, Value>>) -> Result<Value, ErrorData> {
    match a2ui.and_then(|a2ui| a2ui.get("surfaceId")) {
        None | Some(Value::Null) => Ok(Value::Null),
        Some(Value::String(id)) => Ok(Value::String(id.clone())),
        Some(_) => Err(ErrorData::invalid_params(
            format!("_meta[\"{A2UI_KEY}\"].surfaceId: a string when given"),
            None,
        )),
    }
}

/// A tool the server does not have (no surface of the session named the action, or none
/// waits for it): MCP's invalid-params error, naming the tool.
fn unknown_tool(name: &str) -> ErrorData {
    let shown: String = name.chars().take(64).collect();
    ErrorData::invalid_params(format!("Unknown tool: {shown:?}"), None)
}

/// A refusal of the operations layer as a JSON-RPC error (code and message, written for
/// clients; no data).
fn refusal(error: RpcError) -> ErrorData {
    let code = i32::try_from(error.code.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(ErrorCode(code), error.message, None)
}
