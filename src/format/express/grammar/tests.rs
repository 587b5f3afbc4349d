use proptest::prelude::*;

use super::gbnf::{Gbnf, Rng};
use super::write;
use crate::a2ui::{Catalog, ProtocolVersion};
use crate::format::OutputFormat;
use crate::format::express::{Express, ExpressError, OPEN_TAG};
use crate::generator::Generator;

fn express(version: ProtocolVersion) -> Express {
    Express::bound(version, vec![Catalog::basic(version)]).unwrap()
}

fn grammar(version: ProtocolVersion) -> Gbnf {
    Gbnf::parse(&express(version).grammar().unwrap())
}

/// What the grammar exists to rule out, as the compiler words it.
const RULED_OUT: [&str; 5] = [
    "is not in catalog",
    "has no property",
    "takes at most",
    "is given twice",
    "which takes no Event",
];

/// Why `answer`, drawn from the grammar, was refused for a reason the grammar rules out.
fn ruled_out(express: &Express, answer: &str) -> Option<String> {
    match express.parse_response(answer, true) {
        Ok(_) => None,
        Err(ExpressError::Parse(e)) => Some(format!("unreadable: {e}")),
        Err(ExpressError::Invalid(errors)) => errors
            .iter()
            .map(ToString::to_string)
            .find(|e| RULED_OUT.iter().any(|r| e.contains(r))),
    }
}

#[test]
fn every_version_and_message_set_gives_a_grammar_whose_rules_all_end() {
    for version in [
        ProtocolVersion::V0_9,
        ProtocolVersion::V0_9_1,
        ProtocolVersion::V1_0,
    ] {
        let catalogs = [Catalog::basic(version)];
        for allowed in [
            None,
            Some(vec!["updateComponents".to_owned()]),
            Some(vec![
                "updateDataModel".to_owned(),
                "deleteSurface".to_owned(),
            ]),
        ] {
            // Parsing checks every rule is defined once and derives a finite string.
            let g = Gbnf::parse(&write(version, &catalogs, allowed.as_deref()));
            let data = g.accepts(0, "<a2ui>\n$/a = 1\n</a2ui>");
            let component = g.accepts(0, "<a2ui>\nroot = Text(\"x\")\n</a2ui>");
            match allowed.as_deref() {
                None => assert!(data && component, "{version:?}"),
                Some([only]) if only == "updateComponents" => assert!(!data && component),
                Some(_) => assert!(data && !component),
            }
        }
    }
}

#[test]
fn what_the_prompt_shows_the_model_is_in_the_grammar() {
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
        let processor = Generator::built_in(version)
            .negotiate_with_format(None, Express::new())
            .unwrap();
        let g = Gbnf::parse(processor.grammar().unwrap());
        // The prompt's example answers, each from its tag to the end of its block.
        let prompt = processor.prompt();
        let mut examples = 0;
        for (at, _) in prompt.match_indices(&format!("{OPEN_TAG}\n")) {
            let block = &prompt[at..];
            let Some(end) = block.find("</a2ui>\n") else {
                continue;
            };
            let block = &block[..end + "</a2ui>".len()];
            examples += 1;
            assert!(g.accepts(0, block), "{version:?}: {block}");
        }
        assert!(examples >= 1, "the prompt shows an example");
        // The inline child the prompt's rules show.
        let inline =
            "Sure.\n<a2ui>\nsend = Button(Text(\"Send\"), action=Event(\"send\"))\n</a2ui>\nDone.";
        assert!(g.accepts(0, inline));
    }
}

#[test]
fn what_a_model_writes_well_is_in_the_grammar() {
    let g = grammar(ProtocolVersion::V0_9);
    for answer in [
        "No UI needed: Paris is the capital of France.",
        "Here you go:\n<a2ui>\nsurface(\"s\")\nroot = Column([title, row])\ntitle = Text(\"Hi\", \"h2\")\n\
         row = Row(_template($/items, Text($name)), justify=\"start\")\n$/items = [{name: \"a\"}, {name: \"b\"}]\n</a2ui>\n",
        "<a2ui>\nroot = Card(Column([\n  TextField(\"Email\", $/email, ?email),\n  \
         Slider(\"Volume\", 0, 100, $/volume),\n  CheckBox(\"Dark mode\", $/dark)\n]))\n</a2ui>",
        "<a2ui>\nsurface(\"t\")\nroot = Tabs([{title: \"One\", child: one}, {title: \"Two\", child: Text(\"2\")}])\n\
         one = Text(formatCurrency($/total, \"EUR\", 2, true))\nok = Event(\"ok\", {id: $/id})\n</a2ui>",
        "<a2ui>\ndeleteSurface(\"old\")\n</a2ui>",
    ] {
        assert!(g.accepts(0, answer), "{answer}");
    }
}

