//! GBNF, the grammar notation llama.cpp's server samples under (and xgrammar reads): what
//! the two grammars this crate writes share. One describes Express answers for a catalog
//! set (`format::express`), the other a tool call a model must make (`llm`).

use std::fmt::Write as _;

/// `text` as a GBNF string literal: quotes and backslashes escaped, control characters as
/// `\n`, `\r`, `\t` or `\xHH`.
pub(crate) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_literal_escapes_what_gbnf_reads_as_syntax() {
        assert_eq!(super::literal("a\"b\\c\nd\u{1}é"), r#""a\"b\\c\nd\x01é""#);
    }
}
