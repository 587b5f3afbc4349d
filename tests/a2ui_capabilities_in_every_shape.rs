//! Renderer capabilities in every shape clients send (WIRE.md §5): flat v0.8, keyed by
//! version with the v0.9/v0.9.1 aliases, the v1.0 drafts' key, inside a DataPart's metadata;
//! the renderer's order of catalog ids is kept, and inline catalogs of each version's layout
//! load, within limits, with errors that say where.

use a2ui_agent::a2ui::{
    Catalog, CatalogError, ClientCapabilities, InlineLimits, ProtocolVersion, Validator,
};
use a2ui_agent::generator::{ResolveError, resolve_catalogs};
use serde_json::{Map, Value, json};

fn metadata(key: &str, value: Value) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert(key.into(), value);
    map
}

#[test]
fn v0_8_capabilities_are_flat() {
    let caps = ClientCapabilities::parse(&json!({
        "supportedCatalogIds": ["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]
    }))
    .unwrap();
    assert_eq!(caps.versions(), [ProtocolVersion::V0_8]);
    let v = ProtocolVersion::V0_8;
    let active = resolve_catalogs(v, &[Catalog::basic(v)], Some(&caps), false).unwrap();
    assert_eq!(active[0].id(), v.basic_catalog_id());
}

#[test]
fn v0_9_and_v0_9_1_keys_answer_for_each_other() {
    let keyed_0_9_1 =
        ClientCapabilities::parse(&json!({"v0.9.1": {"supportedCatalogIds": ["a"]}})).unwrap();
    assert_eq!(
        keyed_0_9_1
            .get(ProtocolVersion::V0_9)
            .unwrap()
            .supported_catalog_ids(),
        ["a"]
    );
    let keyed_0_9 =
        ClientCapabilities::parse(&json!({"v0.9": {"supportedCatalogIds": ["b"]}})).unwrap();
    assert_eq!(
        keyed_0_9
            .get(ProtocolVersion::V0_9_1)
            .unwrap()
            .supported_catalog_ids(),
        ["b"]
    );
    assert!(keyed_0_9.get(ProtocolVersion::V1_0).is_none());
}

#[test]
fn the_renderers_order_of_catalog_ids_is_kept() {
    let caps =
        ClientCapabilities::parse(&json!({"v1.0": {"supportedCatalogIds": ["z", "a", "m"]}}))
            .unwrap();
    assert_eq!(caps.supported_catalog_ids(), ["z", "a", "m"]);
}

#[test]
fn several_versions_in_one_object_are_all_read_newest_first() {
    let caps = ClientCapabilities::parse(&json!({
        "v0.9": {"supportedCatalogIds": ["nine"]},
        "v1.0": {"supportedCatalogIds": ["ten"]},
        "v2.0": {"anything": true}
    }))
    .unwrap();
    assert_eq!(
        caps.versions(),
        [ProtocolVersion::V1_0, ProtocolVersion::V0_9]
    );
    assert_eq!(caps.newest().unwrap().supported_catalog_ids(), ["ten"]);
}

#[test]
fn capabilities_are_found_in_message_or_data_part_metadata_under_either_key() {
    let caps = json!({"v1.0": {"supportedCatalogIds": ["ten"]}});
    for key in ["a2uiClientCapabilities", "a2uiRendererCapabilities"] {
        let found = ClientCapabilities::from_metadata(&metadata(key, caps.clone()))
            .unwrap()
            .unwrap();
        assert_eq!(found.supported_catalog_ids(), ["ten"]);
    }
    assert_eq!(
        ClientCapabilities::from_metadata(&Map::new()).unwrap(),
        None
    );
}

#[test]
fn malformed_capabilities_say_where() {
    let cases = [
        (json!("v0.9"), "/a2uiClientCapabilities"),
        (json!({"v0.9": []}), "/a2uiClientCapabilities/v0.9"),
        (json!({"v0.9": {}}), "/a2uiClientCapabilities/v0.9"),
        (
            json!({"v0.9": {"supportedCatalogIds": "x"}}),
            "/a2uiClientCapabilities/v0.9/supportedCatalogIds",
        ),
        (
            json!({"v0.9": {"supportedCatalogIds": [], "inlineCatalogs": [7]}}),
            "/a2uiClientCapabilities/v0.9/inlineCatalogs/0",
        ),
    ];
    for (value, pointer) in cases {
        let error =
            ClientCapabilities::from_metadata(&metadata("a2uiClientCapabilities", value.clone()))
                .unwrap_err();
        assert_eq!(error.pointer, pointer, "{value}");
        assert!(error.to_string().contains(pointer), "{error}");
    }
}

#[test]
fn inline_catalogs_are_capped_in_number_and_size() {
    let limits = InlineLimits {
        max_catalogs: 2,
        max_bytes: 1024,
    };
    let three = json!({"v1.0": {"supportedCatalogIds": [], "inlineCatalogs": [{}, {}, {}]}});
    assert!(
        ClientCapabilities::parse_with(&three, limits)
            .unwrap_err()
            .message
            .contains("more than the 2")
    );
    let big = json!({"v1.0": {"supportedCatalogIds": [], "inlineCatalogs": [{"catalogId": "x", "pad": "y".repeat(2000)}]}});
    assert!(
        ClientCapabilities::parse_with(&big, limits)
            .unwrap_err()
            .message
            .contains("1024 bytes")
    );
}

#[test]
fn a_v0_8_inline_catalog_with_components_and_styles_checks_messages() {
    let v = ProtocolVersion::V0_8;
    let caps = ClientCapabilities::parse(&json!({
        "supportedCatalogIds": [],
        "inlineCatalogs": [{"catalogId": "example.com:badges", "styles": {},
            "components": {"Badge": {"type": "object", "properties": {"label": {"type": "string"}},
                "required": ["label"], "additionalProperties": false}}}]
    }))
    .unwrap();
    let active = resolve_catalogs(v, &[Catalog::basic(v)], Some(&caps), true).unwrap();
    assert_eq!(active.len(), 1);
    let validator = Validator::new(v, &active).unwrap();
    let update = |props: Value| json!({"surfaceUpdate": {"surfaceId": "s", "components": [{"id": "root", "component": {"Badge": props}}]}});
    validator
        .check_message(&update(json!({"label": "new"})))
        .unwrap();
    let error = validator
        .check_message(&update(json!({"label": 3})))
        .unwrap_err();
    assert_eq!(
        error.pointer,
        "/surfaceUpdate/components/0/component/Badge/label"
    );
}

#[test]
fn a_v0_9_inline_catalog_lists_functions_as_definitions() {
    let v = ProtocolVersion::V0_9;
    let caps = ClientCapabilities::parse(&json!({"v0.9": {
        "supportedCatalogIds": [],
        "inlineCatalogs": [{
            "catalogId": "example.com:money",
            "components": {"Price": {"type": "object", "properties": {
                "id": {"type": "string"}, "component": {"const": "Price"},
                "amount": {"$ref": "https://a2ui.org/specification/v0_9/common_types.json#/$defs/DynamicNumber"}},
                "required": ["component", "amount"]}},
            "functions": [{"name": "double", "returnType": "number",
                "parameters": {"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"]}}]
        }]
    }}))
    .unwrap();
    let active = resolve_catalogs(v, &[], Some(&caps), true).unwrap();
    let validator = Validator::new(v, &active).unwrap();
    let price = |amount: Value| {
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
        "components": [{"id": "root", "component": "Price", "amount": amount}]}})
    };
    validator
        .check_message(&price(
            json!({"call": "double", "args": {"value": 2}, "returnType": "number"}),
        ))
        .unwrap();
    let error = validator
        .check_message(&price(
            json!({"call": "triple", "args": {"value": 2}, "returnType": "number"}),
        ))
        .unwrap_err();
    assert!(error.message.contains("unknown function"), "{error}");
}

#[test]
fn a_malformed_inline_catalog_is_a_clear_catalog_error() {
    let v = ProtocolVersion::V1_0;
    let caps = ClientCapabilities::parse(&json!({"v1.0": {
        "supportedCatalogIds": [],
        "inlineCatalogs": [{"catalogId": "ok", "components": {}}, {"catalogId": "bad", "components": {"X": 5}}]
    }}))
    .unwrap();
    let error = resolve_catalogs(v, &[], Some(&caps), true).unwrap_err();
    match error {
        ResolveError::Catalog(CatalogError::Malformed { pointer, .. }) => {
            assert_eq!(pointer, "/v1.0/inlineCatalogs/1/components/X");
        }
        other => panic!("{other}"),
    }
}
