//! RFC 8785 JSON Canonicalization Scheme (JCS): the one byte string a JSON value signs as.
//!
//! A signature covers bytes, and two JSON writers rarely agree on bytes: key order, number
//! spelling and string escapes differ (serde_json writes `1e21` as `1e21`, JavaScript as
//! `1e+21`). JCS fixes all three: object members sorted by the UTF-16 code units of their
//! names, numbers written as ECMAScript's `Number.prototype.toString` writes them, strings
//! escaped only where JSON requires (`"`, `\` and the C0 controls, with the short escapes
//! where they exist), everything else as UTF-8; no whitespace.
//!
//! Nesting is bounded ([`MAX_DEPTH`], as the Python SDK's canonicalizer): the value comes
//! from whoever wrote the card.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// The deepest nesting of arrays and objects canonicalized (the outermost counts 1).
pub(crate) const MAX_DEPTH: usize = 128;

/// Integers up to ±(2^53 − 1) are all exact doubles and are written as they are.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Why a value has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum JcsError {
    /// Arrays and objects nest deeper than [`MAX_DEPTH`].
    #[error("nesting deeper than {MAX_DEPTH}")]
    TooDeep,
}

/// The canonical (RFC 8785) text of `value`; its UTF-8 bytes are what gets signed.
///
/// # Errors
///
/// [`JcsError::TooDeep`] for nesting deeper than [`MAX_DEPTH`].
pub(crate) fn canonicalize(value: &Value) -> Result<String, JcsError> {
    let mut out = String::new();
    write_value(value, &mut out, 1)?;
    Ok(out)
}

