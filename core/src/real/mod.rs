//! Real processes on real files — the CLI's `crash-real`, `race`, `soak` and `power` (Unix only).
//!
//! The page simulates a process exit by dropping a connection to an in-memory database. Here, as in the
//! article's own kit, every exit is a real one: each worker is this same binary (`experiments worker …`), a
//! child process that runs the core's [`crate::trace::Session`] on two SQLite files (WAL, `synchronous=FULL`, a
//! busy timeout) and dies by `_exit(73)` in the middle of its transaction, or by SIGKILL from its parent. The
//! parent then reopens the files and looks at what survived. There is no second implementation of the
//! protocol: the workers run the very producer, relay and consumer the page runs.
//!
//! A job (`crash`, `race`, `soak`, `power`: the parent) starts workers with [`worker_command`]; a worker
//! (`worker.rs`: the child) runs the steps of `steps.rs`; soak and power check the files with `checks.rs`. No
//! job imports the worker, and the worker imports no job.

pub mod checks;
pub mod crash;
pub mod power;
pub mod race;
pub mod soak;
pub mod steps;
pub mod worker;

use crate::protocol::{Location, Snapshot};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The exit code of a worker that dies at its boundary (the article's `os._exit(73)`).
pub const EXIT_CODE: i32 = 73;

/// How long a worker waits for another process's write lock before it answers `busy`.
pub use crate::protocol::location::BUSY_TIMEOUT;

/// Why a command did not give a verdict: bad arguments (exit 2, one line) or a failure to run (exit 1); or
/// its arguments parsed and its caller asked for no more ([`Watch::parse_only`]; exit 0).
#[derive(Debug)]
pub enum Error {
    Usage(String),
    Run(String),
    Parsed,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(m) | Error::Run(m) => f.write_str(m),
            Error::Parsed => f.write_str("the arguments parsed"),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Run(e.to_string())
    }
}

pub type Run = Result<bool, Error>;

/// Whoever watches a long run: how far it has come, and its report's lines as they are written. The CLI draws a
/// progress bar when standard error is a terminal and writes the lines around it; [`Plain`] shows no progress
/// and writes the lines to standard output (the tests' and scripts' output).
pub trait Watch {
    /// `done` of `total` (seconds or rounds), and what the run has come to in a few words (asked only when
    /// someone looks).
    fn at(&self, _done: u64, _total: u64, _what: &dyn Fn() -> String) {}
    /// The caller wants the arguments checked and nothing run: the command stops once they parsed, before it
    /// writes anything (the CLI's guides are checked so).
    fn parse_only(&self) -> bool {
        false
    }
    /// The run is over: whatever the watch drew goes, before the command's last words on stderr.
    fn done(&self) {}
    /// Whole lines of the run's report.
    fn write(&self, lines: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        std::io::stdout().lock().write_all(lines)
    }
}

/// No progress; the report on standard output.
pub struct Plain;

impl Watch for Plain {}

/// A run's report, handed to its watch a whole line at a time (the rest when dropped).
pub struct Report<'a> {
    watch: &'a dyn Watch,
    pending: Vec<u8>,
}

impl<'a> Report<'a> {
    pub fn new(watch: &'a dyn Watch) -> Report<'a> {
        Report {
            watch,
            pending: Vec::new(),
        }
    }
}

impl std::io::Write for Report<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        if let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') {
            let rest = self.pending.split_off(end + 1);
            let lines = std::mem::replace(&mut self.pending, rest);
            self.watch.write(&lines)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            let lines = std::mem::take(&mut self.pending);
            self.watch.write(&lines)?;
        }
        Ok(())
    }
}

impl Drop for Report<'_> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

/// `--name value` pairs, each name once and known to the command; every value read with its range.
pub struct Flags {
    values: BTreeMap<String, String>,
    parse_only: bool,
}

impl Flags {
    pub fn parse(args: &[String], known: &[&str]) -> Result<Flags, Error> {
        let mut values = BTreeMap::new();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let Some(name) = arg.strip_prefix("--").filter(|n| known.contains(n)) else {
                let expected = known
                    .iter()
                    .map(|k| format!("--{k}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(Error::Usage(format!(
                    "unknown argument `{arg}`; expected {expected}"
                )));
            };
            let Some(value) = it.next() else {
                return Err(Error::Usage(format!("--{name} needs a value")));
            };
            if values.insert(name.to_owned(), value.clone()).is_some() {
                return Err(Error::Usage(format!("--{name} is given twice")));
            }
        }
        Ok(Flags {
            values,
            parse_only: false,
        })
    }

    /// These flags stop their command once they parsed when `watch` asks for no more ([`Watch::parse_only`]).
    pub fn for_watch(self, watch: &dyn Watch) -> Flags {
        Flags {
            parse_only: watch.parse_only(),
            ..self
        }
    }

    /// A whole number in `min..=max`, or `default` when the flag is absent.
    pub fn number(&self, name: &str, default: u64, min: u64, max: u64) -> Result<u64, Error> {
        let Some(text) = self.values.get(name) else {
            return Ok(default);
        };
        match text.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(Error::Usage(format!(
                "--{name} must be a whole number from {min} to {max}, got `{text}`"
            ))),
        }
    }

    /// A flag's text, if given.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// `--seed`, or one taken from the clock (printed by the run, so a failure can be run again).
    pub fn seed(&self) -> Result<u64, Error> {
        let default = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64 % 1_000_000)
            .unwrap_or(1);
        self.number("seed", default, 0, u64::MAX / 2)
    }

    /// A random run's directories under a fresh `--dir`: `db` with the two files created, and `logs`.
    pub fn run_dirs(&self) -> Result<(PathBuf, PathBuf), Error> {
        let dir = self.fresh_dir()?;
        let (db_dir, log_dir) = (dir.join("db"), dir.join("logs"));
        create_files(&db_dir)?;
        std::fs::create_dir_all(&log_dir)?;
        Ok((db_dir, log_dir))
    }

    /// `--dir`: required, and empty or absent, so that nothing of a reader's is ever overwritten.
    pub fn fresh_dir(&self) -> Result<PathBuf, Error> {
        let Some(dir) = self.values.get("dir") else {
            return Err(Error::Usage(
                "--dir DIR is required (an empty or absent directory)".into(),
            ));
        };
        if dir.is_empty() {
            return Err(Error::Usage(
                "--dir needs a directory name, got an empty one".into(),
            ));
        }
        if self.parse_only {
            return Err(Error::Parsed);
        }
        let dir = PathBuf::from(dir);
        if dir.exists() {
            let empty = std::fs::read_dir(&dir)
                .map(|mut entries| entries.next().is_none())
                .unwrap_or(false);
            if !dir.is_dir() || !empty {
                return Err(Error::Usage(format!(
                    "--dir {}: not an empty directory; refusing to write over what is there",
                    dir.display()
                )));
            }
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::Usage(format!("--dir {}: cannot create it: {e}", dir.display())))?;
        Ok(dir)
    }
}

