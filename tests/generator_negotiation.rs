//! What a renderer's capabilities get from a generator: the active catalogs, a prompt that
//! describes exactly them, and errors that say what was asked for and what is offered.

use a2ui_agent::a2ui::{Catalog, ClientCapabilities, ProtocolVersion};
use a2ui_agent::generator::{Generator, GeneratorError, NegotiationErrorKind};
use proptest::prelude::*;
use serde_json::{Value, json};

const V0_9_BASIC: &str = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";

fn caps(value: Value) -> ClientCapabilities {
    ClientCapabilities::parse(&value).unwrap()
}

/// The basic v0.9 catalog under another id.
fn renamed(id: &str) -> Catalog {
    let mut doc = Catalog::basic(ProtocolVersion::V0_9).schema().clone();
    doc["catalogId"] = json!(id);
    Catalog::from_value(ProtocolVersion::V0_9, doc).unwrap()
}

fn inline(id: &str, component: &str) -> Value {
    json!({"catalogId": id, "components": {component: {
        "type": "object",
        "properties": {"component": {"const": component}, "text": {"type": "string"}},
        "required": ["component", "text"]
    }}})
}

#[test]
fn the_built_in_generators_offer_their_versions_basic_catalog() {
    for (generator, version) in [
        (Generator::v0_8(), ProtocolVersion::V0_8),
        (Generator::v0_9(), ProtocolVersion::V0_9),
        (Generator::v0_9_1(), ProtocolVersion::V0_9_1),
        (Generator::v1_0(), ProtocolVersion::V1_0),
    ] {
        assert_eq!(generator.version(), version);
        assert_eq!(
            generator.supported_catalog_ids(),
            [version.basic_catalog_id()]
        );
        assert!(!generator.accepts_inline_catalogs());
        let processor = generator.negotiate(None).unwrap();
        assert_eq!(processor.version(), version);
        assert!(processor.prompt().contains(&format!("A2UI {version}")));
    }
}

#[test]
fn active_catalogs_follow_the_renderers_order_of_preference() {
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .catalog(renamed("acme/a"))
        .catalog(renamed("acme/b"))
        .build()
        .unwrap();
    let processor = generator
        .negotiate(Some(&caps(
            json!({"v0.9": {"supportedCatalogIds": ["acme/b", "nope", "acme/a"]}}),
        )))
        .unwrap();
    let ids: Vec<&str> = processor.catalogs().iter().map(Catalog::id).collect();
    assert_eq!(ids, ["acme/b", "acme/a"]);
    let prompt = processor.prompt();
    let (b, a) = (
        prompt.find("`acme/b`").unwrap(),
        prompt.find("`acme/a`").unwrap(),
    );
    assert!(b < a, "the renderer's first choice is described first");
}

#[test]
fn a_v0_9_1_generator_understands_v0_9_capabilities_and_the_v0_9_1_catalog_id() {
    let alias = "https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json";
    let processor = Generator::v0_9_1()
        .negotiate(Some(&caps(
            json!({"v0.9": {"supportedCatalogIds": [alias]}}),
        )))
        .unwrap();
    // The agent is told to write the id the renderer named; the catalog's own id is as good.
    assert_eq!(processor.catalogs()[0].id(), alias);
    assert!(processor.prompt().contains(alias));
    for id in [alias, V0_9_BASIC] {
        let message =
            json!({"version": "v0.9.1", "createSurface": {"surfaceId": "s", "catalogId": id}});
        assert!(processor.validate(&[message]).is_ok(), "{id}");
    }
}

