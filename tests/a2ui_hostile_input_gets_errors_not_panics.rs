//! Model output is untrusted: odd shapes, huge trees and long chains get errors (or pass),
//! never a panic, a stack overflow or an unbounded list of errors.

use a2ui_agent::a2ui::{MAX_ERRORS, ProtocolVersion, Validator};
use serde_json::{Value, json};

const V: ProtocolVersion = ProtocolVersion::V0_9;

fn create() -> Value {
    json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": V.basic_catalog_id()}})
}

fn update(components: Vec<Value>) -> Value {
    json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}})
}

#[test]
fn values_of_every_json_type_are_refused_as_messages() {
    let validator = Validator::basic(V);
    for value in [
        json!(null),
        json!(1),
        json!("createSurface"),
        json!(true),
        json!([]),
        json!({}),
    ] {
        assert!(validator.check_message(&value).is_err(), "{value}");
        assert!(
            validator
                .check_response(std::slice::from_ref(&value))
                .is_err(),
            "{value}"
        );
    }
}

#[test]
fn a_long_chain_of_components_is_walked_without_overflowing_the_stack() {
    let validator = Validator::basic(V);
    let n = 5_000;
    let mut components: Vec<Value> = (0..n)
        .map(|i| {
            let id = if i == 0 {
                "root".to_owned()
            } else {
                format!("c{i}")
            };
            json!({"id": id, "component": "Card", "child": format!("c{}", i + 1)})
        })
        .collect();
    components.push(json!({"id": format!("c{n}"), "component": "Text", "text": "end"}));
    validator
        .check_response(&[create(), update(components.clone())])
        .unwrap();
    // Close the chain into a cycle at the far end.
    components[n] = json!({"id": format!("c{n}"), "component": "Card", "child": "root"});
    let errors = validator
        .check_response(&[create(), update(components)])
        .unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].message.contains("cycle"));
    assert!(errors[0].message.len() < 300, "{}", errors[0].message);
    assert!(errors[0].message.contains("more)"), "{}", errors[0].message);
}

#[test]
fn a_response_full_of_mistakes_reports_a_bounded_number_of_errors() {
    let validator = Validator::basic(V);
    let components: Vec<Value> = (0..2_000)
        .map(|i| json!({"id": if i == 0 { "root".to_owned() } else { format!("c{i}") }, "component": "Card", "child": format!("missing{i}")}))
        .collect();
    let errors = validator
        .check_response(&[create(), update(components)])
        .unwrap_err();
    assert!(
        !errors.is_empty() && errors.len() <= MAX_ERRORS,
        "{}",
        errors.len()
    );
}

#[test]
fn a_deeply_nested_value_in_a_property_is_an_error() {
    let validator = Validator::basic(V);
    let mut deep = json!("bottom");
    for _ in 0..120 {
        deep = json!({"path": deep});
    }
    let message = update(vec![
        json!({"id": "root", "component": "Text", "text": deep}),
    ]);
    let error = validator.check_message(&message).unwrap_err();
    assert!(
        error
            .pointer
            .starts_with("/updateComponents/components/0/text")
    );
    assert!(error.message.len() < 1_000, "{}", error.message.len());
}

#[test]
fn ids_and_names_with_pointer_characters_are_escaped_in_pointers() {
    let validator = Validator::basic(V);
    let errors = validator
        .check_response(&[
            create(),
            update(vec![
                json!({"id": "root", "component": "Card", "child": "a/b~c"}),
            ]),
        ])
        .unwrap_err();
    assert_eq!(errors[0].pointer, "/updateComponents/components/0/child");
    assert!(errors[0].message.contains("'a/b~c'"));
}