/// Where `crash-real` and `race` run, from `--store` and `--dir`, and, apart from it, the throw-away server the
/// command started, if any (stopped and removed when dropped).
pub struct Target {
    pub location: Location,
    #[cfg(feature = "postgres")]
    _server: Option<crate::protocol::pg::server::Target>,
}

impl Flags {
    /// `--store sqlite` (the default) needs `--dir`; `--store postgres` starts a throw-away server, and
    /// `--store postgres://…` uses that server's database (`--dir` is for files only).
    pub fn target(&self) -> Result<Target, Error> {
        let store = self.text("store").unwrap_or("sqlite");
        if store == "sqlite" {
            return Ok(Target {
                location: Location::files(self.fresh_dir()?),
                #[cfg(feature = "postgres")]
                _server: None,
            });
        }
        #[cfg(feature = "postgres")]
        if crate::protocol::pg::server::names_postgres(store) {
            if self.values.contains_key("dir") {
                return Err(Error::Usage(
                    "--dir is for SQLite's files; with --store postgres the databases are schemas on the server".into(),
                ));
            }
            if self.parse_only {
                return Err(Error::Parsed);
            }
            let server =
                crate::protocol::pg::server::Target::from_flag(store).map_err(Error::Usage)?;
            return Ok(Target {
                location: Location::postgres(&server.url).with_wait(BUSY_TIMEOUT),
                _server: Some(server),
            });
        }
        Err(Error::Usage(format!(
            "--store must be sqlite, postgres or a postgres:// URL, got `{store}`"
        )))
    }
}

/// `location`'s failure as a run's error, naming where.
pub fn failed(location: &Location) -> impl Fn(crate::protocol::Stop) -> Error + '_ {
    move |e| Error::Run(format!("{}: {e:?}", location.label()))
}

/// Creates `dir` and the two database files in it, empty, with the article's schema.
pub fn create_files(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir)?;
    let location = Location::files(dir);
    location.create().map_err(failed(&location))
}

/// What a fresh process sees in the files in `dir`: both databases' committed tables.
pub fn read_files(dir: &Path) -> Result<Snapshot, Error> {
    let location = Location::files(dir);
    location.read().map_err(failed(&location))
}

/// Child processes that are killed (SIGKILL) and reaped when this is dropped: whatever way the parent leaves
/// a command — done, an error, a panic — no worker outlives it.
#[derive(Default)]
pub struct Children(pub Vec<std::process::Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs one real command (`crash-real`, `race`, `soak`, `power`, or `worker` for the binary's own children): exit 0
/// when every check holds, 1 when one fails, 2 for bad arguments with one line on stderr. The CLI's and the core's
/// test binary's alike, so that the core's own tests run the real processes.
pub fn command(name: &str, args: &[String]) -> std::process::ExitCode {
    command_watched(name, args, &Plain)
}

/// [`command`], with `watch` hearing how far a long run has come and writing its report.
pub fn command_watched(name: &str, args: &[String], watch: &dyn Watch) -> std::process::ExitCode {
    use std::process::ExitCode;
    let outcome = match name {
        "crash-real" => crash::main(args, watch),
        "race" => race::main(args, watch),
        "soak" => soak::main(args, watch),
        "power" => power::main(args, watch),
        _ => return worker::main(args),
    };
    watch.done();
    match outcome {
        Ok(true) | Err(Error::Parsed) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(Error::Usage(message)) => {
            eprintln!("experiments {name}: {message}");
            ExitCode::from(2)
        }
        Err(Error::Run(message)) => {
            eprintln!("experiments {name}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// This binary, as a worker (`worker.rs`): `experiments worker ARGS…`, for a job to start.
pub fn worker_command(args: &[&str]) -> Result<Command, Error> {
    let exe = std::env::current_exe()?;
    let mut command = Command::new(exe);
    command.arg("worker").args(args);
    Ok(command)
}

/// A small deterministic generator (SplitMix64): the soak's choices follow from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// The tables after `steps` on in-memory databases: what a check of a real run is shown failing against.
#[cfg(test)]
fn after(setup: crate::trace::ConsumerSetup, steps: &[crate::trace::Step]) -> Snapshot {
    let mut session = crate::trace::Session::create(&Location::memory(), setup).unwrap();
    for step in steps {
        session.step(step);
    }
    session.snapshot().unwrap()
}
