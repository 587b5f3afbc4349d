use super::*;
use crate::a2ui::ProtocolVersion;
use serde_json::json;

fn watch(version: ProtocolVersion) -> TreeWatch {
    TreeWatch::new(Validator::basic(version))
}

fn update(components: Value) -> Value {
    json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}})
}

#[test]
fn a_self_reference_is_an_error_as_soon_as_it_arrives() {
    let mut w = watch(ProtocolVersion::V0_9);
    let error = w
        .observe(&update(
            json!([{"id": "root", "component": "Card", "child": "root"}]),
        ))
        .unwrap_err();
    assert_eq!(error.pointer, "/updateComponents/components/0");
    assert!(error.message.contains("root -> root"), "{error}");
}

#[test]
fn a_cycle_is_caught_by_the_component_that_closes_it_in_a_later_message() {
    let mut w = watch(ProtocolVersion::V0_9);
    let parts = [
        json!([{"id": "root", "component": "Column", "children": ["a", "b"]}]),
        json!([{"id": "a", "component": "Card", "child": "c"}]),
        json!([{"id": "b", "component": "Text", "text": "fine"}]),
    ];
    for part in parts {
        w.observe(&update(part)).unwrap();
    }
    let error = w
        .observe(&update(
            json!([{"id": "c", "component": "Card", "child": "a"}]),
        ))
        .unwrap_err();
    assert!(error.message.contains("c -> a -> c"), "{error}");
}

#[test]
fn a_wide_tree_sent_one_component_at_a_time_is_fine() {
    let mut w = watch(ProtocolVersion::V0_9);
    let ids: Vec<String> = (0..200).map(|i| format!("t{i}")).collect();
    w.observe(&json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}}))
        .unwrap();
    w.observe(&update(
        json!([{"id": "root", "component": "Column", "children": ids}]),
    ))
    .unwrap();
    for id in &ids {
        w.observe(&update(
            json!([{"id": id, "component": "Text", "text": id}]),
        ))
        .unwrap();
    }
    assert!(w.finish().is_empty());
}

#[test]
fn an_unreachable_component_is_reported_at_the_end_but_an_orphaned_one_is_not() {
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}}))
        .unwrap();
    w.observe(&update(json!([
        {"id": "root", "component": "Card", "child": "old"},
        {"id": "old", "component": "Text", "text": "x"},
        {"id": "stray", "component": "Text", "text": "y"}
    ])))
    .unwrap();
    w.observe(&update(json!([{"id": "root", "component": "Card", "child": "new"}, {"id": "new", "component": "Text", "text": "z"}])))
        .unwrap();
    let errors = w.finish();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].message.contains("'stray' is not reachable"),
        "{}",
        errors[0]
    );
}

fn create() -> Value {
    json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}})
}

#[test]
fn an_unreachable_component_is_reported_when_the_creating_block_closes() {
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&create()).unwrap();
    w.observe(&update(json!([
        {"id": "root", "component": "Card", "child": "body"},
        {"id": "stray", "component": "Text", "text": "y"}
    ])))
    .unwrap();
    let errors = w.block_closed();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].message.contains("'stray' is not reachable"),
        "{}",
        errors[0]
    );
    // Checked once: the next block's close does not report it again.
    assert!(w.block_closed().is_empty());
}

#[test]
fn a_child_sent_in_a_later_block_is_not_an_orphan() {
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&create()).unwrap();
    w.observe(&update(
        json!([{"id": "root", "component": "Card", "child": "body"}]),
    ))
    .unwrap();
    assert!(w.block_closed().is_empty());
    w.observe(&update(
        json!([{"id": "body", "component": "Text", "text": "x"}]),
    ))
    .unwrap();
    assert!(w.block_closed().is_empty());
    assert!(w.finish().is_empty());
}

#[test]
fn a_surface_without_its_root_yet_is_checked_at_the_block_that_brings_it() {
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&create()).unwrap();
    w.observe(&update(
        json!([{"id": "stray", "component": "Text", "text": "y"}]),
    ))
    .unwrap();
    assert!(w.block_closed().is_empty());
    w.observe(&update(
        json!([{"id": "root", "component": "Text", "text": "x"}]),
    ))
    .unwrap();
    let errors = w.block_closed();
    assert!(
        errors[0].message.contains("'stray' is not reachable"),
        "{errors:?}"
    );
}

#[test]
fn a_stray_in_a_later_update_block_waits_for_the_end_of_the_reply() {
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&create()).unwrap();
    w.observe(&update(json!([{"id": "root", "component": "Column", "children": ["a"]}, {"id": "a", "component": "Text", "text": "a"}])))
        .unwrap();
    assert!(w.block_closed().is_empty());
    w.observe(&update(
        json!([{"id": "b", "component": "Text", "text": "b"}]),
    ))
    .unwrap();
    assert!(
        w.block_closed().is_empty(),
        "a later block may still attach it"
    );
    let errors = w.finish();
    assert!(
        errors[0].message.contains("'b' is not reachable"),
        "{errors:?}"
    );
}

