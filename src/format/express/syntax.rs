//! The Express grammar as nom parsers: one small combinator per rule, each returning the
//! node (`tree`) with the byte offset it starts at, so that a later error can point at it.
//!
//! Whitespace, newlines, semicolons and the three comment forms (`#`, `//`, `/* */`) separate
//! tokens and nothing else, so a statement may span lines and several may share one.
//! Trailing commas are admitted in arrays, maps and argument lists.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_until, take_while, take_while1};
use nom::character::complete::one_of;
use nom::character::complete::{char, multispace1, none_of};
use nom::combinator::{cut, map, opt, peek, recognize, value, verify};
use nom::multi::{many0, many1};
use nom::sequence::{delimited, pair, preceded, terminated};
use nom::{IResult, Parser};

use super::tree::{Arg, Call, Expr, ExprKind, Statement};

/// Deepest nesting of calls, arrays and maps; deeper input is an error, not a stack overflow.
pub(crate) const MAX_DEPTH: usize = 64;

/// Where reading stopped and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) at: usize,
    pub(crate) message: String,
}

type Res<'a, T> = IResult<&'a str, T>;

/// Reads a whole block into its statements.
pub(crate) fn block(source: &str) -> Result<Vec<Statement>, SyntaxError> {
    let mut statements = Vec::new();
    let mut rest = skip_between(source);
    while !rest.is_empty() {
        let reader = Reader { len: source.len() };
        match reader.statement(rest) {
            Ok((after, statement)) => {
                statements.push(statement);
                rest = skip_between(after);
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
                return Err(explain(source, source.len() - e.input.len(), e.code));
            }
            Err(nom::Err::Incomplete(_)) => {
                return Err(explain(source, source.len(), nom::error::ErrorKind::Eof));
            }
        }
    }
    if statements.is_empty() {
        return Err(SyntaxError {
            at: 0,
            message: "the block holds no statement".into(),
        });
    }
    Ok(statements)
}

/// The statements of `source` that are complete from byte `from` on, and where the last
/// of them ends: each one read whole and followed by a separator (whitespace or `;`), so
/// that more text cannot make it another statement. A streamed block is read this way
/// statement by statement; what cannot be read yet (or at all) stops the reading, and the
/// whole block's compile reports it.
pub(crate) fn complete_statements(source: &str, from: usize) -> (Vec<Statement>, usize) {
    let mut statements = Vec::new();
    let mut end = from;
    let reader = Reader { len: source.len() };
    let mut rest = skip_between(source.get(from..).unwrap_or_default());
    while let Ok((after, statement)) = reader.statement(rest) {
        let read_to = source.len() - after.len();
        let separated = |c: char| c.is_whitespace() || c == ';';
        let ended = source
            .get(..read_to)
            .is_some_and(|read| read.ends_with(separated));
        if !ended && !after.starts_with(separated) {
            break;
        }
        statements.push(statement);
        end = read_to;
        rest = skip_between(after);
    }
    (statements, end)
}

/// A message for a failure at `at`.
fn explain(source: &str, at: usize, code: nom::error::ErrorKind) -> SyntaxError {
    let rest = source.get(at..).unwrap_or_default();
    let message = if code == nom::error::ErrorKind::TooLarge {
        format!("nested deeper than {MAX_DEPTH} levels")
    } else {
        match rest.chars().next() {
            None => "the block ends inside a statement".to_owned(),
            Some(c) if !admitted(c) => format!("unexpected character '{c}'"),
            Some(_) => {
                let token: String = rest
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(20)
                    .collect();
                let hint = if token.starts_with('+') {
                    " (there are no operators: `+` does not join strings; write each text whole)"
                } else {
                    ""
                };
                format!("cannot read a statement at '{token}'{hint}")
            }
        }
    };
    SyntaxError { at, message }
}

/// Whether any rule of the grammar starts with or contains `c` outside strings.
fn admitted(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_$?=()[]{},:;\"#/*.-+ \t\r\n".contains(c)
}

/// What may come between two statements: separators, and closing brackets no statement
/// opened. No statement starts with `}`, `)` or `]`; Qwen2.5-Coder-1.5B began a line of its
/// repair answers with one (`}$/user = {..}`), as if closing the JSON of the feedback it was
/// shown, so they are read as the noise they are.
fn skip_between(input: &str) -> &str {
    let mut rest = skip(input);
    while let Some(after) = rest.strip_prefix(['}', ')', ']']) {
        rest = skip(after);
    }
    rest
}

/// Whitespace, `;` and comments.
fn skip(input: &str) -> &str {
    match separators(input) {
        Ok((rest, ())) => rest,
        Err(_) => input,
    }
}

