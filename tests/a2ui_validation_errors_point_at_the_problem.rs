//! What a model gets back when its output is wrong: the error points at the offending value
//! and says what is wrong in words it can act on, for each kind of mistake, each version.

use a2ui_agent::a2ui::{
    Catalog, ProtocolVersion, ValidationError, Validator, check_client_message,
};
use serde_json::{Value, json};

const V9: ProtocolVersion = ProtocolVersion::V0_9;

fn create(surface: &str) -> Value {
    json!({"version": "v0.9", "createSurface": {"surfaceId": surface, "catalogId": V9.basic_catalog_id()}})
}

fn update(surface: &str, components: Value) -> Value {
    json!({"version": "v0.9", "updateComponents": {"surfaceId": surface, "components": components}})
}

fn one_error(validator: &Validator, message: &Value) -> ValidationError {
    validator.check_message(message).unwrap_err()
}

fn response_errors(validator: &Validator, messages: &[Value]) -> Vec<ValidationError> {
    validator.check_response(messages).unwrap_err()
}

#[test]
fn an_unknown_component_is_named_with_the_known_ones() {
    let validator = Validator::basic(V9);
    let error = one_error(
        &validator,
        &update(
            "s",
            json!([{"id": "root", "component": "Txt", "text": "hi"}]),
        ),
    );
    assert_eq!(error.pointer, "/updateComponents/components/0/component");
    assert!(
        error.message.contains("unknown component \"Txt\""),
        "{}",
        error.message
    );
    assert!(error.message.contains("Text"), "{}", error.message);
    assert_eq!(error.surface_id.as_deref(), Some("s"));
}

#[test]
fn a_missing_required_property_is_reported_on_its_component() {
    let validator = Validator::basic(V9);
    let error = one_error(
        &validator,
        &update("s", json!([{"id": "root", "component": "Text"}])),
    );
    assert_eq!(error.pointer, "/updateComponents/components/0");
    assert!(error.message.contains("\"text\""), "{}", error.message);
}

#[test]
fn an_unknown_property_is_named() {
    let validator = Validator::basic(V9);
    let error = one_error(
        &validator,
        &update(
            "s",
            json!([{"id": "root", "component": "Text", "text": "hi", "colour": "red"}]),
        ),
    );
    assert_eq!(error.pointer, "/updateComponents/components/0");
    assert!(error.message.contains("'colour'"), "{}", error.message);
}

#[test]
fn a_value_outside_an_enum_is_reported_where_it_is() {
    let validator = Validator::basic(V9);
    let error = one_error(
        &validator,
        &update(
            "s",
            json!([{"id": "root", "component": "Text", "text": "hi", "variant": "h9"}]),
        ),
    );
    assert_eq!(error.pointer, "/updateComponents/components/0/variant");
    assert!(error.message.contains("\"h9\""), "{}", error.message);
}

#[test]
fn an_unknown_function_is_named() {
    let validator = Validator::basic(V9);
    let error = one_error(
        &validator,
        &update(
            "s",
            json!([{"id": "root", "component": "Text",
            "text": {"call": "shout", "args": {}, "returnType": "string"}}]),
        ),
    );
    assert_eq!(error.pointer, "/updateComponents/components/0/text/call");
    assert!(
        error.message.contains("unknown function \"shout\""),
        "{}",
        error.message
    );
    assert!(error.message.contains("formatString"), "{}", error.message);
}

#[test]
fn a_v0_8_style_value_in_v0_9_says_what_the_binding_lacks() {
    let validator = Validator::basic(V9);
    let error = one_error(
        &validator,
        &update(
            "s",
            json!([{"id": "root", "component": "Text", "text": {"literalString": "hi"}}]),
        ),
    );
    assert_eq!(error.pointer, "/updateComponents/components/0/text");
    assert!(
        error.message.contains("'literalString'"),
        "{}",
        error.message
    );
    assert!(error.message.contains("\"path\""), "{}", error.message);
}

