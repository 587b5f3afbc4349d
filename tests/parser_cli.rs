//! `a2ui-agent parse` run as a user would: the built binary, real files, JSON lines out.

use std::process::Output;

use serde_json::{Value, json};

mod cli;
use cli::{json_lines as lines, temp_file};

/// `a2ui-agent parse ARGS…`.
fn run(args: &[&str]) -> Output {
    cli::run(&[&["parse"], args].concat())
}

const RESPONSE: &str = "Here it is.\n<a2ui-json>[{\"version\": \"v0.9\", \"updateComponents\": \
    {\"surfaceId\": \"s\", \"components\": [{\"id\": \"a\", \"component\": \"Text\", \"text\": \
    \"x\"}, {\"id\": \"b\", \"component\": \"Text\", \"text\": \"y\"}]}}]</a2ui-json>\nBye.";

#[test]
fn parse_prints_one_json_line_per_emission_with_its_chunk() {
    let file = temp_file("whole.txt", RESPONSE);
    let output = run(&[file.to_str().unwrap()]);
    assert!(output.status.success());
    let lines = lines(&output);
    assert_eq!(lines[0], json!({"chunk": 0, "text": "Here it is."}));
    assert_eq!(lines[1]["chunk"], 0);
    assert_eq!(
        lines[1]["a2ui"][0]["updateComponents"]["components"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(lines[2], json!({"chunk": 0, "text": "Bye."}));
}

#[test]
fn small_chunks_send_each_component_as_it_closes() {
    let file = temp_file("chunked.txt", RESPONSE);
    let output = run(&["--chunk-size", "8", file.to_str().unwrap()]);
    assert!(output.status.success());
    let sent: Vec<String> = lines(&output)
        .iter()
        .flat_map(|l| l["a2ui"].as_array().cloned().unwrap_or_default())
        .flat_map(|m| {
            m["updateComponents"]["components"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(sent, ["a", "b"]);
}

#[test]
fn chunks_from_a_json_file_are_fed_in_order() {
    let chunks = json!([
        "<a2ui-json>[{\"version\": \"v0.9\", \"updateDataModel\": {\"surfaceId\": \"s\", \"value\": {\"note\": \"Hel",
        "lo\"}}}]</a2ui-json>"
    ]);
    let file = temp_file("chunks.json", &chunks.to_string());
    let output = run(&[
        "--chunks",
        file.to_str().unwrap(),
        "--progressive-keys",
        "note,text",
        "--cumulative",
    ]);
    assert!(output.status.success());
    let notes: Vec<(u64, Value)> = lines(&output)
        .iter()
        .map(|l| {
            (
                l["chunk"].as_u64().unwrap(),
                l["a2ui"][0]["updateDataModel"]["value"]["note"].clone(),
            )
        })
        .collect();
    assert_eq!(notes, [(0, json!("Hel")), (1, json!("Hello"))]);
}

#[test]
fn a_parse_error_prints_its_position_and_exits_with_1() {
    let file = temp_file("bad.txt", "Hi\n<a2ui-json>[{\"a\": tru}]</a2ui-json>");
    let output = run(&[file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let lines = lines(&output);
    let error = &lines.last().unwrap()["error"];
    assert_eq!(error["kind"], "syntax");
    assert_eq!(error["line"], 2);
    assert!(error["column"].as_u64().unwrap() > 1);
}

#[test]
fn time_reports_throughput_and_the_serde_json_ratio_on_stderr() {
    let file = temp_file("timed.txt", RESPONSE);
    let output = run(&["--time", file.to_str().unwrap()]);
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("MB/s"), "{stderr}");
    assert!(stderr.contains("ratio parse / serde_json"), "{stderr}");
}