#[test]
fn v0_8_children_and_the_named_root_are_followed() {
    let mut w = watch(ProtocolVersion::V0_8);
    let surface =
        |components: Value| json!({"surfaceUpdate": {"surfaceId": "s", "components": components}});
    w.observe(&surface(
        json!([{"id": "top", "component": {"Column": {"children": {"explicitList": ["a"]}}}}]),
    ))
    .unwrap();
    w.observe(&json!({"beginRendering": {"surfaceId": "s", "root": "top"}}))
        .unwrap();
    let error = w
        .observe(&surface(
            json!([{"id": "a", "component": {"Card": {"child": "top"}}}]),
        ))
        .unwrap_err();
    assert!(error.message.contains("a -> top -> a"), "{error}");
}
#[test]
fn a_refused_message_leaves_the_tree_as_it_was() {
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&create()).unwrap();
    w.observe(&update(
        json!([{"id": "root", "component": "Card", "child": "a"}]),
    ))
    .unwrap();
    // `b` is fine alone, but `a` in the same message closes a cycle: neither is taken in.
    let refused = update(json!([
        {"id": "b", "component": "Text", "text": "b"},
        {"id": "a", "component": "Card", "child": "root"}
    ]));
    assert!(w.observe(&refused).is_err());
    // The repair: `a` as a leaf. Had the refused `a` been kept, `b` would be a stray.
    w.observe(&update(
        json!([{"id": "a", "component": "Text", "text": "a"}]),
    ))
    .unwrap();
    assert_eq!(w.block_closed(), Vec::new());
    assert_eq!(w.finish(), Vec::new());
}

#[test]
fn an_id_listed_twice_in_one_message_is_refused() {
    let mut w = watch(ProtocolVersion::V0_9);
    let error = w
        .observe(&update(json!([
            {"id": "root", "component": "Text", "text": "a"},
            {"id": "root", "component": "Text", "text": "b"}
        ])))
        .unwrap_err();
    assert_eq!(error.pointer, "/updateComponents/components/1/id");
    assert!(
        error.message.contains("duplicate component id 'root'"),
        "{error}"
    );
}

#[test]
fn the_end_reports_a_missing_root_a_dangling_reference_and_a_long_cycle() {
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&create()).unwrap();
    w.observe(&update(
        json!([{"id": "top", "component": "Card", "child": "gone"}]),
    ))
    .unwrap();
    let errors = w.finish();
    assert!(errors[0].message.contains("refers to 'gone'"), "{errors:?}");
    assert!(
        errors[1].message.contains("has no root component"),
        "{errors:?}"
    );

    // A chain longer than one component's check may walk, closed at its end.
    let mut w = watch(ProtocolVersion::V0_9);
    w.observe(&create()).unwrap();
    let n = MAX_VISITS + 10;
    for i in 0..n {
        let child = if i + 1 == n {
            "root".to_owned()
        } else {
            format!("c{}", i + 1)
        };
        let id = if i == 0 {
            "root".to_owned()
        } else {
            format!("c{i}")
        };
        let component = json!([{"id": id, "component": "Card", "child": child}]);
        w.observe(&update(component)).unwrap();
    }
    let errors = w.finish();
    assert!(
        errors.iter().any(|e| e.message.contains("closes a cycle")),
        "{errors:?}"
    );
}

proptest::proptest! {
    /// A message of any length, with or without one id listed twice: refused exactly when
    /// an id repeats, at the second listing, naming the first.
    #[test]
    fn a_repeated_id_is_refused_at_its_second_listing_in_a_list_of_any_length(
        n in 1usize..40,
        pair in proptest::option::of((0usize..40, 0usize..40)),
    ) {
        let pair = pair
            .map(|(a, b)| (a.min(b) % n, a.max(b) % n))
            .filter(|(first, second)| first < second);
        let components: Vec<Value> = (0..n)
            .map(|k| {
                let id = match pair {
                    Some((first, second)) if k == second => format!("c{first}"),
                    _ => format!("c{k}"),
                };
                json!({"id": id, "component": "Text", "text": "t"})
            })
            .collect();
        let observed = watch(ProtocolVersion::V0_9).observe(&update(Value::from(components)));
        match pair {
            None => proptest::prop_assert!(observed.is_ok(), "{observed:?}"),
            Some((first, second)) => {
                let error = observed.expect_err("a repeated id");
                proptest::prop_assert_eq!(
                    error.pointer,
                    format!("/updateComponents/components/{second}/id")
                );
                let named = format!("already defined at /updateComponents/components/{first}");
                proptest::prop_assert!(error.message.contains(&named), "{}", error.message);
            }
        }
    }
}

#[test]
fn a_cycle_within_one_long_message_is_caught_where_it_closes() {
    let mut components = vec![json!({"id": "c0", "component": "Card", "child": "c19"})];
    components
        .extend((1..19).map(|k| json!({"id": format!("c{k}"), "component": "Text", "text": "t"})));
    components.push(json!({"id": "c19", "component": "Card", "child": "c0"}));
    let error = watch(ProtocolVersion::V0_9)
        .observe(&update(Value::from(components)))
        .unwrap_err();
    assert_eq!(error.pointer, "/updateComponents/components/19");
    assert!(error.message.contains("c19 -> c0 -> c19"), "{error}");
}