#[test]
fn a_message_of_no_known_kind_lists_the_kinds() {
    let validator = Validator::basic(V9);
    let error = one_error(
        &validator,
        &json!({"version": "v0.9", "updateComponent": {"surfaceId": "s"}}),
    );
    assert_eq!(error.pointer, "");
    assert!(
        error.message.contains("updateComponents"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("it has updateComponent"),
        "{}",
        error.message
    );
}

#[test]
fn a_wrong_message_version_is_reported_at_version() {
    let validator = Validator::basic(V9);
    let mut message = create("s");
    message["version"] = json!("v0.7");
    let error = one_error(&validator, &message);
    assert_eq!(error.pointer, "/version");
}

#[test]
fn a_message_that_is_not_an_object_is_refused() {
    let validator = Validator::basic(V9);
    assert_eq!(one_error(&validator, &json!([1, 2])).pointer, "");
}

#[test]
fn a_dangling_child_is_reported_at_the_reference_but_only_at_the_end_of_a_response() {
    let validator = Validator::basic(V9);
    let parent = update(
        "s",
        json!([{"id": "root", "component": "Card", "child": "body"}]),
    );
    assert!(
        validator.check_message(&parent).is_ok(),
        "a message alone is not a tree"
    );
    let errors = response_errors(&validator, &[create("s"), parent.clone()]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].pointer, "/updateComponents/components/0/child");
    assert_eq!(errors[0].message_index, Some(1));
    assert!(errors[0].message.contains("'body'"));
    let child = update(
        "s",
        json!([{"id": "body", "component": "Text", "text": "hi"}]),
    );
    validator
        .check_response(&[create("s"), parent, child])
        .unwrap();
}

#[test]
fn a_cycle_is_reported_at_the_reference_that_closes_it() {
    let validator = Validator::basic(V9);
    let errors = response_errors(
        &validator,
        &[
            create("s"),
            update(
                "s",
                json!([
                    {"id": "root", "component": "Column", "children": ["a"]},
                    {"id": "a", "component": "Card", "child": "b"},
                    {"id": "b", "component": "Card", "child": "a"},
                ]),
            ),
        ],
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].pointer, "/updateComponents/components/2/child");
    assert!(
        errors[0].message.contains("a -> b -> a"),
        "{}",
        errors[0].message
    );
}

#[test]
fn a_duplicate_id_in_one_list_is_reported_at_the_second() {
    let validator = Validator::basic(V9);
    let errors = response_errors(
        &validator,
        &[
            create("s"),
            update(
                "s",
                json!([
                    {"id": "root", "component": "Text", "text": "a"},
                    {"id": "root", "component": "Text", "text": "b"},
                ]),
            ),
        ],
    );
    assert_eq!(errors[0].pointer, "/updateComponents/components/1/id");
    assert!(errors[0].message.contains("duplicate"));
}

#[test]
fn a_surface_without_a_root_is_reported() {
    let validator = Validator::basic(V9);
    let errors = response_errors(
        &validator,
        &[
            create("s"),
            update(
                "s",
                json!([{"id": "main", "component": "Text", "text": "a"}]),
            ),
        ],
    );
    assert!(
        errors.iter().any(|e| e.message.contains("no root")),
        "{errors:?}"
    );
}

#[test]
fn a_component_nothing_refers_to_is_reported_as_unreachable() {
    let validator = Validator::basic(V9);
    let errors = response_errors(
        &validator,
        &[
            create("s"),
            update(
                "s",
                json!([
                    {"id": "root", "component": "Text", "text": "a"},
                    {"id": "stray", "component": "Text", "text": "b"},
                ]),
            ),
        ],
    );
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].pointer, "/updateComponents/components/1/id");
    assert!(errors[0].message.contains("not reachable"));
}

#[test]
fn updating_a_surface_created_earlier_is_not_held_to_the_whole_tree() {
    let validator = Validator::basic(V9);
    let later = update(
        "old",
        json!([{"id": "card", "component": "Card", "child": "sent-before"}]),
    );
    validator.check_response(&[later]).unwrap();
}

#[test]
fn deleting_a_surface_forgets_its_tree() {
    let validator = Validator::basic(V9);
    let delete = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}});
    let half = update(
        "s",
        json!([{"id": "root", "component": "Card", "child": "gone"}]),
    );
    validator
        .check_response(&[create("s"), half, delete])
        .unwrap();
}

#[test]
fn v0_8_root_comes_from_begin_rendering() {
    let v = ProtocolVersion::V0_8;
    let validator = Validator::basic(v);
    let update = json!({"surfaceUpdate": {"surfaceId": "s", "components": [
        {"id": "top", "component": {"Card": {"child": "label"}}},
        {"id": "label", "component": {"Text": {"text": {"literalString": "hi"}}}}
    ]}});
    let begin = json!({"beginRendering": {"surfaceId": "s", "root": "top"}});
    validator.check_response(&[update.clone(), begin]).unwrap();
    let wrong = json!({"beginRendering": {"surfaceId": "s", "root": "nope"}});
    let errors = validator.check_response(&[update, wrong]).unwrap_err();
    assert_eq!(errors[0].pointer, "/beginRendering/root");
}

#[test]
fn v0_8_dangling_children_in_explicit_lists_are_found() {
    let validator = Validator::basic(ProtocolVersion::V0_8);
    let errors = validator
        .check_response(&[
            json!({"surfaceUpdate": {"surfaceId": "s", "components": [
                {"id": "root", "component": {"Column": {"children": {"explicitList": ["a"]}}}}
            ]}}),
            json!({"beginRendering": {"surfaceId": "s", "root": "root"}}),
        ])
        .unwrap_err();
    assert_eq!(
        errors[0].pointer,
        "/surfaceUpdate/components/0/component/Column/children/explicitList/0"
    );
}