#[test]
fn a_renderer_that_knows_the_basic_catalog_by_copilotkits_id_gets_surfaces_in_that_id() {
    let copilotkit = "https://a2ui.org/specification/v0_9/basic_catalog.json";
    let processor = Generator::v0_9()
        .negotiate(Some(&caps(
            json!({"v0.9": {"supportedCatalogIds": [copilotkit, V0_9_BASIC]}}),
        )))
        .unwrap();
    let ids: Vec<&str> = processor.catalogs().iter().map(Catalog::id).collect();
    assert_eq!(
        ids,
        [copilotkit],
        "one catalog, under the renderer's first name for it"
    );
    assert!(processor.prompt().contains(copilotkit));
    let message =
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": copilotkit}});
    assert!(processor.validate(&[message]).is_ok());
    let other =
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "acme/x"}});
    assert!(processor.validate(&[other]).is_err());
}

#[test]
fn flat_v0_8_capabilities_negotiate_the_standard_catalog() {
    let id = ProtocolVersion::V0_8.basic_catalog_id();
    let processor = Generator::v0_8()
        .negotiate(Some(&caps(json!({"supportedCatalogIds": [id]}))))
        .unwrap();
    assert_eq!(processor.catalogs()[0].id(), id);
    assert!(processor.prompt().contains("beginRendering"));
    assert!(!processor.prompt().contains("createSurface"));
}

#[test]
fn a_catalog_in_no_common_fails_with_what_was_asked_and_what_is_offered() {
    let err = Generator::v0_9()
        .negotiate(Some(&caps(
            json!({"v0.9": {"supportedCatalogIds": ["acme/only"]}}),
        )))
        .unwrap_err();
    assert_eq!(err.kind(), NegotiationErrorKind::NoCatalogInCommon);
    assert_eq!(err.requested(), ["acme/only"]);
    let text = err.to_string();
    assert!(
        text.contains("acme/only") && text.contains(V0_9_BASIC),
        "{text}"
    );
}

#[test]
fn capabilities_for_another_version_leave_the_next_generator_to_try() {
    let err = Generator::v0_8()
        .negotiate(Some(&caps(
            json!({"v0.9": {"supportedCatalogIds": [V0_9_BASIC]}}),
        )))
        .unwrap_err();
    assert_eq!(err.kind(), NegotiationErrorKind::VersionNotDescribed);
    let text = err.to_string();
    assert!(
        text.contains("no v0.8 entry") && text.contains("[v0.9]"),
        "{text}"
    );
}

#[test]
fn inline_catalogs_count_only_when_the_generator_accepts_them() {
    let request = caps(
        json!({"v0.9": {"supportedCatalogIds": [], "inlineCatalogs": [inline("r/x", "Marquee")]}}),
    );
    let refused = Generator::v0_9().negotiate(Some(&request)).unwrap_err();
    assert_eq!(refused.kind(), NegotiationErrorKind::NoCatalogInCommon);
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .accept_inline_catalogs(true)
        .build()
        .unwrap();
    let processor = generator.negotiate(Some(&request)).unwrap();
    assert_eq!(processor.catalogs()[0].id(), "r/x");
    assert!(processor.prompt().contains("Marquee"));
}

#[test]
fn two_renderers_with_one_inline_catalog_id_each_get_their_own_catalog() {
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .accept_inline_catalogs(true)
        .build()
        .unwrap();
    let first = generator
        .negotiate(Some(&caps(json!({"v0.9": {"supportedCatalogIds": [], "inlineCatalogs": [inline("r/x", "Marquee")]}}))))
        .unwrap();
    let second = generator
        .negotiate(Some(&caps(json!({"v0.9": {"supportedCatalogIds": [], "inlineCatalogs": [inline("r/x", "Ticker")]}}))))
        .unwrap();
    assert!(first.prompt().contains("Marquee") && !first.prompt().contains("Ticker"));
    assert!(second.prompt().contains("Ticker") && !second.prompt().contains("Marquee"));
}

