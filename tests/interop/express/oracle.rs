//! The Rust end of the pipe to `oracle.py`: one long-lived Python process running the
//! official Express compiler and decompiler, asked one program at a time.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// What the official compiler made of a program.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// It compiled, to these messages.
    Messages(Vec<Value>),
    /// It refused: `kind` is `parse`, `invalid` or `other` (an exception that is no refusal).
    Refused { kind: String, error: String },
}

/// The official SDK behind a pipe.
pub struct Oracle {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    catalog: PathBuf,
    version: &'static str,
}

impl Oracle {
    /// Starts `oracle.py` with `python` for the catalog document at `catalog`.
    pub fn start(python: &Path, catalog: &Path, version: &'static str) -> Oracle {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/express/oracle.py");
        let mut child = Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the Express oracle");
        let input = BufWriter::new(child.stdin.take().expect("oracle stdin"));
        let output = BufReader::new(child.stdout.take().expect("oracle stdout"));
        Oracle {
            child,
            input,
            output,
            catalog: catalog.to_owned(),
            version,
        }
    }

    fn ask(&mut self, mut request: Value) -> Value {
        request["catalog"] = json!(self.catalog);
        request["version"] = json!(self.version);
        let line = serde_json::to_string(&request).expect("a request serializes");
        writeln!(self.input, "{line}").expect("write to the oracle");
        self.input.flush().expect("flush the oracle's input");
        let mut answer = String::new();
        let read = self.output.read_line(&mut answer).expect("read the oracle");
        assert!(read > 0, "the oracle exited (see its stderr above)");
        serde_json::from_str(&answer).expect("the oracle answers JSON")
    }

    /// The official decompiler's Express for `messages`.
    pub fn decompile(&mut self, messages: &[Value]) -> Result<String, String> {
        let answer = self.ask(json!({ "decompile": messages }));
        match answer["text"].as_str() {
            Some(text) => Ok(text.to_owned()),
            None => Err(answer["error"].as_str().unwrap_or_default().to_owned()),
        }
    }

    /// What the official compiler makes of `source`.
    pub fn compile(&mut self, source: &str) -> Verdict {
        verdict(&self.ask(json!({ "compile": source })))
    }
}

fn verdict(answer: &Value) -> Verdict {
    match answer.get("messages").and_then(Value::as_array) {
        Some(messages) => Verdict::Messages(messages.clone()),
        None => Verdict::Refused {
            kind: answer["kind"].as_str().unwrap_or("other").to_owned(),
            error: answer["error"].as_str().unwrap_or_default().to_owned(),
        },
    }
}

impl Oracle {
    /// Asks the official compiler about every program `generate` writes, pipelined:
    /// `generate` runs on a thread of its own and hands each program to the callback it is
    /// given, which writes the request at once, while this thread reads the answers in order
    /// and hands each, with its program, to `each`. Python compiles one program while Rust
    /// generates and compiles the next.
    pub fn compile_stream(
        &mut self,
        generate: impl FnOnce(&mut dyn FnMut(String)) + Send,
        mut each: impl FnMut(String, Verdict),
    ) {
        let (sent, programs) = std::sync::mpsc::channel::<String>();
        let (catalog, version) = (self.catalog.clone(), self.version);
        let input = &mut self.input;
        let output = &mut self.output;
        std::thread::scope(|scope| {
            scope.spawn(move || {
                generate(&mut |source: String| {
                    let request =
                        json!({"catalog": catalog, "version": version, "compile": source});
                    let line = serde_json::to_string(&request).expect("a request serializes");
                    writeln!(input, "{line}").expect("write to the oracle");
                    input.flush().expect("flush the oracle's input");
                    // The reader stops only by panicking, which ends the test anyway.
                    let _ = sent.send(source);
                });
            });
            for source in programs {
                let mut answer = String::new();
                let read = output.read_line(&mut answer).expect("read the oracle");
                assert!(read > 0, "the oracle exited (see its stderr above)");
                let answer: Value = serde_json::from_str(&answer).expect("the oracle answers JSON");
                each(source, verdict(&answer));
            }
        });
    }

    /// [`refuses`](Self::refuses) for each of `batches`, pipelined.
    pub fn refuses_all(&mut self, batches: &[Vec<Value>]) -> Vec<Option<String>> {
        let (catalog, version) = (self.catalog.clone(), self.version);
        let input = &mut self.input;
        let output = &mut self.output;
        std::thread::scope(|scope| {
            scope.spawn(move || {
                for messages in batches {
                    let request =
                        json!({"catalog": catalog, "version": version, "validate": messages});
                    let line = serde_json::to_string(&request).expect("a request serializes");
                    writeln!(input, "{line}").expect("write to the oracle");
                }
                input.flush().expect("flush the oracle's input");
            });
            (0..batches.len())
                .map(|_| {
                    let mut answer = String::new();
                    let read = output.read_line(&mut answer).expect("read the oracle");
                    assert!(read > 0, "the oracle exited (see its stderr above)");
                    let answer: Value =
                        serde_json::from_str(&answer).expect("the oracle answers JSON");
                    match answer["valid"].as_bool() {
                        Some(true) => None,
                        _ => Some(answer["error"].as_str().unwrap_or_default().to_owned()),
                    }
                })
                .collect()
        })
    }

    /// Why the SDK's own validator refuses `messages`, or `None` when it takes them.
    pub fn refuses(&mut self, messages: &[Value]) -> Option<String> {
        let answer = self.ask(json!({ "validate": messages }));
        match answer["valid"].as_bool() {
            Some(true) => None,
            _ => Some(answer["error"].as_str().unwrap_or_default().to_owned()),
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The test venv's Python when it has the official SDK; `None` (after saying so) when it is
/// absent, a panic instead with `A2UI_REQUIRE_INTEROP=1`.
pub fn python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let has_sdk = python.exists()
        && Command::new(&python)
            .args(["-c", "import a2ui.inference_formats.express"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if has_sdk {
        return Some(python);
    }
    let why = format!(
        "the official Express compiler (a2ui-agent-sdk in {}) is not installed; \
         run scripts/install-test-deps.sh",
        python.display()
    );
    assert!(
        std::env::var("A2UI_REQUIRE_INTEROP").as_deref() != Ok("1"),
        "A2UI_REQUIRE_INTEROP=1 but {why}"
    );
    println!("skipped: {why}");
    None
}