fn separators(input: &str) -> Res<'_, ()> {
    value(
        (),
        many0(alt((
            value((), multispace1),
            value((), char(';')),
            line_comment,
            block_comment,
        ))),
    )
    .parse(input)
}

fn line_comment(input: &str) -> Res<'_, ()> {
    value(
        (),
        pair(alt((tag("#"), tag("//"))), take_till(|c| c == '\n')),
    )
    .parse(input)
}

fn block_comment(input: &str) -> Res<'_, ()> {
    value((), (tag("/*"), take_until("*/"), tag("*/"))).parse(input)
}

/// `p` followed by separators.
fn lexeme<'a, O>(
    p: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>> {
    terminated(p, separators)
}

fn identifier(input: &str) -> Res<'_, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))
    .parse(input)
}

/// Words with spaces between them on one line, where a name belongs and followed by what
/// ends one (`=`, `,`, `)`, `]`): `Confirm Booking = Text("Confirm Booking")`, then
/// `Button(Confirm Booking, ..)`, as Qwen2.5-Coder-1.5B wrote a label it took for a name.
/// Nothing else reads two words in a row, so this reads them as the one name they were
/// meant to be, joined by `_` (`Confirm_Booking`). A keyword among them (`true`, `null`,
/// `_`) is not a name, and leaves the words unreadable as before.
fn spaced_name(input: &str) -> Res<'_, String> {
    let word = || {
        verify(identifier, |word: &str| {
            !matches!(word, "true" | "false" | "null" | "_")
        })
    };
    let (rest, (first, more)) =
        (word(), many1(preceded(take_while1(|c| c == ' '), word()))).parse(input)?;
    peek(preceded(take_while(|c| c == ' '), one_of("=,)]"))).parse(rest)?;
    let mut name = first.to_owned();
    for word in more {
        name.push('_');
        name.push_str(word);
    }
    Ok((rest, name))
}

/// `owner.part` where a statement's name belongs: `item1.content = Column([..])`, as
/// Qwen2.5-Coder-1.5B defined what `item1 = Card(content)` holds. Kept as written, dot
/// and all; the compiler reads it as the `content` of `item1` (see `compile::dotted`).
fn dotted_name(input: &str) -> Res<'_, String> {
    map(
        recognize((identifier, char('.'), identifier)),
        str::to_owned,
    )
    .parse(input)
}

/// `$` and `[a-zA-Z0-9_/]*`.
fn path(input: &str) -> Res<'_, &str> {
    preceded(
        char('$'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '/'),
    )
    .parse(input)
}

/// `r"..."`: no escapes.
fn raw_string(input: &str) -> Res<'_, String> {
    map(
        delimited(tag("r\""), take_till(|c| c == '"'), char('"')),
        str::to_owned,
    )
    .parse(input)
}

/// `"""..."""`: newlines kept, escapes as in a standard string.
fn long_string(input: &str) -> Res<'_, String> {
    let (rest, body) =
        delimited(tag("\"\"\""), take_until("\"\"\""), tag("\"\"\"")).parse(input)?;
    Ok((rest, escaped(body)))
}

/// `"..."` with escapes.
fn standard_string(input: &str) -> Res<'_, String> {
    let (rest, body) = delimited(
        char('"'),
        recognize(many0(alt((
            recognize(pair(char('\\'), none_of(""))),
            recognize(none_of("\"\\")),
        )))),
        char('"'),
    )
    .parse(input)?;
    Ok((rest, escaped(body)))
}

/// `body` with its escapes processed as the official grammar processes them: `\n`, `\r`,
/// `\t`, `\\` and `\"`; any other backslash stays as written (`"\d+"` is `\d+`).
fn escaped(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn string(input: &str) -> Res<'_, String> {
    alt((raw_string, long_string, standard_string)).parse(input)
}

/// A JSON number.
fn number(input: &str) -> Res<'_, serde_json::Number> {
    // No exponent, as the official grammar has none: `1e3` does not read as a number.
    let (rest, text) = recognize((
        opt(char('-')),
        take_while1(|c: char| c.is_ascii_digit()),
        opt(pair(char('.'), take_while1(|c: char| c.is_ascii_digit()))),
    ))
    .parse(input)?;
    let number = if text.contains('.') {
        text.parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
    } else {
        // `01` is 1, as the official reader reads it.
        text.parse::<i64>().ok().map(serde_json::Number::from)
    };
    match number {
        Some(n) => Ok((rest, n)),
        None => Err(nom::Err::Failure(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Float,
        ))),
    }
}

/// The parsers that need the block's length (for offsets) and the nesting depth.
#[derive(Clone, Copy)]
struct Reader {
    len: usize,
}

impl Reader {
    fn at(self, input: &str) -> usize {
        self.len - input.len()
    }

