//! The spans the layers open for traces: one place that names them and their attributes.
//!
//! The library only emits `tracing` spans; an OpenTelemetry exporter (the `otel` feature's
//! [`OtlpTraces`](super::OtlpTraces), or any layer a user installs) turns them into a trace.
//! The names follow OpenTelemetry's conventions — the GenAI ones for model calls and tool
//! calls — and live here so the request, task, model and tool spans cannot drift apart.
//!
//! Integers are recorded as `i64`: the OpenTelemetry bridge writes other integer types as
//! text.
//!
//! Every span here is at `DEBUG` under the target [`TARGET`]: a subscriber that does not ask
//! for them (the command-line tool's log at its default level) gets a disabled span, and each
//! constructor then costs one check, no allocation. Prompt and completion text is never an
//! attribute: it goes only to events under [`CONTENT`], which the exporter drops unless told
//! to record content (their text is only formatted when a subscriber takes them).

use tracing::Span;
use tracing::field::Empty;

use crate::pipeline::End;
use crate::request::Request;

/// The target of every span and span event this module makes.
pub(crate) const TARGET: &str = "a2ui_agent::trace";

/// The target of the events that hold prompt and completion text.
#[cfg_attr(not(any(feature = "llm", feature = "otel")), allow(dead_code))]
pub(crate) const CONTENT: &str = "a2ui_agent::content";

/// The span of one request the API answers, before its binding and method are known
/// ([`request_done`] fills them in).
pub(crate) fn request(method: &str, path: &str, binding: Option<&'static str>) -> Span {
    let span = tracing::debug_span!(
        target: TARGET,
        "request",
        otel.name = Empty,
        otel.kind = "server",
        a2a.binding = binding,
        a2a.method = Empty,
        a2a.outcome = Empty,
        http.request.method = method,
        url.path = path,
    );
    if let (Some(binding), false) = (binding, span.is_disabled()) {
        span.record("otel.name", binding);
    }
    span
}

/// The current request's `binding`, `method` and `outcome`, on its span.
pub(crate) fn request_done(binding: &'static str, method: &'static str, outcome: &'static str) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    span.record("a2a.binding", binding);
    span.record("a2a.method", method);
    span.record("a2a.outcome", outcome);
    super::context::rename(&span, format!("{binding} {method}"));
}

/// The span of one call of the agent in a task's run: the first attempt (`a2ui.attempt`),
/// or repair turn `repair` (from 1), exported as a span of its own named `a2ui.repair` —
/// asked with `request`.
pub(crate) fn attempt(repair: u32, request: &Request) -> Span {
    let span = tracing::debug_span!(
        target: TARGET,
        "a2ui.attempt",
        otel.name = if repair == 0 { "a2ui.attempt" } else { "a2ui.repair" },
        a2ui.repair = i64::from(repair),
        a2ui.protocol_version = Empty,
        a2ui.catalog = Empty,
        a2ui.format = Empty,
        a2ui.messages_sent = Empty,
        a2ui.messages_refused = Empty,
        a2ui.error_id = Empty,
        otel.status_code = Empty,
    );
    if let (Some(processor), false) = (request.a2ui(), span.is_disabled()) {
        span.record("a2ui.protocol_version", processor.version().as_str());
        if let Some(catalog) = processor.catalogs().first() {
            span.record("a2ui.catalog", catalog.id());
        }
        span.record("a2ui.format", processor.format().name());
    }
    span
}

/// What the pipeline refused at `end`, on the attempt's `span`: the count, and each
/// validation error (or why the A2UI could not be read) as an `a2ui.validation_error`
/// event. Called on the repair turn's span, these are the errors that caused it.
pub(crate) fn refused(span: &Span, end: &End) {
    if span.is_disabled() {
        return;
    }
    let _entered = span.enter();
    match end {
        End::Invalid(errors) => {
            for error in errors {
                tracing::debug!(
                    target: TARGET,
                    { error.pointer = %error.pointer, error.message = %error.message },
                    "a2ui.validation_error"
                );
            }
        }
        // The reason may quote the answer: only whether it was cut off is recorded.
        End::Unreadable { cut, .. } => {
            tracing::debug!(target: TARGET, { a2ui.cut_off = cut }, "a2ui.unreadable");
        }
        End::Failed(reason) => {
            tracing::debug!(target: TARGET, { error.message = %reason }, "a2ui.limit");
        }
    }
}

/// How many A2UI messages the pipeline refused at `end`.
pub(crate) fn refused_count(end: &End) -> usize {
    match end {
        End::Invalid(errors) => errors.len(),
        _ => 1,
    }
}

/// The error id a failed task's client sees, on the current span (the attempt's), which
/// is then marked as failed.
pub(crate) fn error_id(id: &str) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    span.record("a2ui.error_id", id);
    span.record("otel.status_code", "ERROR");
}

