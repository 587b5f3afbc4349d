//! Time to the first drawn component of an Express answer, streamed against compiled at
//! the end, on a scripted model that writes about 10 tokens a second (a token taken as 4
//! bytes, one every 100 ms): the figure issue 47 asks Express streaming to halve.
//!
//! The answer is read by the Express reader exactly as the server reads a model's stream;
//! "compiled at end" is when the one-shot compile of the finished answer is done, which is
//! when a client saw its first component before Express streamed.
//!
//! Run: `cargo bench --bench express_first_component -- --bench` (it runs for about a
//! minute; without `--bench`, as under `cargo test --benches`, it does nothing).

use std::time::{Duration, Instant};

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::OutputFormat;
use a2ui_agent::format::express::Express;
use a2ui_agent::parser::{ParsedPart, ParserConfig};

/// A booking answer as the 1.5B model writes one: a card first, the form after.
const ANSWER: &str = "Here is your booking form.\n<a2ui>\n\
root = Column([header, form, actions])\n\
header = Card(Column([Text(\"Book a table\"), Text(\"Trattoria da Enzo, 12 Via Roma\")]))\n\
form = Column([name, guests, when])\n\
name = TextField(\"Your name\", $/booking/name)\n\
guests = TextField(\"Guests\", $/booking/guests)\n\
when = TextField(\"Date and time\", $/booking/when)\n\
actions = Row([Button(Text(\"Book\"), \"primary\", Event(\"book\", {name: $/booking/name}))])\n\
$/booking/name = \"\"\n$/booking/guests = \"2\"\n$/booking/when = \"Friday 8 pm\"\n\
</a2ui>\nTell me if anything should change.";

const TOKEN_BYTES: usize = 4;
const TOKEN_EVERY: Duration = Duration::from_millis(100);

/// Seconds from the first token to the first part holding a component, streamed; and to
/// the end of the one-shot compile.
fn run(version: ProtocolVersion) -> (f64, f64) {
    let express = Express::bound(version, vec![Catalog::basic(version)]).expect("basic binds");
    let mut reader = express.reader(ParserConfig::default());
    let start = Instant::now();
    let mut first = None;
    let bytes = ANSWER.as_bytes();
    for chunk in bytes.chunks(TOKEN_BYTES) {
        std::thread::sleep(TOKEN_EVERY);
        let parts = reader.feed(std::str::from_utf8(chunk).expect("ASCII answer"));
        if first.is_none() && parts.iter().any(has_component) {
            first = Some(start.elapsed());
        }
    }
    let rest = reader.finish().expect("the answer reads");
    let streamed = first.or_else(|| rest.iter().any(has_component).then(|| start.elapsed()));
    let compiled = express
        .parse_response(ANSWER, true)
        .expect("the answer compiles");
    assert!(compiled.iter().any(has_component));
    let at_end = start.elapsed();
    (
        streamed.map_or(f64::NAN, |d| d.as_secs_f64()),
        at_end.as_secs_f64(),
    )
}

fn has_component(part: &ParsedPart) -> bool {
    let ParsedPart::A2ui(messages) = part else {
        return false;
    };
    messages.iter().any(|m| {
        ["/updateComponents/components", "/createSurface/components"]
            .iter()
            .any(|p| {
                m.pointer(p)
                    .and_then(|c| c.as_array())
                    .is_some_and(|c| !c.is_empty())
            })
    })
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let tokens = ANSWER.len().div_ceil(TOKEN_BYTES);
    println!("scripted model: {tokens} tokens at 10 tokens/s");
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
        let (streamed, at_end) = run(version);
        println!(
            "{version}: first component streamed {streamed:.2} s, compiled at end {at_end:.2} s \
             ({:.1}x sooner)",
            at_end / streamed
        );
    }
}
