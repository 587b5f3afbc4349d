//! The Grafana dashboard in `docs/` and the production guide's table name only metrics the
//! server exports: a renamed metric breaks this test, not an operator's dashboard.
#![cfg(feature = "metrics")]

use std::collections::BTreeSet;

use a2ui_agent::observe::Metrics;

/// The names `# TYPE` lines declare in `text`.
fn exported(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_owned)
        .collect()
}

/// Every `a2ui_...` name in `text`, without the suffixes Prometheus adds to a family's
/// samples.
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
        // `a2ui_agent` (the crate) and `a2ui_push_...` prose in the guide are not all metrics.
        if name != "a2ui_agent" {
            names.insert(name.to_owned());
        }
        rest = &tail[end..];
    }
    names
}

#[test]
fn the_dashboard_and_the_guide_name_only_exported_metrics() {
    let text = Metrics::new().encode();
    let exported = exported(&text);
    assert!(exported.contains("a2ui_requests"), "{text}");
    let dashboard = include_str!("../docs/grafana-dashboard.json");
    let shown = named(dashboard);
    assert!(shown.len() > 10, "{shown:?}");
    let missing: Vec<_> = shown.difference(&exported).collect();
    assert!(missing.is_empty(), "the dashboard queries {missing:?}, not exported");
    let guide = include_str!("../docs/production.md");
    let section = &guide[guide.find("## Metrics").unwrap()..guide.find("## Soak").unwrap()];
    let documented = named(section);
    let missing: Vec<_> = documented.difference(&exported).collect();
    assert!(missing.is_empty(), "the guide names {missing:?}, not exported");
    let undocumented: Vec<_> = exported.difference(&documented).collect();
    assert!(undocumented.is_empty(), "{undocumented:?} missing from the guide");
}
