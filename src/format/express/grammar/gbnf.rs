//! A reader of the GBNF this module writes, for its tests: it parses the grammar's text
//! (as a model server would), says whether a string is in the language, and draws random
//! strings from it. Only what `write` uses: rules, alternatives, sequences, string
//! literals with escapes, character classes (negated, ranges, escapes), groups and the
//! repetitions `*`, `+`, `?` and `{m,n}`.

use std::collections::{BTreeSet, HashMap};

/// A small random source (splitmix64), seeded by the test, so that a failing string can
/// be drawn again from its seed.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

/// An element of a rule's body.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Literal(Vec<char>),
    /// A character class: `negated`, and its single characters and ranges.
    Class(bool, Vec<(char, char)>),
    Rule(usize),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, usize, Option<usize>),
}

/// A parsed grammar: rule bodies by index, `root` first.
#[derive(Debug)]
pub(super) struct Gbnf {
    bodies: Vec<Node>,
}

impl Gbnf {
    /// Parses `text`, panicking (this is a test) with the rule that does not read.
    pub(super) fn parse(text: &str) -> Gbnf {
        let mut names: Vec<String> = Vec::new();
        let mut sources: Vec<&str> = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line
                .split_once(" ::= ")
                .unwrap_or_else(|| panic!("not a rule: {line}"));
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "rule name {name:?}"
            );
            assert!(!names.contains(&name.to_owned()), "rule {name} twice");
            names.push(name.to_owned());
            sources.push(body);
        }
        let mut bodies = Vec::new();
        for (name, source) in names.iter().zip(&sources) {
            let chars: Vec<char> = source.chars().collect();
            let mut at = 0;
            let node = alternatives(&chars, &mut at, &names);
            skip_space(&chars, &mut at);
            assert_eq!(at, chars.len(), "rule {name}: unread from {at}: {source}");
            bodies.push(node);
        }
        let root = names.iter().position(|n| n == "root").expect("a root rule");
        assert_eq!(root, 0, "root comes first");
        Gbnf { bodies }
    }

    /// Whether `rule` derives the whole of `text`.
    pub(super) fn accepts(&self, rule: usize, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let mut memo = HashMap::new();
        self.ends(&Node::Rule(rule), &chars, 0, &mut memo)
            .contains(&chars.len())
    }

    /// Every position at which `node`, starting at `at`, can end.
    fn ends(
        &self,
        node: &Node,
        text: &[char],
        at: usize,
        memo: &mut HashMap<(usize, usize), BTreeSet<usize>>,
    ) -> BTreeSet<usize> {
        match node {
            Node::Literal(chars) => {
                let end = at + chars.len();
                if text.get(at..end) == Some(chars.as_slice()) {
                    BTreeSet::from([end])
                } else {
                    BTreeSet::new()
                }
            }
            Node::Class(negated, ranges) => match text.get(at) {
                Some(c) if in_class(*c, *negated, ranges) => BTreeSet::from([at + 1]),
                _ => BTreeSet::new(),
            },
            Node::Rule(index) => {
                if let Some(known) = memo.get(&(*index, at)) {
                    return known.clone();
                }
                // No rule of ours is left-recursive: an empty set guards a cycle anyway.
                memo.insert((*index, at), BTreeSet::new());
                let out = self.ends(&self.bodies[*index], text, at, memo);
                memo.insert((*index, at), out.clone());
                out
            }
            Node::Seq(items) => {
                let mut here = BTreeSet::from([at]);
                for item in items {
                    let mut next = BTreeSet::new();
                    for position in here {
                        next.extend(self.ends(item, text, position, memo));
                    }
                    if next.is_empty() {
                        return next;
                    }
                    here = next;
                }
                here
            }
            Node::Alt(items) => {
                let mut out = BTreeSet::new();
                for item in items {
                    out.extend(self.ends(item, text, at, memo));
                }
                out
            }
            Node::Repeat(item, min, max) => {
                let mut out = BTreeSet::new();
                let mut frontier = BTreeSet::from([at]);
                let mut seen = BTreeSet::new();
                for count in 0.. {
                    if count >= *min {
                        out.extend(frontier.iter().copied());
                    }
                    if max.is_some_and(|max| count >= max) || frontier.is_empty() {
                        break;
                    }
                    let mut next = BTreeSet::new();
                    for position in &frontier {
                        for end in self.ends(item, text, *position, memo) {
                            // A repetition that reads nothing, or comes back to a position
                            // once its minimum is reached, adds nothing new.
                            if end != *position && (count < *min || seen.insert(end)) {
                                next.insert(end);
                            }
                        }
                    }
                    frontier = next;
                }
                out
            }
        }
    }

    /// A random string of `rule`'s language. Past `budget` nested rules every choice takes
    /// the shortest way out, so the string is finite.
    pub(super) fn sample(&self, rule: usize, rng: &mut Rng, budget: usize) -> String {
        let shortest = self.shortest();
        let mut out = String::new();
        self.draw(&Node::Rule(rule), rng, budget, &shortest, &mut out);
        out
    }

    fn draw(
        &self,
        node: &Node,
        rng: &mut Rng,
        budget: usize,
        shortest: &[usize],
        out: &mut String,
    ) {
        match node {
            Node::Literal(chars) => out.extend(chars),
            Node::Class(negated, ranges) => out.push(pick_char(*negated, ranges, rng)),
            Node::Rule(index) => {
                self.draw(
                    &self.bodies[*index],
                    rng,
                    budget.saturating_sub(1),
                    shortest,
                    out,
                );
            }
            Node::Seq(items) => {
                for item in items {
                    self.draw(item, rng, budget, shortest, out);
                }
            }
            Node::Alt(items) => {
                let item = if budget == 0 {
                    items
                        .iter()
                        .min_by_key(|item| length(item, shortest))
                        .expect("an alternative")
                } else {
                    &items[rng.range(0, items.len() as u64 - 1) as usize]
                };
                self.draw(item, rng, budget, shortest, out);
            }
            Node::Repeat(item, min, max) => {
                let most = max.unwrap_or(min + 3).min(min + 3);
                let count = if budget == 0 {
                    *min
                } else {
                    rng.range(*min as u64, most as u64) as usize
                };
                for _ in 0..count {
                    self.draw(item, rng, budget, shortest, out);
                }
            }
        }
    }

    /// The length of each rule's shortest string (a fixpoint over the rules).
    fn shortest(&self) -> Vec<usize> {
        let mut known = vec![usize::MAX; self.bodies.len()];
        loop {
            let mut changed = false;
            for (index, body) in self.bodies.iter().enumerate() {
                let len = length(body, &known);
                if len < known[index] {
                    known[index] = len;
                    changed = true;
                }
            }
            if !changed {
                assert!(
                    known.iter().all(|l| *l != usize::MAX),
                    "a rule derives no finite string"
                );
                return known;
            }
        }
    }
}

