//! The Grafana dashboard in `docs/` and the production guide's table name only metrics the
//! server exports, and the guide names every one: a renamed metric breaks this test, not an
//! operator's dashboard.

use std::collections::BTreeSet;
use std::time::Instant;

use super::{Binding, Metrics};

/// Metrics with one figure in every family (an empty family is not exported).
fn every_family() -> String {
    let metrics = Metrics::new();
    let meter = metrics.meter();
    meter.request(Binding::JsonRpc, "message/send", "ok");
    meter.shed("tasks");
    meter.tasks_running(1);
    let _open = meter.stream_open(Binding::Rest);
    meter.sse_events(Binding::Rest).add(1);
    meter.chunk_to_frame(Instant::now());
    meter.a2ui_sent(1);
    meter.a2ui_refused("invalid", 1);
    meter.repair("started");
    meter.store_op("get", Instant::now());
    meter.tool_call("search", "ok");
    let mut call = meter.model_call("qwen", Some("acme"));
    call.token();
    call.usage(3, 5);
    call.finished();
    drop(call);
    metrics.encode()
}

/// The names `# TYPE` lines declare in `text`.
fn exported(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_owned)
        .collect()
}

/// Every `a2ui_...` name in `text`, without the suffixes Prometheus adds to a family's
/// samples; the crate's own name (`a2ui_agent::...` paths and targets) is not one.
fn named(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(start) = rest.find("a2ui_") {
        let tail = &rest[start..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let mut name = &tail[..end];
        for suffix in ["_total", "_bucket", "_count", "_sum"] {
            name = name.strip_suffix(suffix).unwrap_or(name);
        }
        if name != "a2ui_agent" {
            names.insert(name.to_owned());
        }
        rest = &tail[end..];
    }
    names
}

#[test]
fn the_dashboard_and_the_guide_name_only_exported_metrics() {
    let text = every_family();
    let exported = exported(&text);
    assert_eq!(exported.len(), 18, "{text}");
    let dashboard = include_str!("../../docs/grafana-dashboard.json");
    let shown = named(dashboard);
    assert!(shown.len() > 10, "{shown:?}");
    let missing: Vec<_> = shown.difference(&exported).collect();
    assert!(
        missing.is_empty(),
        "the dashboard queries {missing:?}, not exported"
    );
    let guide = include_str!("../../docs/production.md");
    let section = &guide[guide.find("## Metrics").unwrap()..guide.find("## Soak").unwrap()];
    let documented = named(section);
    let missing: Vec<_> = documented.difference(&exported).collect();
    assert!(
        missing.is_empty(),
        "the guide names {missing:?}, not exported"
    );
    let undocumented: Vec<_> = exported.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "{undocumented:?} missing from the guide"
    );
}

#[test]
fn a_meter_without_metrics_records_nothing_and_a_scrape_ends_with_eof() {
    let idle = super::Meter::default();
    assert!(!idle.is_on());
    idle.request(Binding::Mcp, "tools/call", "ok");
    let text = every_family();
    assert!(text.ends_with("# EOF\n"));
    assert!(
        text.contains(
            r#"a2ui_model_tokens_total{model="qwen",tenant="acme",direction="output"} 5"#
        ),
        "{text}"
    );
    assert!(
        text.contains(
            r#"a2ui_requests_total{binding="a2a-jsonrpc",method="message/send",outcome="ok"} 1"#
        ),
        "{text}"
    );
}
