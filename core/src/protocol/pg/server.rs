//! A throw-away PostgreSQL server for one command (`--store postgres`, bare): `initdb` in a temporary directory,
//! `pg_ctl start` listening only on a Unix socket in that directory, and on drop `pg_ctl stop` and the directory
//! removed — whatever way the command ends: a panic runs the drop, and a process killed outright (Ctrl-C,
//! SIGKILL) closes a pipe that a reaper in a session of its own is waiting on, which then does the same. `initdb`
//! refuses to run as root: as root, the server runs as the `postgres` user (`runuser`), as `pg_virtualenv` does.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A running throw-away server; stopped and removed when dropped.
pub struct Server {
    dir: PathBuf,
    bin: PathBuf,
    url: String,
    /// How long `initdb` and `pg_ctl start` took.
    pub started_in: Duration,
    /// The reaper's standard input: closed when this process ends, however it ends (see the module's comment).
    _reaper: Option<std::process::ChildStdin>,
}

impl Server {
    /// Makes and starts a server; its one role, `outbox`, logs in without a password over its socket.
    pub fn start() -> Result<Server, String> {
        let begun = Instant::now();
        let bin = bin_dir()?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!("outbox-pg-{}-{stamp}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // From here on, dropping `server` stops whatever started and removes the directory.
        let mut server = Server {
            url: format!(
                "postgresql://outbox@{}/postgres",
                percent_encode(&dir.to_string_lossy())
            ),
            dir,
            bin,
            started_in: Duration::ZERO,
            _reaper: None,
        };
        server._reaper = server.reaper();
        if is_root() {
            run(Command::new("chown")
                .arg("postgres:postgres")
                .arg(&server.dir))?;
        }
        let data = server.dir.join("data");
        run(server.tool("initdb").arg("-D").arg(&data).args([
            "-U",
            "outbox",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ]))?;
        // A process exit here is a dropped connection, never a power cut (that is SQLite's layer): the server
        // need not wait for the disk.
        // Port 5432 in a socket directory of its own, whatever `PGPORT` says (the URL names no port); room for
        // `race --processes 64`, each worker's four connections.
        let options = format!(
            "-k {} -p 5432 -c listen_addresses='' -c max_connections=300 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off",
            server.dir.display()
        );
        run(server
            .tool("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(server.dir.join("log"))
            .args(["-w", "-t", "30", "-o", &options, "start"]))?;
        server.started_in = begun.elapsed();
        Ok(server)
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// A shell in a session of its own (`setsid`: a terminal's Ctrl-C does not reach it) that waits for its
    /// standard input to close, then stops the server and removes the directory. `None` where it cannot start:
    /// the drop still cleans up, only a process killed outright leaves the server behind.
    fn reaper(&self) -> Option<std::process::ChildStdin> {
        const SCRIPT: &str = r#"cat >/dev/null
if [ -f "$1/data/postmaster.pid" ]; then
  if [ "$3" = root ]; then runuser -u postgres -- "$2" -D "$1/data" -w -m immediate stop
  else "$2" -D "$1/data" -w -m immediate stop; fi
fi >/dev/null 2>&1
rm -rf "$1""#;
        let mut child = Command::new("setsid")
            .args(["sh", "-c", SCRIPT, "outbox-pg-reaper"])
            .arg(&self.dir)
            .arg(self.bin.join("pg_ctl"))
            .arg(if is_root() { "root" } else { "user" })
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        child.stdin.take()
    }

    /// Stops the server and removes its directory; how long that took.
    pub fn stop(self) -> Duration {
        let begun = Instant::now();
        drop(self);
        begun.elapsed()
    }

    /// One of the server's programs, run as the `postgres` user when this process is root.
    fn tool(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        let mut command = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        command.stdin(Stdio::null());
        // A caller's libpq variables (`pg_virtualenv` sets them) are not this server's.
        for name in [
            "PGPORT",
            "PGHOST",
            "PGDATA",
            "PGUSER",
            "PGDATABASE",
            "PGPASSWORD",
        ] {
            command.env_remove(name);
        }
        command
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        if data.join("postmaster.pid").exists() {
            let _ = self
                .tool("pg_ctl")
                .arg("-D")
                .arg(&data)
                .args(["-w", "-m", "immediate", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `--store`'s value names PostgreSQL: `postgres` (a throw-away server) or a URL (as the CLI's `--store` reads it).
pub fn names_postgres(value: &str) -> bool {
    value == "postgres" || value.starts_with("postgres://") || value.starts_with("postgresql://")
}

/// The PostgreSQL server a command runs on: the one a URL names, checked first (it connects, it is new enough,
/// its database holds no other tables), or a throw-away one the command starts, removed when this is dropped.
pub struct Target {
    pub url: String,
    pub server: Option<Server>,
}

impl Target {
    /// From `--store`'s value, `postgres` or a URL ([`names_postgres`]). Says on stderr when it starts a server.
    pub fn from_flag(value: &str) -> Result<Target, String> {
        Target::start(value, super::probe)
    }

    /// As [`Target::from_flag`], for a run that keeps to a schema of its own (`interleave`): a URL's database may
    /// hold other tables.
    pub fn from_flag_for_specs(value: &str) -> Result<Target, String> {
        Target::start(value, super::probe_version)
    }

    fn start(
        value: &str,
        probe: fn(&str) -> Result<(), crate::protocol::vocab::Stop>,
    ) -> Result<Target, String> {
        if value == "postgres" {
            let server = Server::start()?;
            eprintln!(
                "a throw-away PostgreSQL server, started in {:.1} s; it is stopped and removed when the command ends",
                server.started_in.as_secs_f64()
            );
            return Ok(Target {
                url: server.url().to_owned(),
                server: Some(server),
            });
        }
        probe(value).map_err(|e| match e {
            crate::protocol::vocab::Stop::Sql(m) | crate::protocol::vocab::Stop::Busy(m) => m,
            other => format!("{}: {other:?}", super::shown(value)),
        })?;
        Ok(Target {
            url: value.to_owned(),
            server: None,
        })
    }
}

/// The server the environment names: `OUTBOX_PG_URL`, else libpq's `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`
/// and `PGDATABASE` (what `pg_virtualenv` sets), as a URL; `None` when neither is set.
pub fn url_from_env() -> Option<String> {
    if let Ok(url) = std::env::var("OUTBOX_PG_URL") {
        return Some(url);
    }
    let host = std::env::var("PGHOST").ok()?;
    let var =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let password = std::env::var("PGPASSWORD")
        .map(|p| format!(":{}", percent_encode(&p)))
        .unwrap_or_default();
    Some(format!(
        "postgresql://{}{password}@{}:{}/{}",
        percent_encode(&var("PGUSER", "postgres")),
        percent_encode(&host),
        var("PGPORT", "5432"),
        var("PGDATABASE", "postgres")
    ))
}

/// Where `initdb` and `pg_ctl` are: `OUTBOX_PG_BIN`, else Debian's newest `/usr/lib/postgresql/N/bin`, else PATH.
fn bin_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("OUTBOX_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let newest = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .max();
    if let Some((_, bin)) = newest {
        return Ok(bin);
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("initdb").is_file()))
        .unwrap_or(false);
    if on_path {
        return Ok(PathBuf::new());
    }
    Err("no PostgreSQL server here (initdb not found): run scripts/setup.sh, or `apt-get install postgresql`, \
         or give --store postgres://USER@HOST/DATABASE"
        .into())
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn run(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let output = command.output().map_err(|e| format!("{shown}: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Err(format!("{shown} failed ({}): {last}", output.status))
}

/// A socket directory as a URL's host.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
