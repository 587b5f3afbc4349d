//! What a running agent reports about itself: Prometheus metrics (the `metrics` feature)
//! and OpenTelemetry traces (the `otel` feature).
//!
//! Traces: the layers open `tracing` spans (a request, a task's run, each call of the agent
//! and each repair turn, each model request, tool call, store operation and push delivery)
//! and [`OtlpTraces`] exports them over OTLP from the executable's subscriber; see
//! `docs/production.md` for the list of spans and their attributes.
//!
//! An operator's first questions — how long the model takes to its first token, how often it
//! writes A2UI that fails validation, which tool is slow, how many streams are open, how many
//! tokens a tenant spent — are answered by counters and histograms the layers record here,
//! and [`Metrics::encode`] writes them in the Prometheus text format (OpenMetrics) for
//! `GET /metrics` ([`A2uiServer::metrics_router`](crate::A2uiServer::metrics_router)).
//!
//! The module is binding-neutral: the server, the task runner, the model connector and the
//! store wrapper all record through one crate-private handle, the `Meter`, and none of them
//! knows Prometheus. A meter is cheap to clone; one made without [`Metrics`] records nothing,
//! and without the `metrics` feature it is an empty type whose calls compile to nothing.
//!
//! Every label value comes from a fixed list or from the server's configuration (a model's
//! name, a tool the agent offers, a tenant the server knows): nothing a client writes becomes
//! a label, so no request can grow the metrics without bound.

mod context;
#[cfg(all(test, feature = "metrics"))]
mod dashboard_tests;
#[cfg(feature = "metrics")]
mod families;
#[cfg(feature = "otel")]
mod otlp;
mod store;
pub(crate) mod trace;

pub(crate) use context::{adopt_parent, inject};
#[cfg(feature = "otel")]
pub use otlp::{DEFAULT_SERVICE_NAME, OtlpError, OtlpProtocol, OtlpTraces, TracesGuard};
pub(crate) use store::TimedStore;

#[cfg(feature = "metrics")]
use std::sync::Arc;
use std::time::Instant;

/// The metrics of one server (or of several parts sharing one registry): every figure the
/// crate records, encoded on demand in the Prometheus text format.
///
/// Give one to [`ServerBuilder::metrics`](crate::ServerBuilder::metrics) (and to the model
/// connector's builder, for model and tool figures), then serve
/// [`A2uiServer::metrics_router`](crate::A2uiServer::metrics_router) where Prometheus can
/// scrape it. Cheap to clone: clones share the figures.
///
/// # Example
///
/// ```
/// use a2ui_agent::observe::Metrics;
///
/// let metrics = Metrics::new();
/// let text = metrics.encode();
/// assert!(text.contains("a2ui_tasks_running 0"));
/// assert!(text.ends_with("# EOF\n"));
/// ```
#[cfg(feature = "metrics")]
#[derive(Clone, Debug)]
pub struct Metrics {
    families: Arc<families::Families>,
}

#[cfg(feature = "metrics")]
impl Metrics {
    /// New metrics, every counter at zero.
    #[must_use]
    pub fn new() -> Self {
        Self {
            families: Arc::new(families::Families::new()),
        }
    }

    /// Every figure, in the OpenMetrics text format Prometheus scrapes (served with
    /// [`Metrics::CONTENT_TYPE`]), ending with `# EOF`.
    #[must_use]
    pub fn encode(&self) -> String {
        self.families.encode()
    }

    /// The `Content-Type` of [`Metrics::encode`]'s text.
    pub const CONTENT_TYPE: &'static str =
        "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /// The handle the layers record through.
    pub(crate) fn meter(&self) -> Meter {
        Meter {
            families: Some(self.families.clone()),
        }
    }
}

#[cfg(feature = "metrics")]
impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// The binding a request came in by: a label of the request and stream figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binding {
    JsonRpc,
    Rest,
    AgUi,
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    Mcp,
    #[cfg_attr(not(feature = "grpc"), allow(dead_code))]
    Grpc,
}

/// The A2A methods of both versions and every binding (JSON-RPC names and gRPC's
/// `A2AService` names), as the `method` label of the request metrics.
const METHODS: [&str; 24] = [
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
    "tasks/list",
    "GetAuthenticatedExtendedCard",
    "other",
];

/// `method` as a label: one of [`METHODS`], else `other`, so a label never holds what a
/// client wrote.
pub(crate) fn method_label(method: &str) -> &'static str {
    METHODS
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("other")
}

impl Binding {
    /// The label value (and the request span's `a2a.binding`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Binding::JsonRpc => "a2a-jsonrpc",
            Binding::Rest => "a2a-rest",
            Binding::AgUi => "agui",
            Binding::Mcp => "mcp",
            Binding::Grpc => "a2a-grpc",
        }
    }
}