/// The span of one request to `model` (GenAI `chat`), in tool round `round`.
#[cfg_attr(not(feature = "llm"), allow(dead_code))]
pub(crate) fn model(model: &str, round: u32) -> Span {
    tracing::debug_span!(
        target: TARGET,
        "gen_ai.chat",
        otel.name = %format_args!("chat {model}"),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = "openai",
        gen_ai.request.model = model,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.server.time_to_first_token = Empty,
        a2ui.tool_round = i64::from(round),
    )
}

/// Why the model stopped (`stop`, `tool_calls`, `length`...), on its request's `span`.
///
/// The GenAI conventions make `gen_ai.response.finish_reasons` an array of strings, which a
/// `tracing` field cannot hold: when the span is exported by OpenTelemetry (the `otel`
/// feature's layer) the array is set on the OpenTelemetry span itself, and the `tracing`
/// field is left empty so the attribute is not sent twice; any other subscriber sees the
/// reason as the field's text.
#[cfg_attr(not(feature = "llm"), allow(dead_code))]
pub(crate) fn finish_reasons(span: &Span, reason: &str) {
    if span.is_disabled() {
        return;
    }
    #[cfg(feature = "otel")]
    {
        use opentelemetry::trace::TraceContextExt as _;
        use opentelemetry::{Array, StringValue, Value};
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;
        if span.context().span().span_context().is_valid() {
            let reasons = vec![StringValue::from(reason.to_owned())];
            span.set_attribute(
                "gen_ai.response.finish_reasons",
                Value::Array(Array::String(reasons)),
            );
            return;
        }
    }
    span.record("gen_ai.response.finish_reasons", reason);
}

/// The span of one call of the tool `name` (GenAI `execute_tool`), asked as `call_id`.
#[cfg_attr(not(feature = "llm"), allow(dead_code))]
pub(crate) fn tool(name: &str, call_id: &str) -> Span {
    tracing::debug_span!(
        target: TARGET,
        "gen_ai.execute_tool",
        otel.name = %format_args!("execute_tool {name}"),
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = call_id,
    )
}

/// The span of one store operation `op` (`get`, `put`, `replace`...).
pub(crate) fn store(op: &'static str) -> Span {
    tracing::debug_span!(
        target: TARGET,
        "store",
        otel.name = %format_args!("store {op}"),
        otel.kind = "client",
        db.operation.name = op,
    )
}

/// Whether a subscriber may want this module's spans, asked when a server is built: the
/// router then opens request spans, and the store is wrapped to open its own.
///
/// Read from the most verbose level any subscriber asks for, not with `span_enabled!`:
/// under per-layer filters that query leaves the filters' state set on the thread, and the
/// thread's next event is lost (tokio-rs/tracing#2519).
pub(crate) fn wanted() -> bool {
    tracing::level_filters::LevelFilter::current() >= tracing::Level::DEBUG
}

/// The span of one push delivery (every attempt of it) of task `task_id`'s update to the
/// webhook `config_id`, in the trace it was `carried` from.
pub(crate) fn push(carried: &Carried, task_id: &str, config_id: &str) -> Span {
    let span = tracing::debug_span!(
        target: TARGET,
        parent: None,
        "push",
        otel.name = "push delivery",
        otel.kind = "client",
        otel.status_code = Empty,
        a2a.task.id = task_id,
        a2a.push.config_id = config_id,
        a2a.push.attempts = Empty,
        a2a.push.outcome = Empty,
    );
    carried.adopt(&span);
    span
}

/// The span of a task's push lane reading the task's webhooks for a batch of updates, in
/// the trace of the first update (`carried`).
pub(crate) fn push_configs(carried: &Carried, task_id: &str) -> Span {
    let span = tracing::debug_span!(
        target: TARGET,
        parent: None,
        "push.configs",
        otel.name = "push configs",
        a2a.task.id = task_id,
    );
    carried.adopt(&span);
    span
}

/// The trace a piece of work belongs to, carried to where it is done later (a webhook's
/// worker): the span's OpenTelemetry context, not the span itself, which would then stay
/// open until that work is done. Empty without the `otel` feature or an exported span.
#[derive(Clone, Debug, Default)]
pub(crate) struct Carried {
    #[cfg(feature = "otel")]
    context: Option<opentelemetry::Context>,
}

impl Carried {
    /// The current span's trace.
    pub(crate) fn current() -> Self {
        #[cfg(feature = "otel")]
        {
            use tracing_opentelemetry::OpenTelemetrySpanExt as _;
            let span = Span::current();
            if !span.is_disabled() {
                return Self {
                    context: Some(span.context()),
                };
            }
        }
        Self::default()
    }

    /// Makes the carried trace `span`'s parent.
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(crate) fn adopt(&self, span: &Span) {
        #[cfg(feature = "otel")]
        if let Some(context) = &self.context {
            use tracing_opentelemetry::OpenTelemetrySpanExt as _;
            let _ = span.set_parent(context.clone());
        }
    }
}