    fn statement<'a>(self, input: &'a str) -> Res<'a, Statement> {
        alt((
            map(
                (lexeme(path), lexeme(char('=')), cut(|i| self.expr(i, 0))),
                |(path, _, value)| Statement::Data {
                    path: path.to_owned(),
                    value,
                },
            ),
            map(
                (
                    lexeme(alt((
                        dotted_name,
                        spaced_name,
                        map(identifier, str::to_owned),
                    ))),
                    lexeme(char('=')),
                    cut(|i| self.expr(i, 0)),
                ),
                |(name, _, value)| Statement::Assign { name, value },
            ),
            map(|i| self.call(i, 0), Statement::Call),
        ))
        .parse(input)
    }

    fn expr<'a>(self, input: &'a str, depth: usize) -> Res<'a, Expr> {
        if depth > MAX_DEPTH {
            return Err(nom::Err::Failure(nom::error::Error::new(
                input,
                nom::error::ErrorKind::TooLarge,
            )));
        }
        let at = self.at(input);
        let (rest, kind) = lexeme(alt((
            map(string, ExprKind::Str),
            map(number, ExprKind::Number),
            map(path, |p| ExprKind::Path(p.to_owned())),
            map(|i| self.check(i, depth + 1), ExprKind::Check),
            map(|i| self.array(i, depth + 1), ExprKind::Array),
            map(|i| self.map(i, depth + 1), ExprKind::Map),
            map(|i| self.call(i, depth + 1), ExprKind::Call),
            map(spaced_name, ExprKind::Name),
            map(identifier, |name| match name {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                "null" => ExprKind::Null,
                "_" => ExprKind::Skip,
                other => ExprKind::Name(other.to_owned()),
            }),
        )))
        .parse(input)?;
        Ok((rest, Expr { at, kind }))
    }

    /// `name(args)`, `args` possibly empty, with a trailing comma allowed.
    fn call<'a>(self, input: &'a str, depth: usize) -> Res<'a, Call> {
        let at = self.at(input);
        let (rest, (name, args)) = pair(
            lexeme(identifier),
            preceded(
                lexeme(char('(')),
                cut(terminated(|i| self.args(i, depth), char(')'))),
            ),
        )
        .parse(input)?;
        let name = name.to_owned();
        Ok((rest, Call { at, name, args }))
    }

    fn args<'a>(self, input: &'a str, depth: usize) -> Res<'a, Vec<Arg>> {
        self.list(input, |i| self.arg(i, depth))
    }

    fn arg<'a>(self, input: &'a str, depth: usize) -> Res<'a, Arg> {
        alt((
            map(
                (
                    lexeme(identifier),
                    lexeme(terminated(char('='), nom::combinator::not(char('=')))),
                    |i| self.expr(i, depth),
                ),
                |(name, _, value)| Arg {
                    name: Some(name.to_owned()),
                    value,
                },
            ),
            map(|i| self.expr(i, depth), |value| Arg { name: None, value }),
        ))
        .parse(input)
    }

    /// `item (, item)* ,?` or nothing.
    fn list<'a, T>(
        self,
        input: &'a str,
        mut item: impl FnMut(&'a str) -> Res<'a, T>,
    ) -> Res<'a, Vec<T>> {
        let mut items = Vec::new();
        let mut rest = input;
        loop {
            match item(rest) {
                Ok((after, value)) => {
                    items.push(value);
                    match lexeme(char::<&str, nom::error::Error<&str>>(',')).parse(after) {
                        Ok((after_comma, _)) => rest = after_comma,
                        Err(_) => return Ok((after, items)),
                    }
                }
                Err(nom::Err::Error(_)) => return Ok((rest, items)),
                Err(e) => return Err(e),
            }
        }
    }

    fn check<'a>(self, input: &'a str, depth: usize) -> Res<'a, Call> {
        let at = self.at(input);
        let (rest, (name, args)) = preceded(
            char('?'),
            pair(
                identifier,
                opt(preceded(
                    pair(separators, lexeme(char('('))),
                    cut(terminated(|i| self.args(i, depth), char(')'))),
                )),
            ),
        )
        .parse(input)?;
        let name = name.to_owned();
        let args = args.unwrap_or_default();
        Ok((rest, Call { at, name, args }))
    }

    fn array<'a>(self, input: &'a str, depth: usize) -> Res<'a, Vec<Expr>> {
        preceded(
            lexeme(char('[')),
            cut(terminated(
                |i| self.list(i, |j| self.expr(j, depth)),
                char(']'),
            )),
        )
        .parse(input)
    }

    fn map<'a>(self, input: &'a str, depth: usize) -> Res<'a, Vec<(String, Expr)>> {
        let entry = |i: &'a str| {
            map(
                (
                    lexeme(alt((string, map(identifier, str::to_owned)))),
                    lexeme(char(':')),
                    |j| self.expr(j, depth),
                ),
                |(key, _, value)| (key, value),
            )
            .parse(i)
        };
        preceded(
            lexeme(char('{')),
            cut(terminated(|i| self.list(i, entry), char('}'))),
        )
        .parse(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(source: &str) -> Statement {
        let mut statements = block(source).unwrap();
        assert_eq!(statements.len(), 1, "{statements:?}");
        statements.remove(0)
    }

    #[test]
    fn an_assignment_reads_its_call_and_arguments() {
        let Statement::Assign { name, value } = one(r#"root = Text("Hi", variant="body",)"#) else {
            panic!("not an assignment");
        };
        assert_eq!(name, "root");
        let ExprKind::Call(call) = value.kind else {
            panic!("not a call");
        };
        assert_eq!(call.name, "Text");
        assert_eq!(call.args.len(), 2);
        assert_eq!(call.args[1].name.as_deref(), Some("variant"));
        assert_eq!(value.at, 7);
    }

    #[test]
    fn comments_semicolons_and_newlines_only_separate() {
        let statements =
            block("# a\nroot /* b */ =\n Card(\n body\n); // c\nbody = Text(\"x\")").unwrap();
        assert_eq!(statements.len(), 2);
    }

    #[test]
    fn strings_raw_long_and_escaped() {
        let text = |source: &str| match one(&format!("x = {source}")) {
            Statement::Assign {
                value:
                    Expr {
                        kind: ExprKind::Str(s),
                        ..
                    },
                ..
            } => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(text(r#"r"C:\t""#), r"C:\t");
        assert_eq!(text("\"\"\"a\n\"b\"\"\""), "a\n\"b");
        assert_eq!(text(r#""""a\tb""""#), "a\tb");
        // Only \n \r \t \\ and \" are escapes; any other backslash stays.
        assert_eq!(text(r#""a\"b\nc\u00e9\d""#), "a\"b\nc\\u00e9\\d");
    }

    #[test]
    fn paths_checks_maps_and_literals() {
        let Statement::Data { path, value } =
            one(r#"$/a/b = {k: [1, -2.5, true, null, _], "x-y": ?req, z: ?regex("p", "m")}"#)
        else {
            panic!("not data");
        };
        assert_eq!(path, "/a/b");
        let ExprKind::Map(entries) = value.kind else {
            panic!()
        };
        assert_eq!(entries[1].0, "x-y");
        assert!(matches!(&entries[1].1.kind, ExprKind::Check(c) if c.args.is_empty()));
        assert!(matches!(&entries[2].1.kind, ExprKind::Check(c) if c.args.len() == 2));
    }

    #[test]
    fn errors_point_at_where_reading_stopped() {
        let err = block("root = Column(@rep)").unwrap_err();
        assert_eq!(err.message, "unexpected character '@'");
        assert_eq!(err.at, 14);
        assert!(block("root = Text(\"Hello\"").is_err());
        assert!(block("root = TextField(,)").is_err());
        assert!(block("").is_err());
        assert!(block("  # nothing\n").is_err());
    }

    #[test]
    fn words_with_spaces_where_a_name_belongs_read_as_one_name() {
        let statements =
            block("b = Button(Confirm  Booking, \"primary\")\nConfirm Booking = Text(\"x\")")
                .unwrap();
        let Statement::Assign { value, .. } = &statements[0] else {
            panic!("{statements:?}")
        };
        let ExprKind::Call(call) = &value.kind else {
            panic!("{value:?}")
        };
        assert!(matches!(&call.args[0].value.kind, ExprKind::Name(n) if n == "Confirm_Booking"));
        assert!(
            matches!(&statements[1], Statement::Assign { name, .. } if name == "Confirm_Booking")
        );
        // Only where a name ends: two words before anything else stay unreadable, and so
        // do words across a line break or with a keyword among them.
        assert!(block("x = Text(Confirm Booking \"y\")").is_err());
        assert!(block("x = Column([a\nb])").is_err());
        assert!(block("x = Text(a true)").is_err());
    }

    #[test]
    fn closing_brackets_between_statements_are_noise_but_not_inside_one() {
        let statements =
            block("a = Text(\"x\")\n}$/user = {name: \"Sam\"}\n)] b = Text(\"y\")").unwrap();
        assert_eq!(statements.len(), 3, "{statements:?}");
        assert!(matches!(&statements[1], Statement::Data { path, .. } if path == "/user"));
        assert!(
            block("a = Text(\"x\"))").is_ok(),
            "one too many, after a statement"
        );
        assert!(block("a = Text(}\"x\")").is_err(), "inside a statement");
    }

    #[test]
    fn hostile_nesting_is_an_error_not_an_overflow() {
        let deep = format!("x = {}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(block(&deep).unwrap_err().message.contains("nested deeper"));
    }
}
