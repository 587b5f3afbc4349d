//! `a2ui-agent parse`: run the streaming parser over a file, as the server does over a model's
//! output, and print each emission as one JSON line.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::format::express::Express;
use a2ui_agent::parser::{EmitMode, ParseError, ParsedPart, ParserConfig, StreamParser};
use a2ui_agent::processor::RequestProcessor;
use serde_json::{Value, json};

/// Arguments of `a2ui-agent parse`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Model output to parse (stdin when absent).
    file: Option<PathBuf>,
    /// Feed the input in chunks of this many bytes (a character is never split).
    #[arg(long, value_name = "N", conflicts_with = "chunks")]
    chunk_size: Option<usize>,
    /// A JSON array of strings to feed in order, instead of FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    chunks: Option<PathBuf>,
    /// Properties whose string values may be closed early, e.g. `text,value`.
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    progressive_keys: Vec<String>,
    /// Re-send each changed message whole instead of only what changed.
    #[arg(long)]
    cumulative: bool,
    /// Print to stderr the parse time and throughput, and serde_json's time over the same
    /// JSON blocks.
    #[arg(long)]
    time: bool,
    /// Check the messages as the server does for this protocol version (v0.8, v0.9, v0.9.1,
    /// v1.0): the catalog validator decides when a message still arriving is ready, and the
    /// finished messages are validated; each problem is printed as `{"invalid": {..}}`.
    #[arg(long = "version", value_name = "VERSION", value_parser = crate::parse_version)]
    protocol: Option<ProtocolVersion>,
    /// A catalog file the agent offers (`basic`: the version's basic catalog; default: the
    /// basic catalog alone). Repeatable; needs --version.
    #[arg(long = "catalog", value_name = "FILE", requires = "protocol")]
    catalogs: Vec<PathBuf>,
    /// The output format the model wrote. `express` compiles each `<a2ui>` block statement
    /// by statement as the chunks arrive, as the server streams it (each part printed with
    /// the chunk that completed it), against --version's catalogs (default v1.0).
    #[arg(long, value_enum, default_value_t, conflicts_with_all = ["cumulative", "time"])]
    format: crate::Format,
}

