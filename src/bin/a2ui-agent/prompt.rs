//! `a2ui-agent prompt`: print the system prompt a model is given for a protocol version and
//! its catalogs, exactly as the server's generator writes it (or, with `--grammar`, the
//! grammar a model server can constrain the answer to), and say on stderr how big it is: its
//! bytes, and its tokens when a llama.cpp server's `/tokenize` is named.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use a2ui_agent::a2ui::{Catalog, ClientCapabilities, ProtocolVersion};
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::{Generator, PromptStyle};

use crate::Format;
use crate::tokens;

/// How a Direct JSON prompt describes the messages and catalogs, for `--style`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum Style {
    /// One line per message kind, component and function, the shared types once.
    #[default]
    Signatures,
    /// The message schema, the common types and each catalog's JSON Schema, whole.
    Schemas,
}

impl From<Style> for PromptStyle {
    fn from(style: Style) -> Self {
        match style {
            Style::Signatures => PromptStyle::Signatures,
            Style::Schemas => PromptStyle::Schemas,
        }
    }
}

/// Arguments of `a2ui-agent prompt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Protocol version: v0.8, v0.9, v0.9.1 or v1.0.
    #[arg(long = "version", value_name = "VERSION", value_parser = crate::parse_version)]
    protocol: ProtocolVersion,
    /// A catalog file the agent offers, in order; `basic` names the version's basic catalog.
    /// Repeatable. Default: the basic catalog alone.
    #[arg(long = "catalog", value_name = "FILE")]
    catalogs: Vec<PathBuf>,
    /// Describe only these components, e.g. `Text,Button,Column`.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    components: Vec<String>,
    /// An example for the prompt: a JSON array of messages, `{"messages": [...]}`, or a model
    /// answer with `<a2ui-json>` blocks. Repeatable.
    #[arg(long = "example", value_name = "FILE")]
    examples: Vec<PathBuf>,
    /// A renderer's capabilities (JSON) to negotiate the active catalogs with, as a request
    /// would; without it every catalog offered is active.
    #[arg(long, value_name = "FILE")]
    capabilities: Option<PathBuf>,
    /// The output format the model is asked to write.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Print the format's grammar (GBNF, for a model server that constrains sampling, such
    /// as llama.cpp's `grammar` member) instead of the prompt; an error for a format that
    /// has none (Direct JSON).
    #[arg(long)]
    grammar: bool,
    /// How a Direct JSON prompt describes the messages and catalogs.
    #[arg(long, value_enum, default_value_t)]
    style: Style,
    /// A llama.cpp server's tokenize endpoint (e.g. `http://127.0.0.1:8080/tokenize`): the
    /// prompt's size is also given in that model's tokens.
    #[arg(long, value_name = "URL")]
    tokenizer_url: Option<String>,
}

/// The generator a command line describes: the built-in one when nothing is said, else
/// `catalogs` in order (`basic` for the version's basic catalog; none: the basic catalog),
/// pruned to `components` when any are named, with `examples`.
pub fn generator(
    version: ProtocolVersion,
    catalogs: &[PathBuf],
    components: &[String],
    examples: &[PathBuf],
) -> Result<Generator, String> {
    styled_generator(
        version,
        catalogs,
        components,
        examples,
        PromptStyle::default(),
    )
}

/// [`generator`] with its Direct JSON prompts in `style`.
fn styled_generator(
    version: ProtocolVersion,
    catalogs: &[PathBuf],
    components: &[String],
    examples: &[PathBuf],
    style: PromptStyle,
) -> Result<Generator, String> {
    let mut builder = Generator::builder(version).prompt_style(style);
    if catalogs.is_empty() && components.is_empty() && examples.is_empty() {
        return builder
            .built_in_example()
            .build()
            .map_err(|e| e.to_string());
    }
    for path in catalogs {
        let catalog = if path == Path::new("basic") {
            Catalog::try_basic(version)
        } else {
            Catalog::from_path(version, path)
        };
        builder = builder.catalog(catalog.map_err(|e| e.to_string())?);
    }
    if !components.is_empty() {
        let names: Vec<&str> = components.iter().map(|n| n.trim()).collect();
        builder = builder.components(&names);
    }
    for path in examples {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into(),
        );
        builder = builder.example(name, text);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Runs `a2ui-agent prompt`: the prompt on stdout and its size on stderr; exit code 2 when
/// an input cannot be read, the negotiation fails or the tokenizer does not answer.
pub fn run(args: Args) -> ExitCode {
    let sized = prompt(&args).and_then(|text| {
        let size = match &args.tokenizer_url {
            Some(url) => {
                let count = tokens::count(url, &text)?;
                format!("{} bytes, {count} tokens", text.len())
            }
            None => format!("{} bytes", text.len()),
        };
        Ok((text, size))
    });
    match sized {
        Ok((text, size)) => {
            let mut out = std::io::stdout().lock();
            if out.write_all(text.as_bytes()).is_err() || out.flush().is_err() {
                return ExitCode::FAILURE;
            }
            eprintln!("a2ui-agent prompt: {size}");
            ExitCode::SUCCESS
        }
        Err(problem) => {
            eprintln!("a2ui-agent prompt: {problem}");
            ExitCode::from(2)
        }
    }
}

fn prompt(args: &Args) -> Result<String, String> {
    let generator = styled_generator(
        args.protocol,
        &args.catalogs,
        &args.components,
        &args.examples,
        args.style.into(),
    )?;
    let capabilities = match &args.capabilities {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let value = serde_json::from_str(&text)
                .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
            Some(ClientCapabilities::parse(&value).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let processor = match args.format {
        Format::DirectJson => generator.negotiate(capabilities.as_ref()),
        Format::Express => generator.negotiate_with_format(capabilities.as_ref(), Express::new()),
    }
    .map_err(|e| e.to_string())?;
    if args.grammar {
        return processor.grammar().map(str::to_owned).ok_or_else(|| {
            format!(
                "the {} format has no grammar (Express has one)",
                processor.format().name()
            )
        });
    }
    Ok(processor.prompt().to_owned())
}