/// The shortest string `node` derives, given each rule's (`usize::MAX`: not known yet).
fn length(node: &Node, rules: &[usize]) -> usize {
    match node {
        Node::Literal(chars) => chars.len(),
        Node::Class(..) => 1,
        Node::Rule(index) => rules[*index],
        Node::Seq(items) => items
            .iter()
            .map(|i| length(i, rules))
            .fold(0, usize::saturating_add),
        Node::Alt(items) => items.iter().map(|i| length(i, rules)).min().unwrap_or(0),
        Node::Repeat(item, min, _) => length(item, rules).saturating_mul(*min),
    }
}

fn in_class(c: char, negated: bool, ranges: &[(char, char)]) -> bool {
    ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != negated
}

/// A character of the class: printable ASCII, a newline, or a few others, as a model writes.
fn pick_char(negated: bool, ranges: &[(char, char)], rng: &mut Rng) -> char {
    if !negated {
        let (lo, hi) = ranges[rng.range(0, ranges.len() as u64 - 1) as usize];
        return char::from_u32(
            rng.range(u64::from(u32::from(lo)), u64::from(u32::from(hi))) as u32,
        )
        .unwrap_or(lo);
    }
    loop {
        let c = match rng.range(0, 19) {
            0 => '\n',
            1 => 'é',
            2 => '€',
            _ => char::from(rng.range(0x20, 0x7e) as u8),
        };
        if in_class(c, negated, ranges) {
            return c;
        }
    }
}

fn skip_space(chars: &[char], at: &mut usize) {
    while chars.get(*at).is_some_and(|c| *c == ' ') {
        *at += 1;
    }
}