#[test]
fn v0_8_unknown_component_is_reported() {
    let validator = Validator::basic(ProtocolVersion::V0_8);
    let error = validator
        .check_message(&json!({"surfaceUpdate": {"surfaceId": "s", "components": [
            {"id": "root", "component": {"Heading": {"text": {"literalString": "hi"}}}}
        ]}}))
        .unwrap_err();
    assert!(
        error
            .pointer
            .starts_with("/surfaceUpdate/components/0/component"),
        "{error}"
    );
    assert!(error.message.contains("Heading"), "{error}");
}

#[test]
fn v1_0_messages_use_at_path_bindings_and_may_create_with_components() {
    let v = ProtocolVersion::V1_0;
    let validator = Validator::basic(v);
    let create = json!({"version": "v1.0", "createSurface": {"surfaceId": "s", "catalogId": v.basic_catalog_id(),
    "components": [
        {"id": "root", "component": "Column", "children": ["name"]},
        {"id": "name", "component": "Text", "text": {"@path": "/user/name"}}
    ]}});
    validator
        .check_response(std::slice::from_ref(&create))
        .unwrap();
    let mut dangling = create;
    dangling["createSurface"]["components"][0]["children"] = json!(["name", "missing"]);
    let errors = validator.check_response(&[dangling]).unwrap_err();
    assert_eq!(errors[0].pointer, "/createSurface/components/0/children/1");
}

#[test]
fn a_surface_is_checked_against_the_catalog_it_names() {
    let v = V9;
    let custom = Catalog::from_value(
        v,
        json!({
            "catalogId": "example.com:charts",
            "components": {"Chart": {"type": "object", "properties": {
                "id": {"type": "string"}, "component": {"const": "Chart"},
                "values": {"type": "array", "items": {"type": "number"}}},
                "required": ["id", "component", "values"], "additionalProperties": false}}
        }),
    )
    .unwrap();
    let validator = Validator::new(v, &[Catalog::basic(v), custom]).unwrap();
    let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "c", "catalogId": "example.com:charts"}});
    let chart = update(
        "c",
        json!([{"id": "root", "component": "Chart", "values": [1, 2]}]),
    );
    validator.check_response(&[create.clone(), chart]).unwrap();
    let text = update(
        "c",
        json!([{"id": "root", "component": "Text", "text": "hi"}]),
    );
    let errors = validator.check_response(&[create, text]).unwrap_err();
    assert_eq!(
        errors[0].pointer, "/updateComponents/components/0/component",
        "{errors:?}"
    );
}

#[test]
fn a_catalog_the_validator_does_not_have_is_refused_by_id() {
    let validator = Validator::basic(V9);
    let message = json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "example.com:nope"}});
    let error = one_error(&validator, &message);
    assert_eq!(error.pointer, "/createSurface/catalogId");
    assert!(error.message.contains(V9.basic_catalog_id()));
}

#[test]
fn the_v0_9_1_catalog_id_alias_selects_the_basic_catalog() {
    let validator = Validator::basic(ProtocolVersion::V0_9_1);
    let message = json!({"version": "v0.9.1", "createSurface": {"surfaceId": "s",
        "catalogId": "https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json"}});
    validator.check_message(&message).unwrap();
}

#[test]
fn feedback_is_a_valid_renderer_error_message_of_each_version() {
    let error = ValidationError::new(
        "/updateComponents/components/0/text",
        "missing",
        Some("s"),
        Some(2),
    );
    for v in [
        ProtocolVersion::V0_8,
        ProtocolVersion::V0_9,
        ProtocolVersion::V0_9_1,
        ProtocolVersion::V1_0,
    ] {
        let feedback = error.to_feedback(v);
        check_client_message(v, &feedback).unwrap_or_else(|e| panic!("{v}: {e}: {feedback}"));
        assert_eq!(
            feedback["error"]["path"],
            "/updateComponents/components/0/text"
        );
        assert_eq!(
            feedback.get("version").is_some(),
            v != ProtocolVersion::V0_8
        );
    }
}

#[test]
fn a_validator_is_shared_across_threads() {
    let validator = Validator::basic(V9);
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let validator = validator.clone();
            std::thread::spawn(move || {
                validator
                    .check_message(&update(
                        &format!("s{i}"),
                        json!([{"id": "root", "component": "Text", "text": "x"}]),
                    ))
                    .is_ok()
            })
        })
        .collect();
    assert!(handles.into_iter().all(|h| h.join().unwrap()));
}
