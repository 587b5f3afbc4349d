//! `a2ui-agent prompt` and `a2ui-agent parse --version` run as a user would: the built
//! binary, real files.
#![cfg(feature = "cli")]

use serde_json::{Value, json};

mod cli;
use cli::{run, stdout, temp_file};

#[test]
fn prompt_prints_the_same_prompt_every_time() {
    let first = run(&["prompt", "--version", "v0.9"]);
    assert!(first.status.success());
    let text = stdout(&first);
    assert!(text.contains("<a2ui-json>") && text.contains("createSurface"));
    assert!(text.contains("DateTimeInput"));
    assert_eq!(stdout(&run(&["prompt", "--version", "0.9"])), text);
}

#[test]
fn prompt_with_components_describes_only_those() {
    let output = run(&["prompt", "--version", "v0.9", "--components", "Text,Button"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("Components: Button, Text."));
    assert!(!text.contains("DateTimeInput") && !text.contains("Slider"));
}

#[test]
fn prompt_with_a_custom_catalog_offers_it_alone_or_beside_the_basic_one() {
    let catalog = temp_file(
        "acme.json",
        &json!({"catalogId": "acme/ui", "components": {"Gauge": {"type": "object",
            "properties": {"component": {"const": "Gauge"}, "percent": {"type": "number"}},
            "required": ["component", "percent"]}}})
        .to_string(),
    );
    let path = catalog.to_str().unwrap();
    let alone = stdout(&run(&["prompt", "--version", "v0.9", "--catalog", path]));
    assert!(alone.contains("acme/ui") && alone.contains("Gauge"));
    assert!(!alone.contains("DateTimeInput"));
    let both = stdout(&run(&[
        "prompt",
        "--version",
        "v0.9",
        "--catalog",
        path,
        "--catalog",
        "basic",
    ]));
    assert!(both.contains("acme/ui") && both.contains("DateTimeInput"));
}

#[test]
fn prompt_negotiates_with_capabilities_and_says_why_it_cannot() {
    let caps = temp_file(
        "caps.json",
        r#"{"v0.9": {"supportedCatalogIds": ["acme/unknown"]}}"#,
    );
    let output = run(&[
        "prompt",
        "--version",
        "v0.9",
        "--capabilities",
        caps.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("acme/unknown"), "{err}");
}

#[test]
fn prompt_refuses_an_unknown_component_or_version() {
    let output = run(&["prompt", "--version", "v0.9", "--components", "Marquee"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("Marquee")
    );
    assert!(!run(&["prompt", "--version", "v2"]).status.success());
}

#[test]
fn parse_with_a_version_reports_messages_the_catalog_rejects() {
    let answer = temp_file(
        "answer.txt",
        r#"Hi.<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Marquee"}]}}]</a2ui-json>"#,
    );
    let path = answer.to_str().unwrap();
    let checked = run(&["parse", "--version", "v0.9", path]);
    assert_eq!(checked.status.code(), Some(1));
    let lines: Vec<Value> = stdout(&checked)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let invalid = lines.iter().find(|l| l.get("invalid").is_some()).unwrap();
    assert_eq!(invalid["invalid"]["messageIndex"], 0);
    assert!(
        invalid["invalid"]["message"]
            .as_str()
            .unwrap()
            .contains("Marquee")
    );
    assert!(
        run(&["parse", path]).status.success(),
        "no version: no catalog check"
    );
}

#[test]
fn parse_with_a_custom_catalog_accepts_its_components() {
    let catalog = temp_file(
        "marquee.json",
        &json!({"catalogId": "acme/m", "components": {"Marquee": {"type": "object",
            "properties": {"component": {"const": "Marquee"}, "text": {"type": "string"}},
            "required": ["component", "text"]}}})
        .to_string(),
    );
    let answer = temp_file(
        "marquee.txt",
        r#"<a2ui-json>[{"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "acme/m"}}, {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Marquee", "text": "Sale"}]}}]</a2ui-json>"#,
    );
    let output = run(&[
        "parse",
        "--version",
        "v0.9",
        "--catalog",
        catalog.to_str().unwrap(),
        answer.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stdout(&output));
}

#[test]
fn prompt_grammar_prints_the_express_grammar_of_the_catalogs_named() {
    let pruned = run(&[
        "prompt",
        "--version",
        "v0.9",
        "--format",
        "express",
        "--components",
        "Text,Button",
        "--grammar",
    ]);
    assert!(pruned.status.success());
    let grammar = stdout(&pruned);
    assert!(grammar.starts_with("root ::= "), "{grammar}");
    assert!(grammar.contains("\"Text(\"") && grammar.contains("\"Button(\""));
    assert!(
        !grammar.contains("\"Slider(\""),
        "only the components named"
    );
    // Direct JSON has none: a clear error, no grammar.
    let direct = run(&["prompt", "--version", "v0.9", "--grammar"]);
    assert_eq!(direct.status.code(), Some(2));
    assert!(stdout(&direct).is_empty());
    assert!(String::from_utf8_lossy(&direct.stderr).contains("no grammar"));
}

/// The size line `prompt` writes on stderr.
fn size_line(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).trim().to_owned()
}

#[test]
fn prompt_style_picks_signatures_by_default_or_the_whole_schemas_and_says_the_size() {
    let lean = run(&["prompt", "--version", "v0.9"]);
    let full = run(&["prompt", "--version", "v0.9", "--style", "schemas"]);
    assert!(lean.status.success() && full.status.success());
    let (lean_text, full_text) = (stdout(&lean), stdout(&full));
    assert!(lean_text.contains("- DateTimeInput("), "{lean_text}");
    assert!(!lean_text.contains("## Message schema"));
    assert!(full_text.contains("## Message schema") && !full_text.contains("- DateTimeInput("));
    assert!(lean_text.len() * 2 < full_text.len());
    assert_eq!(
        size_line(&lean),
        format!("a2ui-agent prompt: {} bytes", lean_text.len())
    );
    assert_eq!(
        size_line(&full),
        format!("a2ui-agent prompt: {} bytes", full_text.len())
    );
    let explicit = run(&["prompt", "--version", "v0.9", "--style", "signatures"]);
    assert_eq!(stdout(&explicit), lean_text);
}

/// A stand-in for llama.cpp's `/tokenize` on a real socket: answers each request with one
/// token per whitespace-separated word of its `content`, and sends back what it was asked.
fn word_tokenizer(requests: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/tokenize", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..requests {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let request: Value = serde_json::from_slice(&body).unwrap();
            let content = request["content"].as_str().unwrap().to_owned();
            let tokens: Vec<usize> = (0..content.split_whitespace().count()).collect();
            let answer = json!({"tokens": tokens}).to_string();
            let mut stream = stream;
            write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            )
            .unwrap();
            seen.push(content);
        }
        seen
    });
    (url, handle)
}

#[test]
fn prompt_counts_the_tokens_of_the_prompt_it_prints_with_a_tokenizer_url() {
    let (url, server) = word_tokenizer(1);
    let output = run(&["prompt", "--version", "v0.8", "--tokenizer-url", &url]);
    assert!(output.status.success(), "{}", size_line(&output));
    let text = stdout(&output);
    let asked = server.join().unwrap();
    assert_eq!(
        asked,
        vec![text.clone()],
        "the printed prompt is what was counted"
    );
    assert_eq!(
        size_line(&output),
        format!(
            "a2ui-agent prompt: {} bytes, {} tokens",
            text.len(),
            text.split_whitespace().count()
        )
    );
}

#[test]
fn prompt_says_why_when_the_tokenizer_cannot_be_reached() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/tokenize", listener.local_addr().unwrap());
    drop(listener);
    let output = run(&["prompt", "--version", "v0.9", "--tokenizer-url", &url]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
    let message = size_line(&output);
    assert!(
        message.contains("--tokenizer-url") && message.contains(&url),
        "{message}"
    );
}
