//! Express programs for the v0.9 basic catalog, generated: the forms models write (the
//! official decompiler's `id=` spelling, positional and keyword arguments, `weight`, checks,
//! templates, events, function calls, data assignments, `surface(..)` lines) and the
//! mistakes they make (an unknown property, a wrong enum choice, a binding where none is
//! admitted, a missing root, an unknown component, broken text).
//!
//! The generator leaves out the forms docs/formats.md names as bugs of the official compiler
//! (it drops extra positional arguments, keeps the last of a repeated keyword, ignores an
//! `Event`'s keyword arguments), so that every program it writes has one right answer.

use proptest::prelude::*;

/// How a property's value is generated.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A `Dynamic*` string: literal, binding, function call or named value.
    Text,
    /// A plain string (no binding).
    Plain,
    /// A dynamic boolean.
    Flag,
    /// A plain boolean.
    PlainFlag,
    /// A dynamic number.
    Amount,
    /// A plain number.
    Number,
    /// One of these choices.
    Choice(&'static [&'static str]),
    /// A child component.
    Child,
    /// A list of children, or a template.
    Children,
    /// An action.
    Action,
    /// Tab items.
    Tabs,
    /// Choice options.
    Options,
    /// A dynamic string list.
    Texts,
}

/// A component of the v0.9 basic catalog: its positional properties in signature order
/// (`weight` included) and whether it takes checks.
struct Component {
    name: &'static str,
    properties: &'static [(&'static str, Kind)],
    checkable: bool,
}

const VARIANTS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "caption", "body"];
const JUSTIFY: &[&str] = &[
    "center",
    "end",
    "spaceAround",
    "spaceBetween",
    "spaceEvenly",
    "start",
    "stretch",
];
const ALIGN: &[&str] = &["start", "center", "end", "stretch"];

