//! A throwaway PostgreSQL cluster for the tests that need the real engine.
//!
//! The first test that asks starts one cluster for the whole test binary: `initdb` in a
//! temp dir, `pg_ctl start` on a free loopback port (trust authentication, fsync off), and a
//! watchdog shell that stops the cluster and removes the dir once the test process is gone
//! (statics are never dropped, and a panicking test must not leave a server behind). Each
//! test then creates its own database. PostgreSQL refuses to run as root: as root, the
//! binaries run as `postgres` through `runuser`, in a dir that user owns.
//!
//! Without the binaries (Debian's `postgresql` package, or `A2UI_PG_BIN`), [`cluster`]
//! prints a skip and returns `None`, unless `A2UI_REQUIRE_POSTGRES=1`, when it fails.
//!
//! [`tls_cluster`] starts another one with `ssl=on`, its certificate (for 127.0.0.1 only)
//! signed by a CA made for the run with the `openssl` command, and a second CA that signed
//! nothing.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A running throwaway cluster.
pub struct Postgres {
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
    /// The data dir, the log file and the server options: what [`Postgres::start`] needs.
    data: PathBuf,
    log: PathBuf,
    options: String,
}

/// The cluster of this test binary, started on first use; `None` when PostgreSQL is absent.
pub fn cluster() -> Option<&'static Postgres> {
    static CLUSTER: OnceLock<Option<Postgres>> = OnceLock::new();
    CLUSTER.get_or_init(start).as_ref()
}

fn binaries() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("A2UI_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// A cluster that also speaks TLS, and the CA files a client may trust.
pub struct TlsCluster {
    /// The cluster (plain connections are accepted too).
    pub postgres: Postgres,
    /// The CA that signed the server's certificate (PEM).
    pub ca: PathBuf,
    /// A CA that did not (PEM).
    pub other_ca: PathBuf,
}

/// The TLS cluster of this test binary, started on first use; `None` when PostgreSQL or
/// `openssl` is absent.
pub fn tls_cluster() -> Option<&'static TlsCluster> {
    static CLUSTER: OnceLock<Option<TlsCluster>> = OnceLock::new();
    CLUSTER
        .get_or_init(|| {
            if Command::new("openssl").arg("version").output().is_err() {
                assert!(
                    std::env::var("A2UI_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                    "A2UI_REQUIRE_POSTGRES=1 but no openssl command to make certificates"
                );
                println!("skipped: no openssl command to make the test certificates");
                return None;
            }
            let mut files = None;
            let postgres = start_with("tls", |dir| {
                files = Some(certificates(dir));
                format!(
                    " -c ssl=on -c ssl_cert_file={dir}/server.crt -c ssl_key_file={dir}/server.key",
                    dir = dir.display()
                )
            })?;
            let (ca, other_ca) = files?;
            Some(TlsCluster {
                postgres,
                ca,
                other_ca,
            })
        })
        .as_ref()
}

/// Makes in `dir` a CA, a server certificate it signs for 127.0.0.1 (`server.crt`,
/// `server.key`) and a second CA; returns the two CA files.
fn certificates(dir: &Path) -> (PathBuf, PathBuf) {
    let openssl = |args: &[&str]| {
        run(Command::new("openssl").current_dir(dir).args(args));
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    for name in ["ca", "other-ca"] {
        let (key, cert, subject) = (
            format!("{name}.key"),
            format!("{name}.crt"),
            format!("/CN=a2ui test {name}"),
        );
        let mut args = vec![
            "req", "-x509", "-days", "2", "-subj", &subject, "-keyout", &key, "-out", &cert,
        ];
        args.extend_from_slice(&ec);
        args.extend_from_slice(&[
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ]);
        openssl(&args);
    }
    let mut args = vec![
        "req",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
    ];
    args.extend_from_slice(&ec);
    openssl(&args);
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "server.ext",
        "-out",
        "server.crt",
    ]);
    // PostgreSQL refuses a key others may read.
    run(Command::new("chmod").arg("600").arg(dir.join("server.key")));
    (dir.join("ca.crt"), dir.join("other-ca.crt"))
}

fn start() -> Option<Postgres> {
    start_with("pg", |_| String::new())
}

/// Starts a cluster in a dir named after `name`; `setup` prepares the dir first and returns
/// more server options.
fn start_with(name: &str, setup: impl FnOnce(&Path) -> String) -> Option<Postgres> {
    let Some(bin) = binaries() else {
        assert!(
            std::env::var("A2UI_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "A2UI_REQUIRE_POSTGRES=1 but no PostgreSQL binaries (/usr/lib/postgresql/*/bin)"
        );
        println!("skipped: PostgreSQL is not installed (apt-get install postgresql)");
        return None;
    };
    let as_postgres = is_root();
    let dir = std::env::temp_dir().join(format!("a2ui-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let more_options = setup(&dir);
    if as_postgres {
        run(Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&dir));
    }
    let data = dir.join("data");
    let port = free_port();
    let options = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100{more_options}",
        dir.display()
    );
    let cluster = Postgres {
        bin,
        port,
        as_postgres,
        data: data.clone(),
        log: dir.join("log"),
        options,
    };
    run(cluster.command("initdb").arg("-D").arg(&data).args([
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-sync",
    ]));
    cluster.start();
    cluster.watch(&dir, &data);
    Some(cluster)
}

impl Postgres {
    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A fresh database named after `name` (unique in this binary); its URL.
    pub fn database(&self, name: &str) -> String {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let database = format!("{name}_{}", COUNT.fetch_add(1, Ordering::Relaxed));
        run(self.command("createdb").args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            "postgres",
            &database,
        ]));
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Starts the server (again, after [`Postgres::stop`]) and waits until it takes
    /// connections.
    pub fn start(&self) {
        run(self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(&self.log)
            .args(["-w", "-o", &self.options, "start"]));
    }

    /// Stops the server as an operator restarting it would (`pg_ctl stop -m fast`: every
    /// session is ended, the data is kept) and waits until it is down.
    pub fn stop(&self) {
        run(self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-w", "-m", "fast", "stop"]));
    }

    /// A PostgreSQL program, run as `postgres` when this is root.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(path);
            command
        } else {
            Command::new(path)
        }
    }

    /// Stops the cluster and removes `dir` once this process has exited.
    // The watchdog outlives this process by design: it is never waited for.
    #[allow(clippy::zombie_processes)]
    fn watch(&self, dir: &Path, data: &Path) {
        let stop = format!(
            "{} {} -D {} -m immediate stop",
            if self.as_postgres {
                "runuser -u postgres --"
            } else {
                ""
            },
            self.bin.join("pg_ctl").display(),
            data.display()
        );
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {stop}; rm -rf {dir}",
            pid = std::process::id(),
            dir = dir.display()
        );
        // In a session of its own: a signal to this process group does not reach it.
        let mut command = if Path::new("/usr/bin/setsid").exists() {
            let mut command = Command::new("/usr/bin/setsid");
            command.arg("sh");
            command
        } else {
            Command::new("sh")
        };
        command
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
    }
}

fn run(command: &mut Command) {
    let output = command.stdin(Stdio::null()).output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