/// Where the layers record: cheap to clone; without [`Metrics`] (or the `metrics` feature)
/// every call does nothing.
#[derive(Clone, Default, Debug)]
pub(crate) struct Meter {
    #[cfg(feature = "metrics")]
    families: Option<Arc<families::Families>>,
}

/// Calls a recording method on the families when there are any; nothing otherwise.
macro_rules! record {
    ($meter:expr, |$families:ident| $body:expr) => {{
        #[cfg(feature = "metrics")]
        if let Some($families) = &$meter.families {
            $body;
        }
    }};
}

#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
impl Meter {
    /// Whether anything is recorded (callers skip reading clocks when not).
    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        #[cfg(feature = "metrics")]
        {
            self.families.is_some()
        }
        #[cfg(not(feature = "metrics"))]
        {
            false
        }
    }

    /// A request of `binding` and `method` (one of the binding's own names) ended with
    /// `outcome` (`ok`, or the error's kind).
    #[inline]
    pub(crate) fn request(&self, binding: Binding, method: &'static str, outcome: &'static str) {
        trace::request_done(binding.as_str(), method, outcome);
        record!(self, |f| f.request(binding.as_str(), method, outcome));
    }

    /// A request refused to protect the server, for `reason` (`tasks`, `client_tasks`,
    /// `streams`, `client_streams`).
    #[inline]
    pub(crate) fn shed(&self, reason: &'static str) {
        record!(self, |f| f.shed(reason));
    }

    /// The metrics recorded here, when any are.
    #[cfg(feature = "metrics")]
    pub(crate) fn metrics(&self) -> Option<Metrics> {
        let families = self.families.clone()?;
        Some(Metrics { families })
    }

    /// Reads `stats` at every scrape as the push sender's counters.
    pub(crate) fn watch_push(
        &self,
        stats: impl Fn() -> crate::push::PushStats + Send + Sync + 'static,
    ) {
        record!(self, |f| f.watch_push(Box::new(stats)));
    }

    /// `count` tasks run here now.
    #[inline]
    pub(crate) fn tasks_running(&self, count: usize) {
        record!(self, |f| f.tasks_running(count));
    }

    /// A stream of `binding` opened; the returned guard counts it until dropped.
    #[inline]
    pub(crate) fn stream_open(&self, binding: Binding) -> Gauged {
        record!(self, |f| return f.stream_open(binding.as_str()));
        Gauged::default()
    }

    /// The count of SSE events written to streams of `binding`, looked up once per stream.
    #[inline]
    pub(crate) fn sse_events(&self, binding: Binding) -> Events {
        record!(self, |f| return Events {
            counter: Some(f.sse_events(binding.as_str()))
        });
        Events::default()
    }

    /// A chunk of agent output that completed parts became an update to every stream
    /// `since` it arrived.
    #[inline]
    pub(crate) fn chunk_to_frame(&self, since: Instant) {
        record!(self, |f| f.chunk_to_frame(since.elapsed().as_secs_f64()));
    }

    /// `count` A2UI messages went out to the client.
    #[inline]
    pub(crate) fn a2ui_sent(&self, count: usize) {
        record!(self, |f| f.a2ui_sent(count as u64));
    }

    /// `count` A2UI messages were refused, for `code` (`invalid`, `unreadable`, `truncated`,
    /// `limit`).
    #[inline]
    pub(crate) fn a2ui_refused(&self, code: &'static str, count: usize) {
        record!(self, |f| f.a2ui_refused(code, count as u64));
    }

    /// A repair turn's `outcome`: `started`, `mended` (the reply after it finished),
    /// `failed` (it did not), `refused` (the policy allowed no more).
    #[inline]
    pub(crate) fn repair(&self, outcome: &'static str) {
        record!(self, |f| f.repair(outcome));
    }

    /// A store operation `op` took the time `since` it began.
    #[inline]
    pub(crate) fn store_op(&self, op: &'static str, since: Instant) {
        record!(self, |f| f.store_op(op, since.elapsed().as_secs_f64()));
    }

    /// A call of the tool `tool` (a name the agent offers) ended with `outcome`.
    #[inline]
    #[cfg_attr(not(feature = "llm"), allow(dead_code))]
    pub(crate) fn tool_call(&self, tool: &str, outcome: &'static str) {
        record!(self, |f| f.tool_call(tool, outcome));
    }

    /// One request to `model` for `tenant` (none: the default tenant), sent now.
    #[inline]
    #[cfg_attr(not(feature = "llm"), allow(dead_code))]
    pub(crate) fn model_call(&self, model: &str, tenant: Option<&str>) -> ModelCall {
        ModelCall {
            #[cfg(feature = "metrics")]
            on: self.families.as_ref().map(|families| Labelled {
                families: families.clone(),
                model: model.to_owned(),
                tenant: tenant.unwrap_or_default().to_owned(),
                started: Instant::now(),
            }),
            first: false,
            finished: false,
            span: tracing::Span::none(),
            sent: None,
        }
    }
}

