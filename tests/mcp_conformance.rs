//! `a2ui-agent serve --mcp` against the MCP project's own conformance suite,
//! `@modelcontextprotocol/conformance` 0.1.16 (npm, in `tests/interop/mcp-conformance`,
//! installed by `scripts/install-test-deps.sh`): every server scenario that applies to an
//! agent served as one tool passes with no failed check. The scenarios that do not apply
//! (they call the suite's reference server's own tools, prompts and resources, or methods
//! of capabilities this server does not declare) are listed, with why, in docs/interop.md.
//! The suite's bundle needs Node 22's `fs.globSync` for a report the server scenarios never
//! make; `node20.mjs` lets it load on Node 20. Skipped (with a message) when the suite is
//! not installed, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(all(feature = "cli", feature = "mcp"))]

mod support;

#[allow(dead_code)] // the echo agent and its helpers serve the other interop tests
#[path = "interop/support.rs"]
mod interop;

use std::time::Duration;

use interop::{crate_root, installed, node_on_path, run_script};
use serde_json::Value;
use support::{serve_command, spawn_binary};

/// The server scenarios that apply, and the checks each must pass.
const SCENARIOS: [(&str, usize); 6] = [
    ("server-initialize", 1),
    ("ping", 1),
    ("tools-list", 1),
    ("server-sse-multiple-streams", 2),
    ("server-sse-polling", 2),
    ("dns-rebinding-protection", 2),
];

/// The checks of the scenario run whose results are in `dir`.
fn checks(dir: &std::path::Path) -> Vec<Value> {
    let run = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .find(|entry| entry.path().join("checks.json").exists())
        .unwrap_or_else(|| panic!("no checks.json under {}", dir.display()));
    let text = std::fs::read_to_string(run.path().join("checks.json")).unwrap();
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

#[tokio::test]
async fn every_server_scenario_that_applies_passes() {
    let dir = crate_root().join("tests/interop/mcp-conformance");
    let Some(suite) = installed(
        dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        "the MCP conformance suite (@modelcontextprotocol/conformance)",
    ) else {
        return;
    };
    let command = serve_command(&["--mcp", "--min-delay-ms", "0", "--max-delay-ms", "0"]);
    let (_child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let url = format!("{url}mcp");
    let out = std::env::temp_dir().join(format!("a2ui-mcp-conformance-{}", std::process::id()));
    for (scenario, expected) in SCENARIOS {
        let results = out.join(scenario);
        let args = [
            "--import",
            "./node20.mjs",
            suite.to_str().unwrap(),
            "server",
            "--url",
            &url,
            "--scenario",
            scenario,
            "-o",
            results.to_str().unwrap(),
        ];
        let run = run_script(&node_on_path(), &args, &dir).await;
        let checks = checks(&results);
        let passed: Vec<&Value> = checks.iter().filter(|c| c["status"] == "SUCCESS").collect();
        let failed: Vec<&Value> = checks.iter().filter(|c| c["status"] == "FAILURE").collect();
        assert!(
            failed.is_empty() && run.success,
            "{scenario}: {failed:#?}\n{}\n{}",
            run.stdout,
            run.stderr
        );
        assert_eq!(passed.len(), expected, "{scenario}: {checks:#?}");
        for warning in checks.iter().filter(|c| c["status"] == "WARNING") {
            eprintln!(
                "{scenario}: warning {}: {}",
                warning["id"], warning["errorMessage"]
            );
        }
    }
    let _ = std::fs::remove_dir_all(out);
}
