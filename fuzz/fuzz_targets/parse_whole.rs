//! Parses arbitrary input in one call, wrapped and unwrapped; it must never panic.
#![no_main]

use a2ui_agent::parser::{ParserConfig, parse_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse_with(&text, ParserConfig::default());
    let _ = parse_with(&text, ParserConfig::default().wrapped(false));
});
