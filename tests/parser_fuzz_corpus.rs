//! Replays the fuzz seed corpus (`fuzz/seeds/`) and any corpus or crash artifacts present
//! locally (`fuzz/corpus/*/`, `fuzz/artifacts/*/`) through the parser, the way the fuzz
//! targets do: whole, and chunked with the first byte choosing the chunk size. None may panic,
//! and chunking may not change whether an input parses.

use std::path::Path;

use a2ui_agent::parser::{ParserConfig, StreamParser, parse_with};

fn replay(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let whole = parse_with(&text, ParserConfig::default()).is_ok();
    let _ = parse_with(&text, ParserConfig::default().wrapped(false));
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let rest = String::from_utf8_lossy(rest);
    let size = usize::from(first % 32) + 1;
    let mut parser = StreamParser::new(ParserConfig::default());
    let mut start = 0;
    while start < rest.len() {
        let mut end = (start + size).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        parser.feed(&rest[start..end]);
        start = end;
    }
    let chunked = parser.finish().is_ok();
    let rest_whole = parse_with(&rest, ParserConfig::default()).is_ok();
    assert_eq!(chunked, rest_whole, "chunking changed the verdict");
    let _ = whole;
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn the_fuzz_corpus_replays_without_a_panic() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let seeds = files_under(&fuzz.join("seeds"));
    assert!(seeds.len() >= 5, "the seed corpus is missing");
    let local = [fuzz.join("corpus"), fuzz.join("artifacts")]
        .iter()
        .flat_map(|d| files_under(d))
        .collect::<Vec<_>>();
    for path in seeds.iter().chain(&local) {
        let data = std::fs::read(path).unwrap();
        eprintln!("{}", path.display());
        replay(&data);
    }
    println!(
        "replayed {} seeds and {} local corpus files",
        seeds.len(),
        local.len()
    );
}
