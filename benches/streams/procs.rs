//! The processes of the benchmark: ours (this binary re-executed with `--serve`), the
//! fake OpenAI-compatible model (`--model`), the Python reference; each pinned to its
//! cores, killed when dropped, watched through /proc.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::process;

/// Pins the calling thread, and every thread it starts from now on, to `cores`.
pub fn pin_to(cores: &[usize]) {
    if cores.is_empty() {
        return;
    }
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes inside it, and
    // sched_setaffinity only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &core in cores {
            libc::CPU_SET(core, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            eprintln!(
                "streams bench: cannot pin to cores {cores:?}: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// The core the server under test runs on (`BENCH_SERVER_CORE`, default 0), and the others
/// (the load: client and model), none when the machine has one.
pub fn cores() -> (usize, Vec<usize>) {
    let count = std::thread::available_parallelism().map_or(1, |n| n.get());
    let server = std::env::var("BENCH_SERVER_CORE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
        % count;
    let load = (0..count).filter(|&c| c != server).collect();
    (server, load)
}

/// Raises this process's open-file limit to its hard limit; the (soft, hard) limits after.
pub fn raise_open_files() -> (u64, u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid rlimit the calls read and write.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        }
    }
    (limit.rlim_cur, limit.rlim_max)
}

/// A process under test (or the model), killed when dropped.
pub struct Process {
    pub url: String,
    child: Child,
}

impl Process {
    /// This binary with `args`, on `cores`.
    pub fn this(name: &'static str, args: &[String], cores: &[usize]) -> Process {
        let exe = std::env::current_exe().expect("the bench binary's path");
        let mut command = Command::new(exe);
        command.args(args);
        Self::start(name, command, cores)
    }

    /// The Python reference (`scripts/streams_reference_server.py` in the venv), if
    /// installed; the chunks in the JSON file `chunks`.
    pub fn python(chunks: &Path, model_url: Option<&str>, cores: &[usize]) -> Option<Process> {
        let python = venv().join("bin/python");
        if !python.exists() {
            eprintln!(
                "skipped the Python stack: {} is missing; run scripts/install-test-deps.sh (or set A2UI_VENV)",
                python.display()
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let mut command = Command::new(python);
        command
            .arg(crate_root().join("scripts/streams_reference_server.py"))
            .args(["--port", &port.to_string()])
            .arg("--chunks")
            .arg(chunks);
        if let Some(url) = model_url {
            command.args(["--model-url", url]);
        }
        Some(Self::start("a2a-sdk+a2ui-sdk", command, cores))
    }

    fn start(name: &'static str, mut command: Command, cores: &[usize]) -> Process {
        let cores = cores.to_vec();
        // SAFETY: only sched_setaffinity runs between fork and exec (async-signal-safe).
        unsafe {
            command.pre_exec(move || {
                pin_to(&cores);
                Ok(())
            });
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {name}: {error}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("listening on ") {
                    let _ = sender.send(url.to_owned());
                    break;
                }
            }
            lines.for_each(drop);
        });
        let url = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{name} did not start within 60 s"));
        Process { url, child }
    }

    /// CPU time used so far (user + system).
    pub fn cpu(&self) -> Duration {
        process::cpu(Some(self.child.id()))
    }

    /// Resident memory, KiB.
    pub fn rss_kib(&self) -> u64 {
        process::rss_kib(self.child.id())
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CPU time of this process so far.
pub fn own_cpu() -> Duration {
    process::cpu(None)
}

fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python environment: `A2UI_VENV`, else `.venv` in the checkout.
fn venv() -> PathBuf {
    std::env::var_os("A2UI_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_root().join(".venv"))
}
