//! Mending: a label a model wrote where a component belongs.
//!
//! Small real models write a button's label as its child: `Button("Send", …)` in Express,
//! `"child": "Send"` in JSON. To the protocol that is a reference to a component with id
//! `Send` that never comes, so the reply does not validate. A repair turn rarely helps: the
//! 1.5B model of the eval wrote it in 7 of 21 first tries and again in every repair turn
//! (at temperature 0 a model repeats itself). What the model meant is plain, so the reply is
//! mended instead of sent back: when it ends, each reference no component answers that
//! [reads as a label](reads_as_label) is answered by a `Text` component showing it, in one
//! more components message for its surface.
//!
//! Nothing invalid passes this way: the mending message is checked like any other (a catalog
//! without a `Text` of that shape mends nothing), and a reference that reads as an id
//! (`send_label`, `sendLabel`) is left to the repair loop, since a person should never see
//! an id. A mended part says so in its metadata ([`MENDED_KEY`]), so a client or an eval can
//! tell a mended reply from one the model got right.

use serde_json::{Value, json};

use crate::a2ui::{ProtocolVersion, TreeWatch};

/// The metadata key of a part whose message mended the reply: its value lists the labels
/// the message answers with `Text` components.
pub const MENDED_KEY: &str = "a2ui-agent/mended";

/// Whether a reference no component answers reads as text a person would see rather than as
/// an id: it begins with a capital letter, holds a space, or has no letter or digit at all
/// (`Send`, `Sign in`, `+`). The ids models write are `send_button`, `sendButton`, `item-1`.
pub(crate) fn reads_as_label(id: &str) -> bool {
    let Some(first) = id.chars().next() else {
        return false;
    };
    id.chars().count() <= MAX_LABEL_CHARS
        && (first.is_uppercase()
            || id.chars().any(char::is_whitespace)
            || !id.chars().any(char::is_alphanumeric))
}

/// A longer reference is not a label a model meant to show (and not worth a component).
const MAX_LABEL_CHARS: usize = 120;

/// For each surface of `watch` with references that read as labels: the labels, and the
/// message that answers each with a `Text` component of that id showing it.
pub(crate) fn labels(watch: &TreeWatch, version: ProtocolVersion) -> Vec<(Vec<String>, Value)> {
    let mut by_surface: Vec<(&str, Vec<String>)> = Vec::new();
    for (surface_id, id) in watch.unanswered() {
        if !reads_as_label(id) {
            continue;
        }
        match by_surface.iter_mut().find(|(s, _)| *s == surface_id) {
            Some((_, labels)) => labels.push(id.to_owned()),
            None => by_surface.push((surface_id, vec![id.to_owned()])),
        }
    }
    by_surface
        .into_iter()
        .map(|(surface_id, labels)| {
            let message = texts(version, surface_id, &labels);
            (labels, message)
        })
        .collect()
}

/// A components message for `surface_id` with one `Text` per label, its id the label.
fn texts(version: ProtocolVersion, surface_id: &str, labels: &[String]) -> Value {
    match version.message_version() {
        None => {
            let components: Vec<Value> = labels
                .iter()
                .map(|label| {
                    json!({"id": label, "component": {"Text": {"text": {"literalString": label}}}})
                })
                .collect();
            json!({"surfaceUpdate": {"surfaceId": surface_id, "components": components}})
        }
        Some(tag) => {
            let components: Vec<Value> = labels
                .iter()
                .map(|label| json!({"id": label, "component": "Text", "text": label}))
                .collect();
            json!({"version": tag, "updateComponents":
                {"surfaceId": surface_id, "components": components}})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2ui::Validator;

    #[test]
    fn what_a_person_would_read_is_a_label_and_an_id_is_not() {
        for label in [
            "Send",
            "Sign in",
            "+",
            "-",
            "Éclair",
            "Book now!",
            "ok then",
        ] {
            assert!(reads_as_label(label), "{label}");
        }
        for id in [
            "send_label",
            "sendLabel",
            "item-1",
            "x",
            "",
            &"A".repeat(121),
        ] {
            assert!(!reads_as_label(id), "{id}");
        }
    }

    #[test]
    fn each_surface_gets_one_message_with_a_text_per_label() {
        for version in [
            ProtocolVersion::V0_8,
            ProtocolVersion::V0_9,
            ProtocolVersion::V1_0,
        ] {
            let validator = Validator::basic(version);
            let mut watch = TreeWatch::new(validator.clone());
            let (create, components) = match version.message_version() {
                None => (
                    json!({"beginRendering": {"surfaceId": "s", "root": "root"}}),
                    json!({"surfaceUpdate": {"surfaceId": "s", "components": [
                        {"id": "root", "component": {"Row": {"children": {"explicitList": ["Send", "later", "+", "Send"]}}}}]}}),
                ),
                Some(tag) => (
                    json!({"version": tag, "createSurface": {"surfaceId": "s", "catalogId": version.basic_catalog_id()}}),
                    json!({"version": tag, "updateComponents": {"surfaceId": "s", "components": [
                        {"id": "root", "component": "Row", "children": ["Send", "later", "+", "Send"]}]}}),
                ),
            };
            watch.observe(&create).unwrap();
            watch.observe(&components).unwrap();
            let mended = labels(&watch, version);
            assert_eq!(mended.len(), 1, "{version}");
            let (names, message) = &mended[0];
            assert_eq!(names, &["Send", "+"], "{version}: `later` reads as an id");
            validator
                .check_message(message)
                .unwrap_or_else(|e| panic!("{version}: {e}"));
            watch.observe(message).unwrap();
            let left = watch.finish();
            assert_eq!(left.len(), 1, "{version}: {left:?}");
            assert!(left[0].message.contains("refers to 'later'"), "{left:?}");
        }
    }
}
