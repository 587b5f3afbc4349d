//! Property tests over random component trees (v0.9 basic catalog): a valid tree stays valid
//! through serialise and parse, in any component order; each kind of mistake a model makes
//! is caught, at the pointer of the value that is wrong.

use a2ui_agent::a2ui::{ProtocolVersion, ValidationError, Validator};
use proptest::prelude::*;
use serde_json::{Value, json};

const V: ProtocolVersion = ProtocolVersion::V0_9;

/// A random tree: `parents[i - 1]` is the parent of node `i` (always an earlier node),
/// `wide[i]` picks Row over Column and Column over Card, `order` permutes the list.
#[derive(Debug, Clone)]
struct Tree {
    parents: Vec<usize>,
    wide: Vec<bool>,
    order: Vec<usize>,
}

fn tree() -> impl Strategy<Value = Tree> {
    (1usize..24)
        .prop_flat_map(|n| {
            let parents: Vec<BoxedStrategy<usize>> = (1..n).map(|i| (0..i).boxed()).collect();
            let order = Just((0..n).collect::<Vec<usize>>()).prop_shuffle();
            (parents, proptest::collection::vec(any::<bool>(), n), order)
        })
        .prop_map(|(parents, wide, order)| Tree {
            parents,
            wide,
            order,
        })
}

fn id(i: usize) -> String {
    if i == 0 {
        "root".into()
    } else {
        format!("c{i}")
    }
}

impl Tree {
    fn len(&self) -> usize {
        self.parents.len() + 1
    }

    fn children(&self, i: usize) -> Vec<usize> {
        (1..self.len())
            .filter(|c| self.parents[c - 1] == i)
            .collect()
    }

    /// The component of node `i`.
    fn component(&self, i: usize) -> Value {
        let children: Vec<String> = self.children(i).into_iter().map(id).collect();
        match children.len() {
            0 => json!({"id": id(i), "component": "Text", "text": format!("node {i}")}),
            1 if !self.wide[i] => json!({"id": id(i), "component": "Card", "child": children[0]}),
            _ => {
                let kind = if self.wide[i] { "Row" } else { "Column" };
                json!({"id": id(i), "component": kind, "children": children})
            }
        }
    }

    /// Position of node `i` in the component list.
    fn position(&self, i: usize) -> usize {
        self.order.iter().position(|n| *n == i).unwrap()
    }

    fn components(&self) -> Vec<Value> {
        self.order.iter().map(|i| self.component(*i)).collect()
    }
}

fn response(components: Vec<Value>) -> Vec<Value> {
    vec![
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": V.basic_catalog_id()}}),
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}}),
    ]
}

fn at(position: usize, rest: &str) -> String {
    format!("/updateComponents/components/{position}{rest}")
}

/// Fails unless some error sits at `pointer` and mentions `words`.
fn caught(errors: &[ValidationError], pointer: &str, words: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        errors
            .iter()
            .any(|e| e.pointer == pointer && e.message.contains(words)),
        "no error at {pointer} mentioning {words}: {errors:#?}"
    );
    Ok(())
}

