//! What Qwen2.5-Coder-1.5B wrote to our Express prompt in the eval
//! (`tests/real_model/written/express_*.txt`, verbatim), served over a real socket:
//!
//! - a label where a child belongs (`Button("Send", ..)`, a reference to no component) is
//!   mended: the client gets a `Text` component `Send` showing it, marked as mended, and no
//!   repair turn is spent;
//! - one name for the parts of three cards (`content`, `title`, each defined three times) is
//!   read as each card's own, and one layout written three times (`product`, `price`) lists
//!   all three, with no repair turn (`format::express::Redefined`), and a template in a list
//!   of children (`Column([title, items])`, `items = _template(..)`) repeats its rows there;
//! - a component defined after the last item of a list and named nowhere (a logout button
//!   under a welcome card's column) is listed after that item;
//! - a closing brace at the start of a statement (`}$/user = ..`, in a repair answer) is read
//!   as the noise it is;
//! - a label the model took for a name, spaces and all (`Button(Confirm Booking, ..)` and
//!   `Confirm Booking = Text(..)`), is read as that name, `Confirm_Booking`;
//! - a string that reads as an id where a child belongs (`Button("send_label", ..)`) and `+`
//!   joining texts (a statement Express cannot read) get a repair turn that speaks Express: it names the problem and how a block
//!   is written in the notation (a name per component, a child is a name or an inline
//!   component, no operators), never "valid JSON";
//! - a definition named like an object's field (`item1.content = Column(..)` under
//!   `item1 = Card(content)`) is the part its owner names, and a defined name called with
//!   empty parentheses (`Row([PlusButton()])`) is that name;
//! - a property the component lacks (`Card(.., title = ..)`) and an `Event` where no action
//!   goes (a CheckBox's third argument, its weight) get a repair turn that shows how the
//!   component is written, as the prompt lists it;
//! - a block in a Markdown fence labelled `a2ui` and no tags is read as a block;
//! - a follow-up turn that writes its surface again whole, `root` and so its creation
//!   included, updates the surface the client holds instead of creating it a second time.

mod support;

use std::path::Path;
use std::sync::{Arc, Mutex};

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::Generator;
use a2ui_agent::pipeline::MENDED_KEY;
use a2ui_agent::request::Request;
use serde_json::{Value, json};
use support::*;

fn written(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_model/written")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A server whose agent answers `first`, then `repaired` once asked for a repair (keeping
/// each repair prompt in `prompts`), or `follow_up` on a later turn of the task.
async fn serve(
    first: String,
    repaired: String,
    follow_up: String,
    prompts: Arc<Mutex<Vec<String>>>,
) -> TestServer {
    let agent = move |request: Request| {
        let text = if let Some(repair) = request.repair() {
            prompts.lock().unwrap().push(repair.prompt());
            repaired.clone()
        } else if request.history().is_empty() {
            first.clone()
        } else {
            follow_up.clone()
        };
        let chunks: Vec<Result<String, AgentError>> = text
            .as_bytes()
            .chunks(9)
            .map(|c| Ok(String::from_utf8_lossy(c).into_owned()))
            .collect();
        futures::future::ready(Ok(Reply::stream(futures::stream::iter(chunks))))
    };
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .format(Express::new())
        .build()
        .unwrap();
    spawn(builder(agent).generator(generator).build().unwrap()).await
}

/// The repair prompt the model got for `fixture`, after which `repaired` passed.
async fn repair_prompt(fixture: &str, repaired: String) -> String {
    repair_prompt_for(written(fixture), repaired).await
}

/// The repair prompt the model got for answering `first`, after which `repaired` passed.
async fn repair_prompt_for(first: String, repaired: String) -> String {
    let (_, prompts) = answered(first, repaired).await;
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    let prompt = prompts[0].clone();
    assert!(prompt.contains("A2UI Express notation"), "{prompt}");
    assert!(!prompt.contains("JSON:"), "asks for JSON: {prompt}");
    prompt
}

#[tokio::test]
async fn a_label_where_a_child_belongs_is_mended_without_a_repair_turn() {
    let v = ProtocolVersion::V0_9;
    let parts = without_repair("express_string_as_child.txt").await;
    let mended: Vec<&Value> = parts
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["metadata"][MENDED_KEY] == json!(["Send"]))
        .collect();
    assert_eq!(mended.len(), 1, "{parts:?}");
    let sent = a2ui_messages(&parts, v);
    let components: Vec<&Value> = sent
        .iter()
        .filter_map(|m| m["updateComponents"]["components"].as_array())
        .flatten()
        .collect();
    let button = components
        .iter()
        .find(|c| c["id"] == "send_button")
        .unwrap();
    assert_eq!(button["child"], "Send", "{button}");
    let label = components.iter().find(|c| c["id"] == "Send").unwrap();
    assert_eq!(label["component"], "Text");
    assert_eq!(label["text"], "Send");
}

