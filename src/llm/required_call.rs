//! A tool call the server cannot let the model skip, for servers that constrain sampling.
//!
//! The API's `tool_choice: "required"` is the server's to enforce, and llama.cpp's does not
//! hold every model to it: Qwen2.5-Coder-1.5B, made to call the restaurant agent's search,
//! wrote the call inside its template's `<tools></tools>` and `<response>` tags as text,
//! then newlines until `max_tokens` (the server's grammar allowed those and not the end).
//! A client that [constrains](super::OpenAiChatBuilder::constrain) answers makes the call
//! itself: the round offers no tool (llama.cpp refuses a grammar beside tools), a last
//! system turn lists the tools as the chat templates do, and a grammar admits nothing but
//! one call in the template's `<tool_call>` tags, naming an offered tool with arguments
//! keyed by its parameters. The connector already reads such a written call
//! ([`text_calls`](super::text_calls)) and runs it.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::tools::Tool;
use crate::generator::grammar::literal;

/// The system turn that tells the model which tools it calls and how the call is written.
pub(super) fn instructions(tools: &[&Tool]) -> String {
    let mut out = String::from(
        "Call one of these tools now. Your answer is only the call, with the arguments the \
         conversation gives.\n<tools>\n",
    );
    for tool in tools {
        let spec = json!({"name": tool.name(), "description": tool.description(),
            "parameters": tool.parameters()});
        let _ = writeln!(out, "{spec}");
    }
    out.push_str(
        "</tools>\nWrite it as:\n<tool_call>\n{\"name\": <tool name>, \"arguments\": <arguments \
         object>}\n</tool_call>",
    );
    out
}

/// The GBNF grammar of one call of one of `tools`, in the `<tool_call>` tags.
pub(super) fn grammar(tools: &[&Tool]) -> String {
    let mut rules = Vec::new();
    let mut calls = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let name = json_literal(&Value::String(tool.name().to_owned()));
        let args = arguments(&mut rules, i, tool.parameters());
        calls.push(format!(
            "{} {args}",
            literal(&format!("{{\"name\": {name}, \"arguments\": "))
        ));
    }
    let mut out = format!(
        "root ::= \"<tool_call>\\n\" ({}) \"}}\\n</tool_call>\"\n",
        calls.join(" | ")
    );
    for rule in rules {
        out.push_str(&rule);
        out.push('\n');
    }
    out.push_str(JSON_RULES);
    out
}

/// Generic JSON values, bounded whitespace.
const JSON_RULES: &str = r#"ws ::= [ \t\n]{0,8}
jstr ::= "\"" ([^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}))* "\""
jint ::= "-"? [0-9]{1,15}
jnum ::= "-"? [0-9]{1,15} ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,3})?
jbool ::= "true" | "false"
jvalue ::= jstr | jnum | jbool | "null" | jarr | jobj
jarr ::= "[" ws (jvalue (ws "," ws jvalue)*)? ws "]"
jobj ::= "{" ws (jstr ws ":" ws jvalue (ws "," ws jstr ws ":" ws jvalue)*)? ws "}"
"#;

/// The rule for tool `i`'s arguments: an object keyed by its parameters' properties (each
/// value of the property's type), or any object when the schema names none.
fn arguments(rules: &mut Vec<String>, i: usize, schema: &Value) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return "jobj".into();
    };
    if properties.is_empty() {
        return "\"{\" ws \"}\"".into();
    }
    let entries: Vec<String> = properties
        .iter()
        .map(|(key, property)| {
            let key = json_literal(&Value::String(key.clone()));
            format!("{} ws {}", literal(&format!("{key}:")), value(property))
        })
        .collect();
    let entry = format!("t{i}-entry");
    rules.push(format!("{entry} ::= {}", entries.join(" | ")));
    format!("\"{{\" ws ({entry} (ws \",\" ws {entry})*)? ws \"}}\"")
}

/// The rule for a value of `schema`'s type: one of its enum's values, a string, an integer,
/// a number, a boolean, or any JSON value.
fn value(schema: &Value) -> String {
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        let choices: Vec<String> = choices.iter().map(|c| literal(&json_literal(c))).collect();
        if !choices.is_empty() {
            return format!("({})", choices.join(" | "));
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => "jstr",
        Some("integer") => "jint",
        Some("number") => "jnum",
        Some("boolean") => "jbool",
        Some("array") => "jarr",
        Some("object") => "jobj",
        _ => "jvalue",
    }
    .into()
}

/// `value` as JSON text.
fn json_literal(value: &Value) -> String {
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::text_calls::TextCalls;

    fn tools() -> Vec<Tool> {
        let tool = |name: &str, parameters: Value| {
            Tool::new(name, "d", parameters, |_| async { Ok(Value::Null) })
        };
        vec![
            tool(
                "search_restaurants",
                json!({"type": "object", "properties": {"cuisine": {"type": "string"},
                    "size": {"type": "integer"}, "when": {"enum": ["lunch", "dinner"]}}}),
            ),
            tool("ping", json!({"type": "object"})),
        ]
    }

    #[test]
    fn the_grammar_names_each_tool_and_keys_its_arguments() {
        let tools = tools();
        let grammar = grammar(&tools.iter().collect::<Vec<_>>());
        assert!(
            grammar.starts_with("root ::= \"<tool_call>\\n\""),
            "{grammar}"
        );
        assert!(grammar.contains(r#""{\"name\": \"search_restaurants\", \"arguments\": ""#));
        assert!(grammar.contains(r#""\"cuisine\":" ws jstr"#), "{grammar}");
        assert!(grammar.contains(r#""\"size\":" ws jint"#));
        assert!(grammar.contains(r#"("\"lunch\"" | "\"dinner\"")"#));
        assert!(grammar.contains(r#""{\"name\": \"ping\", \"arguments\": " jobj"#));
    }

    #[test]
    fn a_call_written_as_the_grammar_says_is_read_as_that_call() {
        let tools = tools();
        let text = "<tool_call>\n{\"name\": \"search_restaurants\", \"arguments\": {\"cuisine\": \"thai\", \"size\": 2}}\n</tool_call>";
        let mut written = TextCalls::default();
        assert_eq!(written.push(text), None, "held back");
        let calls = written.finish(&tools, 0).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "search_restaurants");
        let arguments: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(arguments, json!({"cuisine": "thai", "size": 2}));
        let told = instructions(&tools.iter().collect::<Vec<_>>());
        assert!(told.contains("\"name\":\"ping\"") && told.contains("<tool_call>"));
    }
}