fn errors(validator: &Validator, components: Vec<Value>) -> Vec<ValidationError> {
    validator
        .check_response(&response(components))
        .err()
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_valid_tree_stays_valid_through_serialise_and_parse(tree in tree()) {
        let validator = Validator::basic(V);
        let messages = response(tree.components());
        prop_assert_eq!(validator.check_response(&messages), Ok(()));
        let text = serde_json::to_string(&messages).unwrap();
        let parsed: Vec<Value> = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&parsed, &messages);
        prop_assert_eq!(validator.check_response(&parsed), Ok(()));
        for message in &parsed {
            prop_assert_eq!(validator.check_message(message), Ok(()));
        }
    }

    #[test]
    fn a_dropped_required_property_is_caught_on_its_component(tree in tree(), pick in any::<prop::sample::Index>()) {
        let validator = Validator::basic(V);
        let node = pick.index(tree.len());
        let mut components = tree.components();
        let position = tree.position(node);
        let dropped = match components[position]["component"].as_str().unwrap() {
            "Text" => "text",
            "Card" => "child",
            _ => "children",
        };
        components[position].as_object_mut().unwrap().remove(dropped);
        let message = &response(components.clone())[1];
        let error = validator.check_message(message).unwrap_err();
        prop_assert_eq!(&error.pointer, &at(position, ""));
        prop_assert!(error.message.contains(&format!("\"{dropped}\"")), "{}", error.message);
        caught(&errors(&validator, components), &at(position, ""), dropped)?;
    }

    #[test]
    fn an_unknown_property_is_caught_on_its_component(tree in tree(), pick in any::<prop::sample::Index>()) {
        let validator = Validator::basic(V);
        let position = tree.position(pick.index(tree.len()));
        let mut components = tree.components();
        components[position]["blink"] = json!(true);
        let error = validator.check_message(&response(components.clone())[1]).unwrap_err();
        prop_assert_eq!(&error.pointer, &at(position, ""));
        caught(&errors(&validator, components), &at(position, ""), "'blink'")?;
    }

    #[test]
    fn an_unknown_component_is_caught_at_its_type(tree in tree(), pick in any::<prop::sample::Index>()) {
        let validator = Validator::basic(V);
        let position = tree.position(pick.index(tree.len()));
        let mut components = tree.components();
        components[position]["component"] = json!("Marquee");
        let error = validator.check_message(&response(components.clone())[1]).unwrap_err();
        prop_assert_eq!(&error.pointer, &at(position, "/component"));
        caught(&errors(&validator, components), &at(position, "/component"), "unknown component")?;
    }

    #[test]
    fn a_dangling_child_is_caught_at_the_reference(tree in tree(), pick in any::<prop::sample::Index>()) {
        let validator = Validator::basic(V);
        let node = pick.index(tree.len());
        let position = tree.position(node);
        let mut components = tree.components();
        let component = &mut components[position];
        let pointer = match component["component"].as_str().unwrap() {
            "Row" | "Column" => {
                let children = component["children"].as_array_mut().unwrap();
                children.push(json!("ghost"));
                at(position, &format!("/children/{}", children.len() - 1))
            }
            _ => {
                *component = json!({"id": id(node), "component": "Card", "child": "ghost"});
                at(position, "/child")
            }
        };
        caught(&errors(&validator, components), &pointer, "'ghost'")?;
    }

    #[test]
    fn a_cycle_is_caught_at_the_reference_that_closes_it(tree in tree(), pick in any::<prop::sample::Index>()) {
        let validator = Validator::basic(V);
        let node = pick.index(tree.len());
        let ancestor = if node == 0 { 0 } else { tree.parents[node - 1] };
        let position = tree.position(node);
        let mut components = tree.components();
        let component = &mut components[position];
        let pointer = match component["component"].as_str().unwrap() {
            "Row" | "Column" => {
                let children = component["children"].as_array_mut().unwrap();
                children.push(json!(id(ancestor)));
                at(position, &format!("/children/{}", children.len() - 1))
            }
            "Card" => {
                // Make it a Column holding its child and the ancestor.
                let child = component["child"].clone();
                *component = json!({"id": id(node), "component": "Column", "children": [child, id(ancestor)]});
                at(position, "/children/1")
            }
            _ => {
                *component = json!({"id": id(node), "component": "Card", "child": id(ancestor)});
                at(position, "/child")
            }
        };
        caught(&errors(&validator, components), &pointer, "cycle")?;
    }

    #[test]
    fn a_duplicate_id_is_caught_at_the_second_definition(tree in tree(), pick in any::<prop::sample::Index>()) {
        let validator = Validator::basic(V);
        let position = tree.position(pick.index(tree.len()));
        let mut components = tree.components();
        components.push(components[position].clone());
        let last = components.len() - 1;
        caught(&errors(&validator, components), &at(last, "/id"), "duplicate")?;
    }
}