const COMPONENTS: &[Component] = &[
    Component {
        name: "Text",
        properties: &[
            ("text", Kind::Text),
            ("variant", Kind::Choice(VARIANTS)),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "Image",
        properties: &[
            ("url", Kind::Text),
            ("description", Kind::Text),
            (
                "fit",
                Kind::Choice(&["contain", "cover", "fill", "none", "scaleDown"]),
            ),
            (
                "variant",
                Kind::Choice(&["icon", "avatar", "smallFeature", "header"]),
            ),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "Icon",
        properties: &[
            (
                "name",
                Kind::Choice(&["send", "star", "home", "search", "calendarToday"]),
            ),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "Row",
        properties: &[
            ("children", Kind::Children),
            ("justify", Kind::Choice(JUSTIFY)),
            ("align", Kind::Choice(ALIGN)),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "Column",
        properties: &[
            ("children", Kind::Children),
            ("justify", Kind::Choice(JUSTIFY)),
            ("align", Kind::Choice(ALIGN)),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "List",
        properties: &[
            ("children", Kind::Children),
            ("direction", Kind::Choice(&["vertical", "horizontal"])),
            ("align", Kind::Choice(ALIGN)),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "Card",
        properties: &[("child", Kind::Child), ("weight", Kind::Number)],
        checkable: false,
    },
    Component {
        name: "Tabs",
        properties: &[("tabs", Kind::Tabs), ("weight", Kind::Number)],
        checkable: false,
    },
    Component {
        name: "Modal",
        properties: &[
            ("trigger", Kind::Child),
            ("content", Kind::Child),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "Divider",
        properties: &[
            ("axis", Kind::Choice(&["horizontal", "vertical"])),
            ("weight", Kind::Number),
        ],
        checkable: false,
    },
    Component {
        name: "Button",
        properties: &[
            ("child", Kind::Child),
            (
                "variant",
                Kind::Choice(&["default", "primary", "borderless"]),
            ),
            ("action", Kind::Action),
            ("weight", Kind::Number),
        ],
        checkable: true,
    },
    Component {
        name: "TextField",
        properties: &[
            ("label", Kind::Text),
            ("value", Kind::Text),
            (
                "variant",
                Kind::Choice(&["longText", "number", "shortText", "obscured"]),
            ),
            ("validationRegexp", Kind::Plain),
            ("weight", Kind::Number),
        ],
        checkable: true,
    },
    Component {
        name: "CheckBox",
        properties: &[
            ("label", Kind::Text),
            ("value", Kind::Flag),
            ("weight", Kind::Number),
        ],
        checkable: true,
    },
    Component {
        name: "ChoicePicker",
        properties: &[
            ("label", Kind::Text),
            (
                "variant",
                Kind::Choice(&["multipleSelection", "mutuallyExclusive"]),
            ),
            ("options", Kind::Options),
            ("value", Kind::Texts),
            ("displayStyle", Kind::Choice(&["checkbox", "chips"])),
            ("filterable", Kind::PlainFlag),
            ("weight", Kind::Number),
        ],
        checkable: true,
    },
    Component {
        name: "Slider",
        properties: &[
            ("label", Kind::Text),
            ("min", Kind::Number),
            ("max", Kind::Number),
            ("value", Kind::Amount),
            ("weight", Kind::Number),
        ],
        checkable: true,
    },
    Component {
        name: "DateTimeInput",
        properties: &[
            ("value", Kind::Text),
            ("enableDate", Kind::PlainFlag),
            ("enableTime", Kind::PlainFlag),
            ("label", Kind::Text),
            ("weight", Kind::Number),
        ],
        checkable: true,
    },
];

/// Whether the catalog requires `property` of `component`.
fn required(component: &str, property: &str) -> bool {
    matches!(
        (component, property),
        ("Text", "text")
            | ("Image" | "Video" | "AudioPlayer", "url")
            | ("Icon", "name")
            | ("Row" | "Column" | "List", "children")
            | ("Card", "child")
            | ("Tabs", "tabs")
            | ("Modal", "trigger" | "content")
            | ("Button", "child" | "action")
            | ("TextField" | "CheckBox", "label")
            | (
                "CheckBox" | "ChoicePicker" | "Slider" | "DateTimeInput",
                "value"
            )
            | ("ChoicePicker", "options")
            | ("Slider", "max")
    )
}

/// Variable names a program assigns components to (and refers to).
const NAMES: &[&str] = &["header", "body", "title", "footer", "item", "card", "label"];
/// Ids the decompiler writes with `id=` (and the variable it writes them under).
const IDS: &[(&str, &str)] = &[
    ("main-column", "main_column"),
    ("header-row", "header_row"),
    ("btn-1", "btn_1"),
];

fn string_literal() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-zA-Z ,.!?0-9]{0,12}".prop_map(|s| format!("\"{s}\"")),
        1 => r#"[a-z"\\ntu ]{0,8}"#.prop_map(|s| {
            // Escapes: `\"`, `\\`, `\n`, `\t`, `\u`: each reading keeps or resolves them.
            let mut out = String::from("\"");
            let mut chars = s.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => {
                        out.push('\\');
                        out.push(chars.next().filter(|c| *c != '"').unwrap_or('\\'));
                    }
                    c => out.push(c),
                }
            }
            if out.ends_with('\\') && !out.ends_with("\\\\") {
                out.push('\\');
            }
            out.push('"');
            out
        }),
        1 => "[a-z\\\\ ]{0,8}".prop_map(|s| format!("r\"{s}\"")),
        1 => "[a-z\n ]{0,10}".prop_map(|s| format!("\"\"\"{s}\"\"\"")),
        1 => Just("\"é ✓ 中\"".to_owned()),
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{1,6}".prop_map(|s| format!("$/{s}")),
        1 => "[a-z]{1,4}/[a-z]{1,4}".prop_map(|s| format!("$/{s}")),
        1 => "[a-z]{1,5}".prop_map(|s| format!("${s}")),
    ]
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0i64..100).prop_map(|n| n.to_string()),
        (-50i64..0).prop_map(|n| n.to_string()),
        (0u32..1000).prop_map(|n| format!("{}.{}", n / 10, n % 10)),
    ]
}

/// A `Dynamic*` string value.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        6 => string_literal(),
        3 => path(),
        1 => (path(), string_literal()).prop_map(|(p, f)| format!("formatDate({p}, {f})")),
        1 => "[a-z ]{0,6}".prop_map(|s| format!("formatString(\"{s} ${{/name}}\")")),
        1 => (path(), 0u8..3).prop_map(|(p, d)| format!("formatNumber({p}, {d})")),
        1 => Just("greeting".to_owned()),
    ]
    .boxed()
}

/// A child: a variable, an inline component, an id of a component sent before.
fn child(depth: u32) -> BoxedStrategy<String> {
    let names = prop::sample::select(NAMES).prop_map(str::to_owned);
    let ids = prop::sample::select(IDS).prop_map(|(_, var)| var.to_owned());
    if depth == 0 {
        return prop_oneof![4 => names, 1 => ids, 1 => Just("\"elsewhere\"".to_owned())].boxed();
    }
    prop_oneof![
        4 => names,
        1 => ids,
        3 => component_call(depth - 1),
    ]
    .boxed()
}

fn action() -> BoxedStrategy<String> {
    let context = prop::collection::vec(("[a-z]{1,5}", text()), 0..3).prop_map(|entries| {
        let entries: Vec<String> = entries.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        format!("{{{}}}", entries.join(", "))
    });
    prop_oneof![
        3 => "[a-z_]{1,8}".prop_map(|n| format!("Event(\"{n}\")")),
        3 => ("[a-z_]{1,8}", context).prop_map(|(n, c)| format!("Event(\"{n}\", {c})")),
        1 => "[a-z]{1,8}".prop_map(|u| format!("openUrl(\"https://example.com/{u}\")")),
        1 => Just("Event(greeting)".to_owned()),
    ]
    .boxed()
}

