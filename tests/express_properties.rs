//! Properties of the Express format over generated inputs: what the decompiler writes
//! compiles back to the same messages (the promise prompt examples rest on), and no input,
//! however hostile, makes the reader panic, hang or skip reporting a position inside it.

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::OutputFormat;
use a2ui_agent::format::express::{Express, ExpressError};
use a2ui_agent::generator::Generator;
use a2ui_agent::parser::ParserConfig;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn express(version: ProtocolVersion) -> Express {
    Express::bound(version, vec![Catalog::basic(version)]).unwrap()
}

/// How this crate's schemas spell a binding under `version`.
fn binding(version: ProtocolVersion, path: &str) -> Value {
    match version {
        ProtocolVersion::V1_0 => json!({"@path": path}),
        _ => json!({"path": path}),
    }
}

/// Any text, weighted towards what needs care: quotes, backslashes, newlines, `#`, tags.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 ,.!?]{0,12}",
        r#"[a-z"\\\n#/*<>{}()=;$]{0,12}"#,
        "\\PC{0,8}",
        Just("</a2ui>".to_owned()),
    ]
}

fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-zA-Z0-9_]{0,6}",
        "[a-z][a-z0-9-]{0,6}",
        Just("null".to_owned())
    ]
}

fn data_path() -> impl Strategy<Value = String> {
    "(/[a-z]{1,4}){1,3}"
}

/// A string property: a literal or a binding.
fn dynamic(version: ProtocolVersion) -> impl Strategy<Value = Value> {
    prop_oneof![
        text().prop_map(Value::String),
        data_path().prop_map(move |p| binding(version, &p)),
    ]
}

/// One component (children named by `child_ids`, which come after it).
fn component(
    version: ProtocolVersion,
    child_ids: Vec<String>,
) -> BoxedStrategy<Map<String, Value>> {
    let children = child_ids.clone();
    let leaf = (
        dynamic(version),
        prop::option::of(prop_oneof!["caption", "body"]),
    )
        .prop_map(|(text, variant)| {
            let mut m = Map::new();
            m.insert("component".into(), json!("Text"));
            m.insert("text".into(), text);
            if let Some(v) = variant {
                m.insert("variant".into(), json!(v));
            }
            m
        })
        .boxed();
    match child_ids.len() {
        0 => leaf,
        1 => {
            let child = child_ids[0].clone();
            let context = prop::collection::btree_map(
                "[a-z][a-z-]{0,5}",
                prop_oneof![
                    text().prop_map(Value::String),
                    (0i64..100).prop_map(Value::from)
                ],
                0..3,
            );
            let card = Just(child.clone()).prop_map(|c| {
                let mut m = Map::new();
                m.insert("component".into(), json!("Card"));
                m.insert("child".into(), json!(c));
                m
            });
            let button = (
                "[a-z]{1,8}",
                context,
                prop::option::of(prop_oneof!["default", "primary", "borderless"]),
            )
                .prop_map(move |(name, context, variant)| {
                    let mut event = Map::new();
                    event.insert("name".into(), json!(name));
                    if !context.is_empty() {
                        event.insert("context".into(), json!(context));
                    }
                    let mut m = Map::new();
                    m.insert("component".into(), json!("Button"));
                    m.insert("child".into(), json!(child));
                    m.insert("action".into(), json!({ "event": event }));
                    if let Some(v) = variant {
                        m.insert("variant".into(), json!(v));
                    }
                    m
                });
            prop_oneof![card, button].boxed()
        }
        _ => prop_oneof!["Column", "Row"]
            .prop_map(move |kind| {
                let mut m = Map::new();
                m.insert("component".into(), json!(kind));
                m.insert("children".into(), json!(children));
                m
            })
            .boxed(),
    }
}

/// A surface: `root` with up to four more components, each the child of an earlier one,
/// and maybe a data model of nested maps.
fn surface(version: ProtocolVersion) -> impl Strategy<Value = Vec<Value>> {
    (
        prop::collection::vec(id(), 0..4),
        "[a-zA-Z0-9_-]{1,10}",
        prop::option::of(data_model()),
    )
        .prop_flat_map(move |(ids, surface_id, data)| {
            let mut ids: Vec<String> = ids.into_iter().filter(|i| i != "root").collect();
            ids.sort();
            ids.dedup();
            let all: Vec<String> = std::iter::once("root".to_owned()).chain(ids).collect();
            // Component i has as children the ids after it that no earlier one took.
            let mut strategies = Vec::new();
            let mut next = 1;
            for i in 0..all.len() {
                let take = if i + 1 == all.len() {
                    0
                } else {
                    (all.len() - next).min(2)
                };
                let child_ids = all[next..next + take].to_vec();
                next += take;
                let id = all[i].clone();
                strategies.push(component(version, child_ids).prop_map(move |mut m| {
                    m.insert("id".into(), json!(id));
                    Value::Object(m)
                }));
            }
            (strategies, Just(surface_id), Just(data))
        })
        .prop_map(move |(components, surface_id, data)| {
            messages(version, &surface_id, components, data)
        })
}

