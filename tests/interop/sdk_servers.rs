//! The SDKs' own servers, for the tests of our client against them: the Python `a2a-sdk`
//! 1.3.0 (`tests/interop/python/sdk_server.py`) and `@a2a-js/sdk` 1.3.0 with Express
//! (`tests/interop/js/sdk_server.mjs`), each started on a free port as a child process that
//! dies with the test. Both scripts serve the same agent (see their docs).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

use super::support::{crate_root, installed, node_on_path};

/// How long an SDK server may take to start listening (interpreter start-up on a loaded
/// machine included).
const START_DEADLINE: Duration = Duration::from_secs(90);

/// Which SDK serves.
#[derive(Debug, Clone, Copy)]
pub enum Sdk {
    /// The Python `a2a-sdk` 1.3.0 (Starlette, uvicorn).
    Python,
    /// `@a2a-js/sdk` 1.3.0 (Express).
    Js,
}

impl Sdk {
    /// The program and the script to run, or `None` when the SDK is not installed.
    fn command(self) -> Option<(PathBuf, PathBuf)> {
        match self {
            Sdk::Python => {
                let python = installed(
                    crate_root().join(".venv/bin/python"),
                    "the Python a2a-sdk server",
                )?;
                Some((
                    python,
                    crate_root().join("tests/interop/python/sdk_server.py"),
                ))
            }
            Sdk::Js => {
                let modules = crate_root().join("tests/interop/js/node_modules");
                installed(
                    modules.join("@a2a-js/sdk/package.json"),
                    "the @a2a-js/sdk server",
                )?;
                installed(modules.join("express/package.json"), "Express")?;
                Some((
                    node_on_path(),
                    crate_root().join("tests/interop/js/sdk_server.mjs"),
                ))
            }
        }
    }

    /// The name the SDK server's card carries.
    pub fn card_name(self) -> &'static str {
        match self {
            Sdk::Python => "python-sdk",
            Sdk::Js => "js-sdk",
        }
    }
}

/// A running SDK server; killed when dropped.
pub struct SdkServer {
    _child: Child,
    /// Its own base URL (`http://127.0.0.1:PORT/`).
    pub url: String,
}

impl SdkServer {
    /// Its socket address (for a proxy in front of it).
    pub fn addr(&self) -> std::net::SocketAddr {
        let host = self.url.trim_start_matches("http://").trim_end_matches('/');
        host.parse().unwrap()
    }
}

/// A free port on 127.0.0.1 (bound, then released for the child to bind).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts `sdk`'s server on a free port, its card naming `public_url` (default: its own URL)
/// as where it is served; waits until it listens. `None` when the SDK is not installed (and
/// not required).
pub async fn start(sdk: Sdk, public_url: Option<&str>) -> Option<SdkServer> {
    let (program, script) = sdk.command()?;
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/");
    let mut child = tokio::process::Command::new(&program)
        .arg(&script)
        .arg(port.to_string())
        .arg(public_url.unwrap_or(&url))
        .current_dir(script.parent().unwrap())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {}: {error}", program.display()));
    let stdout = child.stdout.take().unwrap();
    let listening = async {
        let mut lines = BufReader::new(stdout).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.starts_with("listening on ") {
                return true;
            }
        }
        false
    };
    let started = tokio::time::timeout(START_DEADLINE, listening).await;
    assert!(
        matches!(started, Ok(true)),
        "the {sdk:?} SDK server ({}) did not start listening (its stderr is above)",
        script.display()
    );
    Some(SdkServer { _child: child, url })
}