#[test]
fn what_real_models_wrote_wrong_is_outside_the_grammar() {
    let g = grammar(ProtocolVersion::V0_9);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_model/written");
    // Each a mistake Qwen2.5-Coder wrote in an eval; the grammar has no room for it.
    for (fixture, mistake) in [
        ("express_called_name", "a label as a child, `PlusButton()`"),
        ("express_dotted_name", "`item1.content = ..`"),
        (
            "express_event_where_no_action_goes",
            "an Event as CheckBox's value",
        ),
        (
            "express_fenced_instead_of_tags",
            "a fence instead of the tags",
        ),
        (
            "express_property_the_component_lacks",
            "Card(.., title = ..)",
        ),
        ("express_spaced_name", "`Confirm Booking` as a name"),
        ("express_stray_brace", "`}$/user = ..`"),
        ("express_string_as_child", "`Button(\"Send\", ..)`"),
        ("express_string_concatenation", "`+`"),
        ("express_template_in_a_list", "`items = _template(..)`"),
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{fixture}.txt"))).unwrap();
        assert!(!g.accepts(0, &text), "{fixture} ({mistake}) is admitted");
    }
    // What the grammar cannot see: one name for three components reads, and is left to the
    // compiler (which reads each definition apart).
    let twice =
        std::fs::read_to_string(dir.join("express_one_layout_written_three_times.txt")).unwrap();
    assert!(g.accepts(0, twice.trim_end()));
}

#[test]
fn labels_escapes_and_fences_in_text_are_kept_out() {
    let g = grammar(ProtocolVersion::V0_9);
    let block = |statement: &str| format!("<a2ui>\n{statement}\n</a2ui>");
    for bad in [
        block("root = Title(\"Menu\")"),
        block("root = Text(\"a\\.b\")"),
        block("root = Text(\"Hi\", \"huge\")"),
        block("root = Slider(\"Volume\", min=0, min=1, max=2, value=3)"),
        block("root = Text(text=\"a\", text=\"b\")"),
        block("Root = Text(\"a\")"),
        block("root = Text(`a`)"),
        "Use ```a2ui\nroot = Text(\"x\")\n```".to_owned(),
        "<a2ui-json>[]</a2ui-json>".to_owned(),
        "<a2ui>\nroot = Text(\"never closed\")\n".to_owned(),
        block("$restaurants = [1, 2]"),
        // A second block, or a second paragraph after the block: how a small model runs
        // on into examples of its own.
        format!(
            "{}\n\n{}",
            block("a = Text(\"1\")"),
            block("b = Text(\"2\")")
        ),
        format!(
            "{}\nDone.\n\n### A form to update a profile",
            block("a = Text(\"1\")")
        ),
        // An answer that says nothing.
        String::new(),
        " \n\t".to_owned(),
    ] {
        assert!(!g.accepts(0, &bad), "{bad}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Soundness: whatever a server samples under the grammar reads, and is never refused
    /// for what the grammar rules out (an unknown component or property, too many
    /// arguments, a property twice, an Event where none goes). What it cannot rule out (a
    /// name used and never defined) the compiler still reports.
    #[test]
    fn every_answer_the_grammar_admits_reads(seed in any::<u64>(), budget in 4usize..14) {
        for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
            let express = express(version);
            let g = Gbnf::parse(&express.grammar().unwrap());
            let answer = g.sample(0, &mut Rng::new(seed), budget);
            prop_assert!(g.accepts(0, &answer), "drawn but not accepted: {answer}");
            if let Some(why) = ruled_out(&express, &answer) {
                prop_assert!(false, "{version:?} {why}\n{answer}");
            }
        }
    }
}