/// Runs `a2ui-agent parse`: one line per emission, `{"chunk": i, "text": ..}` or
/// `{"chunk": i, "a2ui": [..]}` (the end of the stream counts as chunk `n`), and
/// `{"error": {..}}` with exit code 1 on a parse error; with `--version`, then one
/// `{"invalid": {..}}` line per validation problem, exit code 1 if any.
pub fn run(args: Args) -> ExitCode {
    let chunks = match read_chunks(&args) {
        Ok(chunks) => chunks,
        Err(message) => {
            eprintln!("a2ui-agent parse: {message}");
            return ExitCode::from(2);
        }
    };
    if args.format == crate::Format::Express {
        return express(&args, &chunks);
    }
    let processor = match args.protocol {
        Some(version) => match super::prompt::generator(version, &args.catalogs, &[], &[])
            .and_then(|g| g.negotiate(None).map_err(|e| e.to_string()))
        {
            Ok(processor) => Some(processor),
            Err(message) => {
                eprintln!("a2ui-agent parse: {message}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut config = match &processor {
        Some(processor) => processor.parser_config(),
        None => ParserConfig::default(),
    };
    if processor.is_none() || !args.progressive_keys.is_empty() {
        config = config.progressive_keys(args.progressive_keys.clone());
    }
    if args.cumulative {
        config = config.mode(EmitMode::Cumulative);
    }
    let (emissions, result) = parse_chunks(&chunks, config.clone());
    let mut out = BufWriter::new(io::stdout().lock());
    for (chunk, part) in emissions {
        let line = part_line(chunk, part);
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    let code = match (&result, &processor) {
        (Ok(()), Some(processor)) => {
            let invalid = invalid_lines(processor, &chunks.concat());
            for line in &invalid {
                if writeln!(out, "{line}").is_err() {
                    return ExitCode::FAILURE;
                }
            }
            if invalid.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        (Ok(()), None) => ExitCode::SUCCESS,
        (Err(err), _) => {
            let _ = writeln!(out, "{}", json!({"error": error_json(err)}));
            ExitCode::from(1)
        }
    };
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    if args.time {
        report_time(&chunks, &config);
    }
    code
}

/// `parse --format express`: the chunks through the Express reader of the negotiated
/// processor, then the validation lines, as for Direct JSON.
fn express(args: &Args, chunks: &[String]) -> ExitCode {
    let version = args.protocol.unwrap_or(ProtocolVersion::V1_0);
    let processor =
        match super::prompt::generator(version, &args.catalogs, &[], &[]).and_then(|g| {
            g.negotiate_with_format(None, Express::new())
                .map_err(|e| e.to_string())
        }) {
            Ok(processor) => processor,
            Err(message) => {
                eprintln!("a2ui-agent parse: {message}");
                return ExitCode::from(2);
            }
        };
    let mut reader = processor.parser();
    let mut lines = Vec::new();
    let mut failed = None;
    for (index, chunk) in chunks.iter().enumerate() {
        lines.extend(part_lines(index, reader.feed(chunk)));
        if let Some(err) = reader.error() {
            failed = Some(err.clone());
            break;
        }
    }
    let result = match failed {
        Some(err) => Err(err),
        None => reader.finish(),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let code = match result {
        Ok(parts) => {
            lines.extend(part_lines(chunks.len(), parts));
            let invalid = invalid_lines(&processor, &chunks.concat());
            let code = if invalid.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            };
            lines.extend(invalid);
            code
        }
        Err(err) => {
            lines.push(json!({"error": error_json(&err)}));
            ExitCode::from(1)
        }
    };
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    code
}

/// One line per part, marked with the chunk that completed it (`chunk`: the end).
fn part_lines(chunk: usize, parts: Vec<ParsedPart>) -> impl Iterator<Item = Value> {
    parts.into_iter().map(move |part| part_line(chunk, part))
}

fn part_line(chunk: usize, part: ParsedPart) -> Value {
    match part {
        ParsedPart::Text(text) => json!({"chunk": chunk, "text": text}),
        ParsedPart::A2ui(messages) => json!({"chunk": chunk, "a2ui": messages}),
    }
}

/// One `{"invalid": {..}}` line per problem the processor finds in the whole response's
/// messages.
fn invalid_lines(processor: &RequestProcessor, text: &str) -> Vec<Value> {
    let messages: Vec<Value> = match processor.parse(text) {
        Ok(parts) => parts
            .into_iter()
            .flat_map(|part| match part {
                ParsedPart::A2ui(messages) => messages,
                ParsedPart::Text(_) => Vec::new(),
            })
            .collect(),
        Err(_) => return Vec::new(),
    };
    processor
        .validate(&messages)
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|e| {
            json!({"invalid": {
                "messageIndex": e.message_index,
                "surfaceId": e.surface_id,
                "path": e.pointer,
                "message": e.message,
            }})
        })
        .collect()
}

/// The chunks to feed: `--chunks`, or the input cut by `--chunk-size`, or the whole input.
fn read_chunks(args: &Args) -> Result<Vec<String>, String> {
    if let Some(path) = &args.chunks {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        return serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a JSON array of strings: {e}", path.display()));
    }
    let mut text = String::new();
    match &args.file {
        Some(path) => {
            text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        }
        None => {
            io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
        }
    }
    Ok(match args.chunk_size {
        Some(size) => split(&text, size.max(1)),
        None => vec![text],
    })
}

/// Cuts `text` into pieces of about `size` bytes, never inside a character.
fn split(text: &str, size: usize) -> Vec<String> {
    let mut chunks = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        chunks.push(text.get(start..end).unwrap_or_default().to_owned());
        start = end;
    }
    chunks
}

type Emissions = Vec<(usize, ParsedPart)>;

/// Feeds every chunk; the parts with the index of the chunk that produced them.
fn parse_chunks(chunks: &[String], config: ParserConfig) -> (Emissions, Result<(), ParseError>) {
    let mut parser = StreamParser::new(config);
    let mut emissions = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        emissions.extend(parser.feed(chunk).into_iter().map(|p| (i, p)));
        if let Some(err) = parser.error() {
            return (emissions, Err(err.clone()));
        }
    }
    match parser.finish() {
        Ok(parts) => {
            emissions.extend(parts.into_iter().map(|p| (chunks.len(), p)));
            (emissions, Ok(()))
        }
        Err(err) => (emissions, Err(err)),
    }
}

fn error_json(err: &ParseError) -> Value {
    json!({
        "kind": err.kind().as_str(),
        "message": err.message(),
        "offset": err.offset(),
        "line": err.line(),
        "column": err.column(),
        "excerpt": err.excerpt(),
    })
}

/// Times `f` over enough repetitions to last about 200 ms; the mean time per call.
fn mean_time(mut f: impl FnMut()) -> Duration {
    let started = Instant::now();
    f();
    let once = started.elapsed().max(Duration::from_nanos(1));
    let reps = (Duration::from_millis(200).as_nanos() / once.as_nanos()).clamp(1, 100_000);
    let started = Instant::now();
    for _ in 0..reps {
        f();
    }
    started.elapsed() / u32::try_from(reps).unwrap_or(u32::MAX)
}

/// Prints parse time, throughput and the serde_json baseline over the blocks' JSON.
fn report_time(chunks: &[String], config: &ParserConfig) {
    let bytes: usize = chunks.iter().map(String::len).sum();
    let parse = mean_time(|| {
        let _ = std::hint::black_box(parse_chunks(chunks, config.clone()));
    });
    let whole: String = chunks.concat();
    let blocks = json_blocks(&whole);
    let json_bytes: usize = blocks.iter().map(|b| b.len()).sum();
    let readable = blocks
        .iter()
        .filter(|b| serde_json::from_str::<Value>(b).is_ok())
        .count();
    let serde = mean_time(|| {
        for block in &blocks {
            let _ = std::hint::black_box(serde_json::from_str::<Value>(block));
        }
    });
    let mbps = |d: Duration, n: usize| n as f64 / d.as_secs_f64().max(1e-12) / 1e6;
    eprintln!(
        "parse: {:.3} ms for {bytes} bytes in {} chunks ({:.1} MB/s)",
        parse.as_secs_f64() * 1e3,
        chunks.len(),
        mbps(parse, bytes)
    );
    eprintln!(
        "serde_json::from_str over the {json_bytes} JSON bytes of {} blocks ({readable} readable by it): {:.3} ms ({:.1} MB/s)",
        blocks.len(),
        serde.as_secs_f64() * 1e3,
        mbps(serde, json_bytes)
    );
    eprintln!(
        "ratio parse / serde_json: {:.2}x",
        parse.as_secs_f64() / serde.as_secs_f64().max(1e-12)
    );
}

/// The JSON text of each `<a2ui-json>` block, found naively (for timing only), with a
/// Markdown fence removed.
fn json_blocks(text: &str) -> Vec<&str> {
    let lower = text.to_ascii_lowercase();
    let mut blocks = Vec::new();
    let mut from = 0;
    while let Some(open) = lower.get(from..).and_then(|s| s.find("<a2ui-json")) {
        let open = from + open;
        let Some(body) = lower
            .get(open..)
            .and_then(|s| s.find('>'))
            .map(|n| open + n + 1)
        else {
            break;
        };
        let end = lower
            .get(body..)
            .and_then(|s| s.find("</a2ui-json"))
            .map_or(text.len(), |n| body + n);
        let json = text.get(body..end).unwrap_or_default().trim();
        let json = json
            .strip_prefix("```json")
            .or_else(|| json.strip_prefix("```"))
            .unwrap_or(json);
        blocks.push(json.strip_suffix("```").unwrap_or(json).trim());
        from = end;
    }
    blocks
}