fn data_model() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        text().prop_map(Value::String),
        (-1000i64..1000).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop::collection::btree_map("[a-z]{1,5}", inner, 1..3).prop_map(|m| json!(m))
    })
    .prop_map(|v| {
        if v.is_object() {
            v
        } else {
            json!({"value": v})
        }
    })
}

/// The messages the compiler writes for one surface under `version`.
fn messages(
    version: ProtocolVersion,
    surface_id: &str,
    components: Vec<Value>,
    data: Option<Value>,
) -> Vec<Value> {
    let v = version.message_version().unwrap();
    let catalog_id = Catalog::basic(version).id().to_owned();
    if version == ProtocolVersion::V1_0 {
        let mut create =
            json!({"surfaceId": surface_id, "catalogId": catalog_id, "components": components});
        if let Some(data) = data {
            create["dataModel"] = data;
        }
        return vec![json!({"version": v, "createSurface": create})];
    }
    let mut out = vec![
        json!({"version": v, "createSurface": {"surfaceId": surface_id, "catalogId": catalog_id}}),
        json!({"version": v, "updateComponents": {"surfaceId": surface_id, "components": components}}),
    ];
    if let Some(data) = data {
        out.push(json!({"version": v, "updateDataModel": {"surfaceId": surface_id, "path": "/", "value": data}}));
    }
    out
}

fn version() -> impl Strategy<Value = ProtocolVersion> {
    prop_oneof![Just(ProtocolVersion::V0_9), Just(ProtocolVersion::V1_0)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn what_the_decompiler_writes_compiles_back_to_the_same_messages(
        (version, messages) in version().prop_flat_map(|v| (Just(v), surface(v)))
    ) {
        let express = express(version);
        let text = express.decompile(&messages);
        match express.compile(&text) {
            Ok(again) => prop_assert_eq!(&again, &messages, "{}", text),
            Err(e) => prop_assert!(false, "{}\n{}", text, e),
        }
        // And the same inside a response, with text around the block.
        let response = format!("Here.\n{}\nDone.", express.example(&messages));
        let parts = express.parse_response(&response, true);
        prop_assert!(parts.is_ok(), "{response}\n{parts:?}");
    }

    #[test]
    fn any_input_gives_messages_or_an_error_inside_it(text in "\\PC{0,200}") {
        let express = express(ProtocolVersion::V1_0);
        let response = format!("<a2ui>{text}</a2ui>");
        match express.parse_response(&response, true) {
            Ok(_) => {}
            Err(ExpressError::Parse(e)) => prop_assert!(e.offset() <= response.len()),
            Err(ExpressError::Invalid(errors)) => prop_assert!(!errors.is_empty()),
        }
    }

    #[test]
    fn grammar_shaped_noise_never_panics(text in r#"[a-zA-Z_$?=()\[\]{},:;"r# /*\n0-9.-]{0,120}"#) {
        let express = express(ProtocolVersion::V0_9);
        let _ = express.compile(&text);
        let _ = express.parse_response(&text, false);
    }
}

#[test]
fn deep_nesting_is_an_error_with_a_position_not_a_stack_overflow() {
    let express = express(ProtocolVersion::V1_0);
    for (open, close) in [("[", "]"), ("{a: ", "}"), ("Column(", ")")] {
        let text = format!(
            "root = Text({}1{})",
            open.repeat(50_000),
            close.repeat(50_000)
        );
        match express.compile(&text) {
            Err(ExpressError::Parse(e)) => assert!(e.message().contains("nested deeper"), "{e}"),
            other => panic!("{open}: {other:?}"),
        }
    }
}

#[test]
fn a_reader_stops_at_its_byte_limit() {
    let processor = Generator::builder(ProtocolVersion::V1_0)
        .format(Express::new())
        .build()
        .unwrap()
        .negotiate(None)
        .unwrap();
    let limits = a2ui_agent::parser::Limits {
        max_block_bytes: 1024,
        max_depth: 64,
    };
    let mut reader = processor
        .format()
        .reader(ParserConfig::default().limits(limits));
    for _ in 0..100 {
        reader.feed("<a2ui>root = Text(\"0123456789\")</a2ui>");
    }
    let error = reader
        .error()
        .cloned()
        .expect("an error once past the limit");
    assert_eq!(error.kind(), a2ui_agent::parser::ParseErrorKind::Limit);
    assert_eq!(reader.finish().unwrap_err(), error);
}

#[test]
fn an_error_points_at_the_statement_in_the_response() {
    let express = express(ProtocolVersion::V1_0);
    let response =
        "Text first.\n<a2ui>\nroot = Column([a])\na = Text(\"ok\")\nb = Text(@)\n</a2ui>";
    let Err(ExpressError::Parse(e)) = express.parse_response(response, true) else {
        panic!("expected a parse error");
    };
    assert_eq!((e.line(), e.column()), (5, 10), "{e}");
    assert_eq!(&response[e.offset()..e.offset() + 1], "@");
}
