//! The Prometheus side of [`super::Metrics`]: one family per figure, registered once, and
//! the push sender's counters read at each scrape.

use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use super::Gauged;
use crate::push::PushStats;

type Static<const N: usize> = [(&'static str, &'static str); N];
type Named<const N: usize> = [(&'static str, String); N];
type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// Seconds from 1 ms to about 65 s: model latency, requests, tool calls.
fn latency() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

/// Seconds from 10 µs to about 0.3 s: a chunk's way to its frame, a store operation.
fn short() -> Histogram {
    Histogram::new(exponential_buckets(0.000_01, 2.0, 16))
}

/// Every family, and the registry that encodes them.
pub(super) struct Families {
    /// Locked only to scrape and to add a collector, never on a recording path.
    registry: Mutex<Registry>,
    requests: Family<Static<3>, Counter>,
    shed: Family<Static<1>, Counter>,
    tasks_running: Gauge,
    streams_open: Family<Static<1>, Gauge>,
    sse_events: Family<Static<1>, Counter>,
    chunk_to_frame: Histogram,
    first_token: Histograms<Named<1>>,
    model_duration: Histograms<[(&'static str, String); 2]>,
    tokens: Family<Named<3>, Counter>,
    a2ui_sent: Counter,
    a2ui_refused: Family<Static<1>, Counter>,
    repairs: Family<Static<1>, Counter>,
    tool_calls: Family<[(&'static str, String); 2], Counter>,
    store_ops: Histograms<Static<1>>,
    /// The push sender's counters, once there is one.
    push: Arc<PushSource>,
}

/// Reads the push sender's counters; none (zeros) until a server with push is built.
type PushSource = Mutex<Option<Box<dyn Fn() -> PushStats + Send + Sync>>>;

impl std::fmt::Debug for Families {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Families").finish_non_exhaustive()
    }
}

impl Families {
    pub(super) fn new() -> Self {
        let families = Families {
            registry: Mutex::new(Registry::with_prefix("a2ui")),
            requests: Family::default(),
            shed: Family::default(),
            tasks_running: Gauge::default(),
            streams_open: Family::default(),
            sse_events: Family::default(),
            chunk_to_frame: short(),
            first_token: Family::new_with_constructor(latency),
            model_duration: Family::new_with_constructor(latency),
            tokens: Family::default(),
            a2ui_sent: Counter::default(),
            a2ui_refused: Family::default(),
            repairs: Family::default(),
            tool_calls: Family::default(),
            store_ops: Family::new_with_constructor(short),
            push: Arc::new(Mutex::new(None)),
        };
        families.register();
        families
    }

    /// Registers every family (clones share their values).
    fn register(&self) {
        let Ok(mut registry) = self.registry.lock() else {
            return;
        };
        let r = &mut *registry;
        r.register(
            "requests",
            "Requests by binding, method and outcome",
            self.requests.clone(),
        );
        r.register(
            "shed_requests",
            "Requests refused to protect the server, by reason",
            self.shed.clone(),
        );
        r.register(
            "tasks_running",
            "Tasks running now",
            self.tasks_running.clone(),
        );
        r.register(
            "streams_open",
            "Event streams open now, by binding",
            self.streams_open.clone(),
        );
        r.register(
            "sse_events",
            "SSE events written, by binding",
            self.sse_events.clone(),
        );
        r.register_with_unit(
            "chunk_to_frame",
            "From a chunk of agent output that completes parts to their update handed to every stream",
            Unit::Seconds,
            self.chunk_to_frame.clone(),
        );
        r.register_with_unit(
            "model_time_to_first_token",
            "From a model request sent to its first token, by model",
            Unit::Seconds,
            self.first_token.clone(),
        );
        r.register_with_unit(
            "model_duration",
            "From a model request sent to its answer's end, by model and outcome",
            Unit::Seconds,
            self.model_duration.clone(),
        );
        r.register(
            "model_tokens",
            "Tokens the model read (input) and wrote (output), by model and tenant",
            self.tokens.clone(),
        );
        r.register(
            "messages_sent",
            "A2UI messages sent to clients",
            self.a2ui_sent.clone(),
        );
        r.register(
            "messages_refused",
            "A2UI messages refused, by error code",
            self.a2ui_refused.clone(),
        );
        r.register("repairs", "Repair turns, by outcome", self.repairs.clone());
        r.register(
            "tool_calls",
            "Tool calls, by tool and outcome",
            self.tool_calls.clone(),
        );
        r.register_with_unit(
            "store_operation",
            "Task store operations' latency, by operation",
            Unit::Seconds,
            self.store_ops.clone(),
        );
        r.register_collector(Box::new(PushCollector(self.push.clone())));
    }

    pub(super) fn encode(&self) -> String {
        let mut text = String::new();
        if let Ok(registry) = self.registry.lock() {
            // Writing into a String cannot fail.
            let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
        }
        text
    }

    pub(super) fn watch_push(&self, stats: Box<dyn Fn() -> PushStats + Send + Sync>) {
        if let Ok(mut source) = self.push.lock() {
            *source = Some(stats);
        }
    }

    pub(super) fn request(
        &self,
        binding: &'static str,
        method: &'static str,
        outcome: &'static str,
    ) {
        self.requests
            .get_or_create(&[
                ("binding", binding),
                ("method", method),
                ("outcome", outcome),
            ])
            .inc();
    }

    pub(super) fn shed(&self, reason: &'static str) {
        self.shed.get_or_create(&[("reason", reason)]).inc();
    }

    pub(super) fn tasks_running(&self, count: usize) {
        self.tasks_running
            .set(i64::try_from(count).unwrap_or(i64::MAX));
    }

    pub(super) fn stream_open(&self, binding: &'static str) -> Gauged {
        Gauged::on(
            self.streams_open
                .get_or_create_owned(&[("binding", binding)]),
        )
    }

    pub(super) fn sse_events(&self, binding: &'static str) -> Counter {
        self.sse_events.get_or_create_owned(&[("binding", binding)])
    }

    pub(super) fn chunk_to_frame(&self, seconds: f64) {
        self.chunk_to_frame.observe(seconds);
    }

    pub(super) fn a2ui_sent(&self, count: u64) {
        self.a2ui_sent.inc_by(count);
    }

    pub(super) fn a2ui_refused(&self, code: &'static str, count: u64) {
        self.a2ui_refused
            .get_or_create(&[("code", code)])
            .inc_by(count);
    }

    pub(super) fn repair(&self, outcome: &'static str) {
        self.repairs.get_or_create(&[("outcome", outcome)]).inc();
    }

    pub(super) fn store_op(&self, op: &'static str, seconds: f64) {
        self.store_ops
            .get_or_create(&[("operation", op)])
            .observe(seconds);
    }

    pub(super) fn tool_call(&self, tool: &str, outcome: &'static str) {
        self.tool_calls
            .get_or_create(&[("tool", tool.to_owned()), ("outcome", outcome.to_owned())])
            .inc();
    }

    pub(super) fn first_token(&self, model: &str, seconds: f64) {
        self.first_token
            .get_or_create(&[("model", model.to_owned())])
            .observe(seconds);
    }

    pub(super) fn model_duration(&self, model: &str, outcome: &'static str, seconds: f64) {
        self.model_duration
            .get_or_create(&[("model", model.to_owned()), ("outcome", outcome.to_owned())])
            .observe(seconds);
    }

    pub(super) fn tokens(&self, model: &str, tenant: &str, input: u64, output: u64) {
        for (direction, count) in [("input", input), ("output", output)] {
            self.tokens
                .get_or_create(&[
                    ("model", model.to_owned()),
                    ("tenant", tenant.to_owned()),
                    ("direction", direction.to_owned()),
                ])
                .inc_by(count);
        }
    }
}

/// The push sender's counters, read at each scrape.
struct PushCollector(Arc<PushSource>);

impl std::fmt::Debug for PushCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PushCollector")
    }
}

impl Collector for PushCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let stats = match self.0.lock() {
            Ok(source) => source.as_ref().map(|read| read()).unwrap_or_default(),
            Err(_) => PushStats::default(),
        };
        let figures = [
            (
                "push_delivered",
                "Push notifications a webhook acknowledged",
                stats.delivered,
            ),
            (
                "push_retries",
                "Push delivery attempts that failed and were tried again",
                stats.retried,
            ),
            (
                "push_dead_letters",
                "Push notifications given up on (every attempt failed, or refused)",
                stats.failed,
            ),
            (
                "push_dropped",
                "Push notifications dropped because a webhook's queue was full",
                stats.dropped,
            ),
        ];
        for (name, help, value) in figures {
            let counter = ConstCounter::new(value);
            let metric = encoder.encode_descriptor(name, help, None, counter.metric_type())?;
            counter.encode(metric)?;
        }
        Ok(())
    }
}