fn checks() -> BoxedStrategy<String> {
    let one = prop_oneof![
        Just("?required".to_owned()),
        Just("?email".to_owned()),
        string_literal().prop_map(|m| format!("?required({m})")),
        (0u8..5, 5u8..20).prop_map(|(a, b)| format!("?length({a}, {b})")),
        (0u8..5, string_literal()).prop_map(|(a, m)| format!("?length({a}, _, {m})")),
        string_literal().prop_map(|m| format!("?regex(\"^[a-z]+$\", {m})")),
        Just("?and([?required, ?email])".to_owned()),
        Just("?numeric(1, 10)".to_owned()),
        path().prop_map(|p| format!("?required({p})")),
    ];
    prop_oneof![
        3 => one.clone(),
        1 => prop::collection::vec(one, 1..3).prop_map(|c| format!("[{}]", c.join(", "))),
    ]
    .boxed()
}

/// A value for `kind`, sometimes one the catalog refuses.
fn value(kind: Kind, depth: u32) -> BoxedStrategy<String> {
    let good: BoxedStrategy<String> = match kind {
        Kind::Text => text(),
        Kind::Plain => string_literal().boxed(),
        Kind::Flag => prop_oneof![Just("true".to_owned()), Just("false".to_owned()), path()].boxed(),
        Kind::PlainFlag => prop_oneof![Just("true".to_owned()), Just("false".to_owned())].boxed(),
        Kind::Amount => prop_oneof![number(), path()].boxed(),
        Kind::Number => number().boxed(),
        Kind::Choice(choices) => prop::sample::select(choices).prop_map(|c| format!("\"{c}\"")).boxed(),
        Kind::Child => child(depth),
        Kind::Children => prop_oneof![
            4 => prop::collection::vec(child(depth), 0..4).prop_map(|c| format!("[{}]", c.join(", "))),
            1 => (path(), child(0)).prop_map(|(p, c)| format!("_template({p}, {c})")),
        ]
        .boxed(),
        Kind::Action => action(),
        Kind::Tabs => prop::collection::vec((string_literal(), child(depth)), 1..3)
            .prop_map(|tabs| {
                let tabs: Vec<String> =
                    tabs.iter().map(|(t, c)| format!("{{title: {t}, child: {c}}}")).collect();
                format!("[{}]", tabs.join(", "))
            })
            .boxed(),
        Kind::Options => prop_oneof![
            prop::collection::vec("[a-z]{1,5}", 1..3).prop_map(|o| {
                let o: Vec<String> = o.iter().map(|s| format!("\"{s}\"")).collect();
                format!("[{}]", o.join(", "))
            }),
            prop::collection::vec(("[a-z]{1,5}", "[a-z]{1,5}"), 1..3).prop_map(|o| {
                let o: Vec<String> =
                    o.iter().map(|(l, v)| format!("{{label: \"{l}\", value: \"{v}\"}}")).collect();
                format!("[{}]", o.join(", "))
            }),
        ]
        .boxed(),
        Kind::Texts => prop_oneof![
            path(),
            prop::collection::vec(string_literal(), 0..3).prop_map(|v| format!("[{}]", v.join(", "))),
        ]
        .boxed(),
    };
    prop_oneof![
        30 => good,
        1 => path(),
        1 => Just("\"huge\"".to_owned()),
        1 => number(),
        1 => Just("null".to_owned()),
    ]
    .boxed()
}

/// How one argument is written.
#[derive(Clone, Debug)]
enum Written {
    Positional,
    Keyword,
    Skipped,
    Left,
}