/// One request to a model, from its sending to its last token: time to first token,
/// duration and token usage.
#[derive(Debug)]
pub(crate) struct ModelCall {
    #[cfg(feature = "metrics")]
    on: Option<Labelled>,
    first: bool,
    /// Whether the model finished its answer; recorded with the duration when the call is
    /// dropped (`ok`, else `unfinished`: it failed, timed out, or its reader stopped).
    finished: bool,
    /// The request's span (GenAI attributes), disabled when no subscriber wants it.
    span: tracing::Span,
    /// When the request was sent, for the span's time to first token.
    sent: Option<Instant>,
}

#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
#[cfg_attr(not(feature = "llm"), allow(dead_code))]
impl ModelCall {
    /// The call also recorded on `span` (see `trace::model`), its request sent at `sent`.
    pub(crate) fn traced(mut self, span: tracing::Span, sent: Instant) -> Self {
        if !span.is_disabled() {
            self.span = span;
            self.sent = Some(sent);
        }
        self
    }

    /// A token came; the first one's time is recorded.
    #[inline]
    pub(crate) fn token(&mut self) {
        if self.first {
            return;
        }
        self.first = true;
        if let Some(sent) = self.sent {
            let seconds = sent.elapsed().as_secs_f64();
            self.span
                .record("gen_ai.server.time_to_first_token", seconds);
        }
        #[cfg(feature = "metrics")]
        if let Some(on) = &self.on {
            let seconds = on.started.elapsed().as_secs_f64();
            on.families.first_token(&on.model, seconds);
        }
    }

    /// The usage the model reported: `input` prompt tokens, `output` completion tokens.
    pub(crate) fn usage(&self, input: u64, output: u64) {
        if self.sent.is_some() {
            // As i64: the OpenTelemetry bridge writes other integers as text.
            let tokens = |count: u64| i64::try_from(count).unwrap_or(i64::MAX);
            self.span.record("gen_ai.usage.input_tokens", tokens(input));
            self.span
                .record("gen_ai.usage.output_tokens", tokens(output));
        }
        #[cfg(feature = "metrics")]
        if let Some(on) = &self.on {
            on.families.tokens(&on.model, &on.tenant, input, output);
        }
    }

    /// The model finished its answer.
    pub(crate) fn finished(&mut self) {
        self.finished = true;
    }

    /// The model said why it stopped (`stop`, `tool_calls`, `length`...).
    pub(crate) fn finish_reason(&self, reason: &str) {
        if self.sent.is_some() {
            trace::finish_reasons(&self.span, reason);
        }
    }
}

impl Drop for ModelCall {
    fn drop(&mut self) {
        if self.sent.is_some() && !self.finished {
            self.span.record("otel.status_code", "ERROR");
        }
        #[cfg(feature = "metrics")]
        if let Some(on) = &self.on {
            let outcome = if self.finished { "ok" } else { "unfinished" };
            let seconds = on.started.elapsed().as_secs_f64();
            on.families.model_duration(&on.model, outcome, seconds);
        }
    }
}

/// Where a [`ModelCall`] records, and its labels.
#[cfg(feature = "metrics")]
#[derive(Debug)]
struct Labelled {
    families: Arc<families::Families>,
    model: String,
    tenant: String,
    started: Instant,
}

/// One stream's SSE event count: a counter of its binding, looked up once.
#[derive(Debug, Default)]
pub(crate) struct Events {
    #[cfg(feature = "metrics")]
    counter: Option<prometheus_client::metrics::counter::Counter>,
}

#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
impl Events {
    /// `count` more events written.
    #[inline]
    pub(crate) fn add(&self, count: usize) {
        #[cfg(feature = "metrics")]
        if let Some(counter) = &self.counter {
            counter.inc_by(count as u64);
        }
    }
}

/// A gauge's count of one thing, taken back when dropped.
#[derive(Debug, Default)]
pub(crate) struct Gauged {
    #[cfg(feature = "metrics")]
    gauge: Option<prometheus_client::metrics::gauge::Gauge>,
}

#[cfg(feature = "metrics")]
impl Gauged {
    /// Counts one on `gauge` until dropped.
    fn on(gauge: prometheus_client::metrics::gauge::Gauge) -> Self {
        gauge.inc();
        Self { gauge: Some(gauge) }
    }
}

impl Drop for Gauged {
    fn drop(&mut self) {
        #[cfg(feature = "metrics")]
        if let Some(gauge) = &self.gauge {
            gauge.dec();
        }
    }
}
