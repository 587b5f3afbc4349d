//! Streaming an answer the grammar admits, cut anywhere, leaves a renderer where the
//! one-shot compile of the whole answer leaves it.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Map, Value};

use super::gbnf::{Gbnf, Rng};
use crate::a2ui::{Catalog, ProtocolVersion};
use crate::format::OutputFormat;
use crate::format::express::Express;
use crate::format::express::compile::schema::set_path;
use crate::parser::{ParsedPart, ParserConfig};

/// A renderer's state: per surface its creation, components and data model; other
/// messages (function calls) in order.
#[derive(Debug, Default, PartialEq)]
struct Renderer {
    surfaces: BTreeMap<String, Surface>,
    calls: Vec<Value>,
}

#[derive(Debug, Default, PartialEq)]
struct Surface {
    creation: Value,
    components: BTreeMap<String, Value>,
    data: Value,
}

impl Renderer {
    fn apply(&mut self, message: &Value) {
        let Some((kind, body)) = message
            .as_object()
            .and_then(|m| m.iter().find(|(k, _)| k.as_str() != "version"))
        else {
            return;
        };
        let id = body["surfaceId"].as_str().unwrap_or_default().to_owned();
        match kind.as_str() {
            "createSurface" => {
                let mut creation = body.clone();
                let object = creation.as_object_mut().unwrap();
                let components = object.remove("components");
                let data = object.remove("dataModel");
                let surface = Surface {
                    creation,
                    data: data.unwrap_or(Value::Object(Map::new())),
                    ..Surface::default()
                };
                self.surfaces.insert(id.clone(), surface);
                self.components(&id, components.as_ref());
            }
            "updateComponents" => self.components(&id, body.get("components")),
            "updateDataModel" => {
                let path = body["path"].as_str().unwrap_or("/");
                let surface = self.surfaces.entry(id).or_default();
                let value = body.get("value").cloned().unwrap_or_default();
                set_path(&mut surface.data, path, value);
            }
            "deleteSurface" => {
                self.surfaces.remove(&id);
            }
            _ => self.calls.push(message.clone()),
        }
    }

    fn components(&mut self, id: &str, list: Option<&Value>) {
        let surface = self.surfaces.entry(id.to_owned()).or_default();
        for component in list.and_then(Value::as_array).into_iter().flatten() {
            let key = component["id"].as_str().unwrap().to_owned();
            surface.components.insert(key, component.clone());
        }
    }
}

fn state(parts: &[ParsedPart]) -> Renderer {
    let mut renderer = Renderer::default();
    for part in parts {
        if let ParsedPart::A2ui(messages) = part {
            messages.iter().for_each(|m| renderer.apply(m));
        }
    }
    renderer
}

fn texts(parts: &[ParsedPart]) -> Vec<&str> {
    parts
        .iter()
        .filter_map(|p| match p {
            ParsedPart::Text(text) => Some(text.as_str()),
            ParsedPart::A2ui(_) => None,
        })
        .collect()
}

/// `answer` fed in chunks of the `cuts` sizes in turn: every part, or the error.
fn streamed(express: &Express, answer: &str, cuts: &[usize]) -> Result<Vec<ParsedPart>, String> {
    let mut reader = express.reader(ParserConfig::default());
    let mut parts = Vec::new();
    let chars: Vec<char> = answer.chars().collect();
    let (mut at, mut turn) = (0, 0);
    while at < chars.len() {
        let size = cuts[turn % cuts.len()].max(1);
        let chunk: String = chars[at..(at + size).min(chars.len())].iter().collect();
        parts.extend(reader.feed(&chunk));
        if let Some(error) = reader.error() {
            return Err(error.to_string());
        }
        at += size;
        turn += 1;
    }
    parts.extend(reader.finish().map_err(|e| e.to_string())?);
    Ok(parts)
}

fn check(version: ProtocolVersion, answer: &str, cuts: &[usize]) -> Result<(), TestCaseError> {
    let express = Express::bound(version, vec![Catalog::basic(version)]).unwrap();
    let whole = express
        .read_response(answer, true)
        .map_err(|e| e.into_parse_error().to_string());
    let stream = streamed(&express, answer, cuts);
    match (whole, stream) {
        (Ok(whole), Ok(stream)) => {
            prop_assert_eq!(texts(&whole), texts(&stream), "{}", answer);
            prop_assert_eq!(state(&whole), state(&stream), "{}\n{:?}", answer, stream);
        }
        (Err(_), Err(_)) => {}
        (whole, stream) => prop_assert!(false, "{answer}\nwhole {whole:?}\nstream {stream:?}"),
    }
    Ok(())
}

const REDEFINED: &str = "Here.\n<a2ui>\nroot = Column([a, b])\na = Text(\"one\")\n\
    b = Row([Text(\"x\"), c])\nc = Button(Text(\"go\"), _, Event(\"go\"))\n\
    $/n = 3\na = Text(\"uno\")\nroot = Column([b])\n</a2ui>\nBye.";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_streamed_answer_leaves_the_renderer_as_the_one_shot_compile(
        seed in any::<u64>(),
        budget in 4usize..14,
        cuts in proptest::collection::vec(1usize..24, 1..8),
    ) {
        for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
            let express = Express::bound(version, vec![Catalog::basic(version)]).unwrap();
            let g = Gbnf::parse(&express.grammar().unwrap());
            let answer = g.sample(0, &mut Rng::new(seed), budget);
            check(version, &answer, &cuts)?;
            check(version, REDEFINED, &cuts)?;
        }
    }
}

#[test]
fn a_redefined_root_is_repaired_at_the_close() {
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
        check(version, REDEFINED, &[1]).unwrap();
        let express = Express::bound(version, vec![Catalog::basic(version)]).unwrap();
        let parts = streamed(&express, REDEFINED, &[3]).unwrap();
        // Streamed: more than the text and one block's messages.
        assert!(parts.len() > 3, "{parts:?}");
    }
}
