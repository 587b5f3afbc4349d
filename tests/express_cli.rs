//! `a2ui-agent parse --format express` and `a2ui-agent prompt --format express` run as a user
//! would: the built binary, real files, JSON lines out.
#![cfg(feature = "cli")]

mod cli;
use cli::{json_lines as lines, run, temp_file};

const RESPONSE: &str = "Your order:\n<a2ui>\nroot = Card(Column([Text(\"Soup\"), Text($/price)]))\n\
    $/price = \"$8\"\n</a2ui>\nAnything else?";

#[test]
fn parse_prints_each_part_with_the_chunk_that_completed_it() {
    let file = temp_file("order.txt", RESPONSE);
    let output = run(&[
        "parse",
        "--format",
        "express",
        "--chunk-size",
        "5",
        file.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = lines(&output);
    assert_eq!(lines.len(), 4, "{lines:?}");
    let last_chunk = RESPONSE.len().div_ceil(5);
    let chunk = |i: usize| lines[i]["chunk"].as_u64().unwrap() as usize;
    assert_eq!(lines[0]["text"], "Your order:");
    // The surface and its components go out once `root`'s statement completes, before
    // the data statement is written and long before the input ends.
    let root_ends = RESPONSE.find("]))\n").unwrap() + 4;
    assert!(chunk(1) * 5 <= root_ends + 5, "{lines:?}");
    assert!(chunk(1) < chunk(2) && chunk(2) < last_chunk, "{lines:?}");
    let streamed = &lines[1]["a2ui"];
    assert_eq!(streamed[0]["createSurface"]["surfaceId"], "default_surface");
    let components = &streamed[1]["updateComponents"]["components"];
    assert_eq!(components[0]["child"], "root_child", "{lines:?}");
    // The data model arrives when the block closes; the text after it at the end.
    assert_eq!(
        lines[2]["a2ui"][0]["updateDataModel"]["value"]["price"],
        "$8"
    );
    assert_eq!(lines[3]["text"], "Anything else?");
    assert_eq!(chunk(3), last_chunk);
}

#[test]
fn parse_compiles_for_the_version_asked() {
    let file = temp_file("order09.txt", RESPONSE);
    let output = run(&[
        "parse",
        "--format",
        "express",
        "--version",
        "v0.9",
        file.to_str().unwrap(),
    ]);
    assert!(output.status.success());
    let kinds: Vec<String> = lines(&output)[1]["a2ui"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            m.as_object()
                .unwrap()
                .keys()
                .find(|k| *k != "version")
                .unwrap()
                .clone()
        })
        .collect();
    assert_eq!(
        kinds,
        ["createSurface", "updateComponents", "updateDataModel"]
    );
}

#[test]
fn parse_reports_an_unreadable_block_with_its_line_and_column() {
    let file = temp_file("broken.txt", "Hi\n<a2ui>\nroot = Text(\"x\"\n</a2ui>");
    let output = run(&["parse", "--format", "express", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let lines = lines(&output);
    let error = &lines.last().unwrap()["error"];
    assert_eq!(error["kind"], "syntax");
    assert_eq!(
        (error["line"].as_u64(), error["column"].as_u64()),
        (Some(3), Some(16))
    );
}

#[test]
fn parse_reports_a_component_the_catalog_lacks_where_it_is_written() {
    let file = temp_file(
        "unknown.txt",
        "<a2ui>\nroot = Column([Marquee(\"x\")])\n</a2ui>",
    );
    let output = run(&["parse", "--format", "express", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let error = &lines(&output)[0]["error"];
    assert!(
        error["message"].as_str().unwrap().contains("Marquee"),
        "{error}"
    );
    assert_eq!(
        (error["line"].as_u64(), error["column"].as_u64()),
        (Some(2), Some(16))
    );
}

#[test]
fn prompt_describes_components_as_signatures_inside_a2ui_tags() {
    let output = run(&[
        "prompt",
        "--version",
        "v1.0",
        "--format",
        "express",
        "--components",
        "Text,Button",
    ]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("<a2ui>") && !text.contains("<a2ui-json>"),
        "{text}"
    );
    assert!(
        text.contains("`Text(text: ") && text.contains("`Button(child: "),
        "{text}"
    );
    assert!(!text.contains("`Column("), "{text}");
    // The built-in example reaches the model in Express, not as JSON.
    let output = run(&["prompt", "--version", "v0.9", "--format", "express"]);
    let text = String::from_utf8(output.stdout).unwrap();
    let example = &text[text.find("## Examples").unwrap()..];
    assert!(example.contains("root = Card(content)"), "{example}");
    assert!(!example.contains("\"createSurface\""), "{example}");
}