/// A component call: some properties positional (in order, `_` for gaps), some keywords,
/// maybe checks, maybe `id=`, maybe a mistake.
fn component_call(depth: u32) -> BoxedStrategy<String> {
    (0..COMPONENTS.len())
        .prop_flat_map(move |i| {
            let component = &COMPONENTS[i];
            let values: Vec<BoxedStrategy<(String, Written)>> = component
                .properties
                .iter()
                .map(|(property, kind)| {
                    // A required property is left out now and then (a mistake), others often.
                    let left = if required(component.name, property) {
                        1
                    } else {
                        4
                    };
                    let written = prop_oneof![
                        8 => Just(Written::Positional),
                        3 => Just(Written::Keyword),
                        1 => Just(Written::Skipped),
                        left => Just(Written::Left),
                    ];
                    (value(*kind, depth), written).boxed()
                })
                .collect();
            let checks = if component.checkable {
                prop::option::weighted(0.3, checks()).boxed()
            } else {
                Just(None).boxed()
            };
            let mistake = prop_oneof![
                150 => Just(None),
                1 => Just(Some("colour=\"red\"".to_owned())),
                1 => Just(Some("accessibility={label: \"x\"}".to_owned())),
                1 => Just(Some("id=3".to_owned())),
                1 => Just(Some("id=\"\"".to_owned())),
                1 => Just(Some("id=\"inline-id\"".to_owned())),
            ];
            (Just(i), values, checks, mistake)
        })
        .prop_map(|(i, values, checks, mistake)| {
            let component = &COMPONENTS[i];
            let mut positional: Vec<String> = Vec::new();
            let mut keywords: Vec<String> = Vec::new();
            let mut gap = 0;
            for ((property, _), (value, written)) in component.properties.iter().zip(values) {
                match written {
                    Written::Positional if keywords.is_empty() => {
                        positional.extend(std::iter::repeat_n("_".to_owned(), gap));
                        gap = 0;
                        positional.push(value);
                    }
                    Written::Positional | Written::Keyword => {
                        keywords.push(format!("{property}={value}"))
                    }
                    Written::Skipped if keywords.is_empty() => gap += 1,
                    Written::Skipped | Written::Left => {
                        if keywords.is_empty() {
                            gap += 1;
                        }
                    }
                }
            }
            let mut args = positional;
            args.extend(keywords);
            args.extend(checks);
            args.extend(mistake);
            format!("{}({})", component.name, args.join(", "))
        })
        .boxed()
}

/// One statement.
fn assignment() -> BoxedStrategy<String> {
    prop_oneof![
        6 => (prop::sample::select(NAMES), component_call(1)).prop_map(|(n, c)| format!("{n} = {c}")),
        2 => (prop::sample::select(IDS), component_call(1)).prop_map(|((id, var), c)| {
            if c.contains("id=") {
                return format!("{var} = {c}");
            }
            let c = c[..c.len() - 1].to_owned();
            let sep = if c.ends_with('(') { "" } else { ", " };
            format!("{var} = {c}{sep}id=\"{id}\")")
        }),
        1 => string_literal().prop_map(|s| format!("greeting = {s}")),
        2 => (path(), data_value()).prop_map(|(p, v)| format!("{p} = {v}")),
        1 => Just("x = Unknown(\"a\")".to_owned()),
        4 => (prop::sample::select(NAMES), component_call(0)).prop_map(|(n, c)| format!("{n} = {c}")),
    ]
    .boxed()
}

fn data_value() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        string_literal().boxed(),
        number().boxed(),
        Just("true".to_owned()).boxed(),
        Just("null".to_owned()).boxed(),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(("[a-z]{1,5}", inner), 0..3).prop_map(|e| {
                let e: Vec<String> = e.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", e.join(", "))
            }),
        ]
    })
    .boxed()
}

/// A whole program: maybe a `surface(..)` line, a root, other statements in any order,
/// maybe a deletion or a second surface, maybe broken text.
pub fn program() -> BoxedStrategy<String> {
    let header = prop_oneof![
        3 => Just(String::new()),
        2 => Just("surface(\"s1\")\n".to_owned()),
        1 => Just("surface(\"s1\", sendDataModel=true)\n".to_owned()),
        1 => Just("surface(\"s1\", update=true)\n".to_owned()),
        1 => Just("surface()\n".to_owned()),
    ];
    let root = prop_oneof![
        6 => component_call(2).prop_map(|c| format!("root = {c}")),
        1 => component_call(1).prop_map(|c| {
            if c.contains("id=") {
                return format!("main = {c}");
            }
            let c = c[..c.len() - 1].to_owned();
            let sep = if c.ends_with('(') { "" } else { ", " };
            format!("main = {c}{sep}id=\"root\")")
        }),
        1 => Just(String::new()),
    ];
    let tail = prop_oneof![
        8 => Just(String::new()),
        1 => Just("\ndeleteSurface(\"old\")".to_owned()),
        1 => Just("\nsurface(\"s2\")\nroot = Text(\"second\")".to_owned()),
        1 => Just("\nroot = Column([".to_owned()),
        1 => Just("\nroot = Text(\"unterminated)".to_owned()),
    ];
    (
        header,
        root,
        prop::collection::vec(assignment(), 0..6),
        tail,
        any::<prop::sample::Index>(),
    )
        .prop_map(|(header, root, mut rest, tail, at)| {
            if !root.is_empty() {
                let at = at.index(rest.len() + 1);
                rest.insert(at, root);
            }
            format!("{header}{}{tail}", rest.join("\n"))
        })
        .boxed()
}