fn alternatives(chars: &[char], at: &mut usize, names: &[String]) -> Node {
    let mut items = vec![sequence(chars, at, names)];
    loop {
        skip_space(chars, at);
        if chars.get(*at) == Some(&'|') {
            *at += 1;
            items.push(sequence(chars, at, names));
        } else {
            break;
        }
    }
    if items.len() == 1 {
        items.remove(0)
    } else {
        Node::Alt(items)
    }
}

fn sequence(chars: &[char], at: &mut usize, names: &[String]) -> Node {
    let mut items = Vec::new();
    loop {
        skip_space(chars, at);
        let Some(&c) = chars.get(*at) else { break };
        let item = match c {
            '"' => {
                *at += 1;
                let mut text = Vec::new();
                loop {
                    match chars.get(*at) {
                        Some('"') => break,
                        Some('\\') => {
                            *at += 1;
                            text.push(escape(chars, at));
                        }
                        Some(c) => {
                            text.push(*c);
                            *at += 1;
                        }
                        None => panic!("an open literal"),
                    }
                }
                *at += 1;
                Node::Literal(text)
            }
            '[' => {
                *at += 1;
                let negated = chars.get(*at) == Some(&'^');
                if negated {
                    *at += 1;
                }
                let mut ranges = Vec::new();
                while chars.get(*at) != Some(&']') {
                    let lo = class_char(chars, at);
                    let hi = if chars.get(*at) == Some(&'-') && chars.get(*at + 1) != Some(&']') {
                        *at += 1;
                        class_char(chars, at)
                    } else {
                        lo
                    };
                    ranges.push((lo, hi));
                }
                *at += 1;
                Node::Class(negated, ranges)
            }
            '(' => {
                *at += 1;
                let inner = alternatives(chars, at, names);
                skip_space(chars, at);
                assert_eq!(chars.get(*at), Some(&')'), "a group closes");
                *at += 1;
                inner
            }
            c if c.is_ascii_alphanumeric() || c == '-' => {
                let start = *at;
                while chars
                    .get(*at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '-')
                {
                    *at += 1;
                }
                let name: String = chars[start..*at].iter().collect();
                let index = names
                    .iter()
                    .position(|n| *n == name)
                    .unwrap_or_else(|| panic!("undefined rule {name}"));
                Node::Rule(index)
            }
            _ => break,
        };
        items.push(postfix(chars, at, item));
    }
    if items.len() == 1 {
        items.remove(0)
    } else {
        Node::Seq(items)
    }
}

fn postfix(chars: &[char], at: &mut usize, item: Node) -> Node {
    match chars.get(*at) {
        Some('*') => {
            *at += 1;
            Node::Repeat(Box::new(item), 0, None)
        }
        Some('+') => {
            *at += 1;
            Node::Repeat(Box::new(item), 1, None)
        }
        Some('?') => {
            *at += 1;
            Node::Repeat(Box::new(item), 0, Some(1))
        }
        Some('{') => {
            let close = chars[*at..]
                .iter()
                .position(|c| *c == '}')
                .expect("a closed repetition")
                + *at;
            let inside: String = chars[*at + 1..close].iter().collect();
            *at = close + 1;
            let (min, max) = match inside.split_once(',') {
                Some((min, "")) => (min.parse().expect("a number"), None),
                Some((min, max)) => (
                    min.parse().expect("a number"),
                    Some(max.parse().expect("a number")),
                ),
                None => {
                    let n = inside.parse().expect("a number");
                    (n, Some(n))
                }
            };
            Node::Repeat(Box::new(item), min, max)
        }
        _ => item,
    }
}

fn class_char(chars: &[char], at: &mut usize) -> char {
    match chars.get(*at) {
        Some('\\') => {
            *at += 1;
            escape(chars, at)
        }
        Some(c) => {
            *at += 1;
            *c
        }
        None => panic!("an open class"),
    }
}

/// The character after a backslash.
fn escape(chars: &[char], at: &mut usize) -> char {
    let c = chars.get(*at).copied().expect("an escape");
    *at += 1;
    match c {
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'x' => {
            let hex: String = chars[*at..*at + 2].iter().collect();
            *at += 2;
            char::from_u32(u32::from_str_radix(&hex, 16).expect("hex")).expect("a char")
        }
        other => other,
    }
}