fn write_value(value: &Value, out: &mut String, depth: usize) -> Result<(), JcsError> {
    if matches!(value, Value::Array(_) | Value::Object(_)) && depth > MAX_DEPTH {
        return Err(JcsError::TooDeep);
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(number, out),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out, depth + 1)?;
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_by(|a, b| utf16_order(a.0, b.0));
            out.push('{');
            for (i, (name, member)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_value(member, out, depth + 1)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// RFC 8785 §3.2.3: member names compare as sequences of UTF-16 code units (which differs
/// from code point order for characters beyond the BMP).
fn utf16_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// RFC 8785 §3.2.2.2: `"` and `\` escaped, the C0 controls as `\b \t \n \f \r` or
/// `\u00xx` (lowercase hex), everything else as it is.
fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Integers within ±(2^53 − 1) as they are; any other number as the IEEE 754 double nearest
/// to it (RFC 8785 reads every JSON number as one, as JavaScript does), which is how
/// ECMAScript writes it.
fn write_number(number: &Number, out: &mut String) {
    match (number.as_u64(), number.as_i64()) {
        (Some(n), _) if n <= MAX_SAFE_INTEGER => out.push_str(&n.to_string()),
        (_, Some(n)) if n.unsigned_abs() <= MAX_SAFE_INTEGER => out.push_str(&n.to_string()),
        _ => out.push_str(&ecmascript_number(number.as_f64().unwrap_or(f64::NAN))),
    }
}

/// `n` as ECMAScript's `Number::toString(n)` (ECMA-262 7.1.12.1) writes it: the shortest
/// digits that read back as `n`, positional from 1e-6 up to 1e21, else `d.ddde±x`. JSON
/// has no NaN or infinity; were one given, it is written `null` as `JSON.stringify` does.
pub(crate) fn ecmascript_number(n: f64) -> String {
    if !n.is_finite() {
        return "null".into();
    }
    if n == 0.0 {
        return "0".into();
    }
    if n < 0.0 {
        return format!("-{}", ecmascript_number(-n));
    }
    let (digits, exponent) = shortest_digits(n);
    let k = digits.len() as i32;
    // n = 0.d1d2...dk × 10^point
    let point = exponent + 1;
    if k <= point && point <= 21 {
        let zeros = "0".repeat((point - k) as usize);
        format!("{digits}{zeros}")
    } else if 0 < point && point <= 21 {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{whole}.{fraction}")
    } else if -6 < point && point <= 0 {
        let zeros = "0".repeat((-point) as usize);
        format!("0.{zeros}{digits}")
    } else {
        let e = point - 1;
        let sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        format!("{first}{dot}{rest}e{sign}{}", e.unsigned_abs())
    }
}

/// The shortest digits that read back as `n` (positive, finite) and the decimal exponent of
/// the first: `n ≈ d.ddd × 10^exponent`. Of several such digit strings, ECMAScript takes the
/// one nearest `n`, and of two as near the even one. Rust's `{:e}` finds the shortest length
/// but may take the other one (1424953923781206.25 gives "…206.3" where JavaScript writes
/// "…206.2"); its fixed-precision form rounds `n` exactly, ties to even, which is
/// ECMAScript's choice whenever that reads back as `n` too.
fn shortest_digits(n: f64) -> (String, i32) {
    let split = |text: &str| -> (String, i32) {
        let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
        let digits = mantissa.chars().filter(char::is_ascii_digit).collect();
        (digits, exponent.parse().unwrap_or(0))
    };
    let shortest = format!("{n:e}");
    let (digits, _) = split(&shortest);
    let nearest = format!("{n:.*e}", digits.len().saturating_sub(1));
    if nearest.parse::<f64>() == Ok(n) {
        split(&nearest)
    } else {
        split(&shortest)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn canon(text: &str) -> String {
        canonicalize(&serde_json::from_str(text).unwrap()).unwrap()
    }

    #[test]
    fn the_rfc_example_canonicalizes_as_the_rfc_shows() {
        // RFC 8785 §3.2.2 (the input) and §3.2.4 (the output).
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        assert_eq!(
            canon(input),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    #[test]
    fn member_names_sort_by_utf16_code_units_as_the_rfc_shows() {
        // RFC 8785 §3.2.3: the emoji (a surrogate pair, D83D) sorts before U+FB33.
        let input = r#"{"\u20ac": "Euro Sign", "\r": "Carriage Return",
            "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
            "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
            "\u00f6": "Latin Small Letter O With Diaeresis"}"#;
        let names: Vec<String> =
            serde_json::from_str::<serde_json::Map<String, Value>>(&canon(input))
                .unwrap()
                .keys()
                .cloned()
                .collect();
        let text = canon(input);
        let order: Vec<usize> = ["\\r", "\"1\"", "\u{80}", "ö", "€", "😀", "\u{fb33}"]
            .iter()
            .map(|name| text.find(name).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert_eq!(names.len(), 7);
    }

    #[test]
    fn numbers_are_written_as_ecmascript_writes_them() {
        // RFC 8785 Appendix B: IEEE 754 bit patterns and their JCS text.
        let table: [(u64, &str); 22] = [
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            // Exactly between two shortest forms (…206.25): the even last digit, as
            // `node -e 'console.log(1424953923781206.25)'` prints.
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for (bits, expected) in table {
            assert_eq!(
                ecmascript_number(f64::from_bits(bits)),
                expected,
                "{bits:#x}"
            );
        }
    }

    #[test]
    fn strings_escape_only_what_json_requires() {
        let value = json!("tab\there \u{1} \u{1f} \u{7f} é \"q\" back\\slash / <>");
        assert_eq!(
            canonicalize(&value).unwrap(),
            "\"tab\\there \\u0001 \\u001f \u{7f} é \\\"q\\\" back\\\\slash / <>\""
        );
    }

    #[test]
    fn nesting_past_the_limit_is_an_error_not_a_crash() {
        let mut value = json!(1);
        for _ in 0..MAX_DEPTH {
            value = json!([value]);
        }
        assert!(canonicalize(&value).is_ok());
        let deeper = json!({ "a": value });
        assert_eq!(canonicalize(&deeper), Err(JcsError::TooDeep));
    }

    #[test]
    fn integers_past_two_to_the_53_are_written_as_the_nearest_double() {
        let canon = |value: Value| canonicalize(&value).unwrap();
        assert_eq!(canon(json!(9007199254740991_u64)), "9007199254740991");
        assert_eq!(canon(json!(-9007199254740991_i64)), "-9007199254740991");
        // What JavaScript's JSON.parse then String() gives for each.
        assert_eq!(canon(json!(9007199254740993_u64)), "9007199254740992");
        assert_eq!(canon(json!(i64::MIN)), "-9223372036854776000");
        assert_eq!(canon(json!(u64::MAX)), "18446744073709552000");
    }

    /// Any JSON value: nested arrays and objects of text, numbers, booleans and null.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-(1i64 << 53) + 1..(1i64 << 53)).prop_map(|n| json!(n)),
            any::<f64>()
                .prop_filter("finite", |n| n.is_finite())
                .prop_map(|n| json!(n)),
            "\\PC{0,12}".prop_map(Value::String),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn canonical_text_reads_back_as_the_same_value(value in any_json()) {
            let text = canonicalize(&value).unwrap();
            let back: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(numbers_as_f64(&back), numbers_as_f64(&value));
        }

        #[test]
        fn canonicalizing_is_idempotent_and_whitespace_free(value in any_json()) {
            let text = canonicalize(&value).unwrap();
            let again = canonicalize(&serde_json::from_str(&text).unwrap()).unwrap();
            prop_assert_eq!(&again, &text);
        }

        #[test]
        fn member_order_does_not_change_the_canonical_text(
            members in prop::collection::btree_map("\\PC{0,6}", any::<i32>(), 0..8)
        ) {
            let forward: serde_json::Map<String, Value> =
                members.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            let backward: serde_json::Map<String, Value> =
                members.iter().rev().map(|(k, v)| (k.clone(), json!(v))).collect();
            let names: Vec<&String> = forward.keys().collect();
            let text = canonicalize(&Value::Object(forward.clone())).unwrap();
            prop_assert_eq!(&text, &canonicalize(&Value::Object(backward)).unwrap());
            // ...and the members come out in UTF-16 order.
            let mut sorted = names.clone();
            sorted.sort_by(|a, b| utf16_order(a, b));
            let back: Vec<String> = sorted.iter().map(|n| {
                let mut quoted = String::new();
                write_string(n, &mut quoted);
                quoted
            }).collect();
            let mut at = 0;
            for quoted in back {
                let found = text[at..].find(&quoted);
                prop_assert!(found.is_some(), "{} not after {} in {}", quoted, at, text);
                at += found.unwrap_or(0) + quoted.len();
            }
        }

        #[test]
        fn every_double_is_written_in_its_shortest_round_trip_form(n in any::<f64>()) {
            prop_assume!(n.is_finite());
            let text = ecmascript_number(n);
            let back: f64 = text.parse().unwrap();
            prop_assert_eq!(back, if n == 0.0 { 0.0 } else { n });
            // ECMAScript's shape: no "+" in a positional number, exponent only outside
            // [1e-6, 1e21), never a trailing ".0".
            let magnitude = n.abs();
            prop_assert_eq!(text.contains('e'), magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude));
            prop_assert!(!text.ends_with(".0") && !text.contains(".e"), "{}", text);
        }
    }

    /// `value` with every number as an f64, to compare across integer/float spellings.
    fn numbers_as_f64(value: &Value) -> Value {
        match value {
            Value::Number(n) => json!(n.as_f64()),
            Value::Array(items) => Value::Array(items.iter().map(numbers_as_f64).collect()),
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), numbers_as_f64(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}