#[test]
fn the_same_catalog_set_gives_the_same_prompt_and_another_set_another() {
    let build = || {
        Generator::builder(ProtocolVersion::V0_9)
            .catalog(renamed("acme/a"))
            .catalog(renamed("acme/b"))
            .build()
            .unwrap()
    };
    let only_a = caps(json!({"v0.9": {"supportedCatalogIds": ["acme/a"]}}));
    let one = build().negotiate(Some(&only_a)).unwrap();
    let other = build().negotiate(Some(&only_a)).unwrap();
    assert_eq!(
        one.prompt(),
        other.prompt(),
        "deterministic across generators"
    );
    let both = build().negotiate(None).unwrap();
    assert_ne!(one.prompt(), both.prompt());
    assert!(!one.prompt().contains("acme/b"));
}

#[test]
fn negotiating_leaves_the_generator_offering_what_it_offered() {
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .catalog(renamed("acme/a"))
        .catalog(renamed("acme/b"))
        .build()
        .unwrap();
    generator
        .negotiate(Some(&caps(
            json!({"v0.9": {"supportedCatalogIds": ["acme/b"]}}),
        )))
        .unwrap();
    assert_eq!(generator.supported_catalog_ids(), ["acme/a", "acme/b"]);
    assert_eq!(generator.negotiate(None).unwrap().catalogs().len(), 2);
}

#[test]
fn an_example_reaches_the_prompt_and_a_broken_one_is_refused_when_built() {
    let good = json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "welcome_card", "catalogId": V0_9_BASIC}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "welcome_card", "components": [
            {"id": "root", "component": "Text", "text": "Welcome aboard"}]}}
    ]);
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .example("welcome", good.to_string())
        .build()
        .unwrap();
    let prompt = generator.negotiate(None).unwrap().prompt().to_owned();
    assert!(prompt.contains("Welcome aboard") && prompt.contains("### welcome"));

    let broken = json!([
        {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": V0_9_BASIC}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Card", "child": "missing"}]}}
    ]);
    let err = Generator::builder(ProtocolVersion::V0_9)
        .example("broken", broken.to_string())
        .build()
        .unwrap_err();
    assert!(matches!(err, GeneratorError::Example { .. }));
    assert!(err.to_string().contains("broken"), "{err}");
}

#[test]
fn a_generator_offering_nothing_is_refused() {
    let err = Generator::builder(ProtocolVersion::V0_9)
        .catalogs([])
        .build()
        .unwrap_err();
    assert!(matches!(err, GeneratorError::NoCatalog));
}

#[test]
fn a_catalog_of_another_version_is_refused() {
    let err = Generator::builder(ProtocolVersion::V0_9)
        .catalog(Catalog::basic(ProtocolVersion::V0_8))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("v0.8"), "{err}");
}

#[test]
fn generators_and_processors_can_be_shared_between_threads() {
    fn shared<T: Send + Sync + Clone + 'static>() {}
    shared::<Generator>();
    shared::<a2ui_agent::processor::RequestProcessor>();
}

const BASIC_V0_9: [&str; 18] = [
    "AudioPlayer",
    "Button",
    "Card",
    "CheckBox",
    "ChoicePicker",
    "Column",
    "DateTimeInput",
    "Divider",
    "Icon",
    "Image",
    "List",
    "Modal",
    "Row",
    "Slider",
    "Tabs",
    "Text",
    "TextField",
    "Video",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// A component subset is what the model hears of and what the validator accepts.
    #[test]
    fn a_component_subset_is_all_the_prompt_lists_and_all_the_validator_accepts(
        keep in proptest::sample::subsequence(BASIC_V0_9.to_vec(), 1..6)
    ) {
        let generator = Generator::builder(ProtocolVersion::V0_9)
            .components(&keep)
            .build()
            .unwrap();
        let processor = generator.negotiate(None).unwrap();
        let listed = format!("Components: {}.", keep.join(", "));
        prop_assert!(processor.prompt().contains(&listed), "{listed}");
        for name in BASIC_V0_9 {
            let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
                "components": [{"id": "x", "component": name}]}});
            let error = processor.validator().check_message(&message).err();
            let unknown = error.is_some_and(|e| e.message.contains("unknown component"));
            prop_assert_eq!(unknown, !keep.contains(&name), "{}", name);
        }
    }
}