#[tokio::test]
async fn a_string_that_reads_as_an_id_where_a_child_belongs_is_repaired_in_express() {
    let fixture = "express_string_as_child.txt";
    let repaired = written(fixture).replace(r#"Button("Send""#, r#"Button(Text("Send")"#);
    let prompt = repair_prompt_for(
        written(fixture).replace(r#"Button("Send""#, r#"Button("send_label""#),
        repaired,
    )
    .await;
    assert!(prompt.contains("refers to 'send_label'"), "{prompt}");
    assert!(prompt.contains("never a string"), "{prompt}");
}

/// What a task answered `first` (then `repaired` when asked for a repair) ended with,
/// `input-required`: its reply parts, and the repair prompts the agent got.
async fn answered(first: String, repaired: String) -> (Value, Vec<String>) {
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let server = serve(first, repaired, String::new(), prompts.clone()).await;
    let answer = server
        .ask("message/stream", ProtocolVersion::V0_9, "draw")
        .await;
    assert_eq!(
        answer.last()["status"]["state"],
        "input-required",
        "{}",
        answer.last()
    );
    let prompts = prompts.lock().unwrap().clone();
    (answer.reply_parts(), prompts)
}

/// The reply parts the client got for `fixture`, which the task took with no repair turn.
async fn without_repair(fixture: &str) -> Value {
    let (parts, prompts) = answered(written(fixture), String::new()).await;
    assert!(prompts.is_empty(), "no repair turn: {prompts:?}");
    parts
}

/// The components the client got for `fixture`, answered with no repair turn, by id.
async fn components_without_repair(fixture: &str) -> std::collections::HashMap<String, Value> {
    a2ui_messages(&without_repair(fixture).await, ProtocolVersion::V0_9)
        .iter()
        .filter_map(|m| m["updateComponents"]["components"].as_array())
        .flatten()
        .map(|c| (c["id"].as_str().unwrap().to_owned(), c.clone()))
        .collect()
}

#[tokio::test]
async fn one_name_for_each_cards_parts_is_read_as_each_cards_own() {
    let components = components_without_repair("express_name_defined_twice.txt").await;
    let child = |id: &str, key: &str| -> String {
        let component = &components[id];
        match &component[key] {
            Value::String(child) => child.clone(),
            Value::Array(children) => children[0].as_str().unwrap().to_owned(),
            other => panic!("{id}.{key} is {other}"),
        }
    };
    let mut titles = Vec::new();
    for card in ["baan_thai", "trattoria_alba", "sakura_house"] {
        let column = child(card, "child");
        let title = child(&column, "children");
        titles.push(components[&title]["text"].as_str().unwrap().to_owned());
    }
    assert_eq!(titles, ["Baan Thai", "Trattoria Alba", "Sakura House"]);
}

#[tokio::test]
async fn one_layout_written_three_times_lists_all_three() {
    let components = components_without_repair("express_one_layout_written_three_times.txt").await;
    let list = &components[components["root"]["child"].as_str().unwrap()];
    let texts: Vec<&str> = list["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| components[id.as_str().unwrap()]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        ["Pen", "3 EUR", "Notebook", "5 EUR", "Bag", "30 EUR"]
    );
}

#[tokio::test]
async fn a_template_in_a_list_of_children_repeats_its_rows_in_that_place() {
    let components = components_without_repair("express_template_in_a_list.txt").await;
    let content = &components["content"];
    assert_eq!(content["children"][0], "title");
    let rows = &components[content["children"][1].as_str().unwrap()];
    assert_eq!(rows["component"], "Column");
    assert_eq!(
        rows["children"],
        json!({"componentId": "itemRow", "path": "/items"})
    );
}

#[tokio::test]
async fn a_label_written_as_a_name_with_spaces_is_read_as_that_name() {
    let components = components_without_repair("express_spaced_name.txt").await;
    let button = &components["confirm_button"];
    assert_eq!(button["child"], "Confirm_Booking", "{button}");
    let label = &components["Confirm_Booking"];
    assert_eq!(label["component"], "Text");
    assert_eq!(label["text"], "Confirm Booking");
}

#[tokio::test]
async fn a_component_placed_nowhere_follows_the_one_written_before_it() {
    // Two surfaces, each with a button defined after the last item of its column and named
    // nowhere; its label (`Button("Logout", ..)`) is mended too.
    let parts = without_repair("express_unplaced_component.txt").await;
    let sent = a2ui_messages(&parts, ProtocolVersion::V0_9);
    let column = |surface: &str| -> Vec<String> {
        sent.iter()
            .filter(|m| m["updateComponents"]["surfaceId"] == surface)
            .filter_map(|m| m["updateComponents"]["components"].as_array())
            .flatten()
            .find(|c| c["id"] == "content")
            .map(|c| serde_json::from_value(c["children"].clone()).unwrap())
            .unwrap_or_default()
    };
    assert_eq!(column("welcome"), ["title", "details", "logout_button"]);
    assert_eq!(column("logout"), ["title", "details", "logout_button"]);
}

#[tokio::test]
async fn a_closing_brace_before_a_statement_is_read_as_noise() {
    // A repair answer: `}$/user = {..}` in both blocks.
    let parts = without_repair("express_stray_brace.txt").await;
    let sent = a2ui_messages(&parts, ProtocolVersion::V0_9);
    let users: Vec<&Value> = sent
        .iter()
        .filter_map(|m| m.get("updateDataModel"))
        .filter(|update| update["value"]["user"]["name"] == "Sam")
        .collect();
    assert_eq!(users.len(), 2, "one data model per surface: {sent:?}");
}

#[tokio::test]
async fn strings_joined_with_a_plus_are_repaired_in_express() {
    let fixture = "express_string_concatenation.txt";
    let repaired = "<a2ui>\nsurface(\"products\")\nroot = Column([pen])\n\
                    pen = Text(\"Pen 3 EUR\")\n</a2ui>"
        .to_owned();
    let prompt = repair_prompt(fixture, repaired).await;
    assert!(
        prompt.contains("cannot read a statement at '+'"),
        "{prompt}"
    );
    assert!(prompt.contains("no operators such as `+`"), "{prompt}");
}

#[tokio::test]
async fn a_follow_up_that_writes_its_surface_again_updates_it() {
    let v = ProtocolVersion::V0_9;
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let server = serve(
        written("express_first_turn.txt"),
        String::new(),
        written("express_follow_up_creates_again.txt"),
        prompts.clone(),
    )
    .await;
    let answer = server.ask("message/stream", v, "my to-do list").await;
    let task_id = answer.last()["taskId"].as_str().unwrap().to_owned();
    let first = a2ui_messages(&answer.reply_parts(), v);
    assert!(first[0].get("createSurface").is_some(), "{first:?}");
    let caps = capabilities(v, &[v.basic_catalog_id()]);
    let parts = json!([{"kind": "text", "text": "Add 'Walk the dog' to the list."}]);
    let follow_up = server
        .exchange(
            "message/stream",
            params(parts, Some(caps), Some(&task_id)),
            &[v.extension_uri()],
        )
        .await;
    assert_eq!(
        follow_up.last()["status"]["state"],
        "input-required",
        "{}",
        follow_up.last()
    );
    let sent = a2ui_messages(&follow_up.reply_parts(), v);
    assert!(
        sent.iter().all(|m| m.get("createSurface").is_none()),
        "the surface is created again: {sent:?}"
    );
    let texts: Vec<&Value> = sent
        .iter()
        .filter_map(|m| m["updateComponents"]["components"].as_array())
        .flatten()
        .map(|c| &c["text"])
        .collect();
    assert!(texts.contains(&&json!("Walk the dog")), "{sent:?}");
    assert!(prompts.lock().unwrap().is_empty(), "no repair turn");
}

#[tokio::test]
async fn a_dotted_name_is_the_part_its_owner_names() {
    // A shopping cart: `item1 = Card(content)`, then `item1.content = Column([..])`, for
    // three items; the Checkout button's label is mended.
    let components = components_without_repair("express_dotted_name.txt").await;
    for item in ["item1", "item2", "item3"] {
        let card = &components[item];
        assert_eq!(card["child"], format!("{item}_content"), "{card}");
        let column = &components[&format!("{item}_content")];
        assert_eq!(
            column["children"],
            json!([format!("{item}_name"), format!("{item}_price")])
        );
    }
    // The cart's own `content` stays the root's.
    assert_eq!(components["root"]["child"], "content");
}

#[tokio::test]
async fn a_defined_name_called_with_empty_parentheses_is_that_name() {
    // The first block of a counter: `Row([PlusButton(), MinusButton()])`, then
    // `PlusButton = Button("+", "primary", Event("increment", 1))`. The names read, so
    // the repair turn is about the event's context, and shows how one is written.
    let repaired = "<a2ui>\nsurface(\"counter\")\nroot = Text(\"7\")\n</a2ui>".to_owned();
    let prompt = repair_prompt("express_called_name.txt", repaired).await;
    assert!(
        !prompt.contains("'PlusButton' is not in catalog"),
        "{prompt}"
    );
    assert!(prompt.contains("an event's context is a map"), "{prompt}");
    assert!(
        prompt.contains(r#"`Event("add", {amount: 1})`"#),
        "{prompt}"
    );
}

#[tokio::test]
async fn a_property_the_component_lacks_is_repaired_with_how_it_is_written() {
    // `Card(content, title = Text(..), details = .., icon = ..)` for three restaurants.
    let repaired =
        "<a2ui>\nsurface(\"restaurant_cards\")\nroot = Card(Text(\"Baan Thai\"))\n</a2ui>";
    let prompt = repair_prompt(
        "express_property_the_component_lacks.txt",
        repaired.to_owned(),
    )
    .await;
    assert!(
        prompt.contains(
            "component 'Card' has no property 'title'; it is written `Card(child: child)`"
        ),
        "{prompt}"
    );
}

#[tokio::test]
async fn an_event_where_no_action_goes_is_repaired_with_how_the_component_is_written() {
    // `CheckBox("Dark Mode", "primary", Event("toggle_dark_mode"))`: the third argument is
    // the weight, and a CheckBox has no action. Without the check, the validator's error
    // was `/updateComponents/components/2/weight: expected number`.
    let repaired = "<a2ui>\nsurface(\"settings\")\nroot = CheckBox(\"Dark mode\", $/dark)\n</a2ui>";
    let prompt = repair_prompt(
        "express_event_where_no_action_goes.txt",
        repaired.to_owned(),
    )
    .await;
    assert!(
        prompt.contains("CheckBox's argument 3 is its 'weight', which takes no Event"),
        "{prompt}"
    );
    assert!(
        prompt.contains("`CheckBox(label: string | $path | call, value: boolean | $path | call)`"),
        "{prompt}"
    );
}

#[tokio::test]
async fn a_block_fenced_as_a2ui_instead_of_tagged_is_read() {
    // A repair answer: the settings panel right, in a ```a2ui fence and no <a2ui> tag.
    let components = components_without_repair("express_fenced_instead_of_tags.txt").await;
    assert_eq!(components["checkbox"]["component"], "CheckBox");
    assert_eq!(components["checkbox"]["label"], "Dark Mode");
    assert_eq!(components["volume"]["component"], "Slider");
}
