//! `experiments crash-real --dir DIR [--consumer NAME]`: the ten exits of PROTOCOL.md §8 as real processes on real files
//! (or, `--store postgres`, on real connections to a PostgreSQL server: an exit drops the connection).
//!
//! For each boundary, in a directory of its own: a child process runs the article's first step of flow A up to
//! that boundary and `_exit(73)`s there with its transaction open. The parent checks the exit status, reopens
//! the files and compares what is visible with §8's table, then runs recovery in another fresh process and
//! checks what the article promises after it: exactly one effect, `reserved`, `last_seq=1`, `held=3`.

use super::{failed, worker_command, Error, Flags, Run, EXIT_CODE};
use crate::protocol::Location;
use crate::protocol::{Boundary, Ordering, Snapshot};
use serde_json::Value;
use std::fmt;
use std::io::Write;
use std::process::Stdio;

/// What a fresh process sees of flow A in both files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visible {
    /// `flow`: (seq, state).
    pub flow: Option<(i64, String)>,
    /// `outbox` A1: accepted.
    pub outbox: Option<i64>,
    /// `inbox` A1: state.
    pub inbox: Option<String>,
    /// `projection` A: (last_seq, state, held).
    pub projection: Option<(i64, String, i64)>,
    /// Effect rows of flow A.
    pub effects: usize,
}

impl Visible {
    pub fn of(snapshot: &Snapshot) -> Visible {
        let p = &snapshot.producer;
        let c = &snapshot.consumer;
        Visible {
            flow: p
                .flow
                .iter()
                .find(|r| r.flow_id == "A")
                .map(|r| (r.seq, r.state.clone())),
            outbox: p
                .outbox
                .iter()
                .find(|r| r.event_id == "A1")
                .map(|r| r.accepted),
            inbox: c
                .inbox
                .iter()
                .find(|r| r.event_id == "A1")
                .map(|r| r.state.clone()),
            projection: c
                .projection
                .iter()
                .find(|r| r.flow_id == "A")
                .map(|r| (r.last_seq, r.state.clone(), r.held)),
            effects: c.effect.iter().filter(|r| r.flow_id == "A").count(),
        }
    }

    /// §8's "visible after restart" column for `boundary`, before any recovery.
    pub fn expected_before(boundary: Boundary) -> Visible {
        let n = boundary.number();
        let produced = n >= 3;
        Visible {
            flow: produced.then(|| (1, "reserved".to_owned())),
            outbox: produced.then_some(i64::from(n >= 7)),
            inbox: match n {
                5..=9 => Some("pending".to_owned()),
                10 => Some("applied".to_owned()),
                _ => None,
            },
            projection: (n == 10).then(|| (1, "reserved".to_owned(), 3)),
            effects: usize::from(n == 10),
        }
    }

    /// After recovery, whatever the boundary: exactly one effect, `reserved`, `last_seq=1`, `held=3`.
    pub fn expected_after() -> Visible {
        Visible {
            flow: Some((1, "reserved".to_owned())),
            outbox: Some(1),
            inbox: Some("applied".to_owned()),
            projection: Some((1, "reserved".to_owned(), 3)),
            effects: 1,
        }
    }
}

impl fmt::Display for Visible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.flow {
            Some((seq, state)) => write!(f, "flow {state} seq {seq}")?,
            None => write!(f, "flow -")?,
        }
        match self.outbox {
            Some(accepted) => write!(f, ", outbox accepted={accepted}")?,
            None => write!(f, ", outbox -")?,
        }
        match &self.inbox {
            Some(state) => write!(f, ", inbox {state}")?,
            None => write!(f, ", inbox -")?,
        }
        match &self.projection {
            Some((last_seq, state, held)) => {
                write!(f, ", projection {state} last_seq={last_seq} held={held}")?
            }
            None => write!(f, ", projection -")?,
        }
        write!(f, ", effects {}", self.effects)
    }
}

/// One boundary's run: the child's exit, what was visible before and after recovery.
struct Row {
    boundary: Boundary,
    exit: String,
    exited_at_boundary: bool,
    before: Visible,
    recovery: Vec<String>,
    after: Visible,
}

impl Row {
    fn ok(&self) -> bool {
        self.exited_at_boundary
            && self.before == Visible::expected_before(self.boundary)
            && self.after == Visible::expected_after()
    }
}

pub fn main(args: &[String], watch: &dyn super::Watch) -> Run {
    let flags = Flags::parse(args, &["dir", "consumer", "store"])?.for_watch(watch);
    // Any built-in consumer, so that a wrong turn is seen failing §8 (the rule's needs a rule file).
    let consumer = match flags.text("consumer") {
        None => Ordering::Strict,
        Some(name) => Ordering::from_name(name)
            .filter(|o| *o != Ordering::Rule)
            .ok_or_else(|| {
                let names: Vec<String> = Ordering::ALL
                    .iter()
                    .filter(|o| **o != Ordering::Rule)
                    .map(|o| format!("`{}`", o.name()))
                    .collect();
                Error::Usage(format!(
                    "--consumer must be one of {}, got `{name}`",
                    names.join(", ")
                ))
            })?,
    };
    let target = flags.target()?;
    let dir = &target.location;
    let mut out = super::Report::new(watch);
    let _ = writeln!(
        out,
        "The ten exits of §8, each a real child process that calls _exit({EXIT_CODE}) with its transaction open,\n\
         on {}, consumer {}:",
        dir.describe(),
        consumer.name()
    );
    let mut matched = 0;
    for boundary in Boundary::ALL {
        let row = run_boundary(dir, boundary, consumer)?;
        let ok = row.ok();
        matched += usize::from(ok);
        let mark = if ok { "ok" } else { "FAILED" };
        let _ = writeln!(
            out,
            "{mark:<6} {:>2} {:<24} {}",
            boundary.number(),
            boundary.name(),
            row.exit
        );
        let _ = writeln!(out, "         before recovery: {}", row.before);
        if row.before != Visible::expected_before(boundary) {
            let _ = writeln!(
                out,
                "         expected (§8):   {}",
                Visible::expected_before(boundary)
            );
        }
        let _ = writeln!(out, "         recovery:        {}", row.recovery.join(", "));
        let _ = writeln!(out, "         after recovery:  {}", row.after);
        if row.after != Visible::expected_after() {
            let _ = writeln!(
                out,
                "         expected (§8):   {}",
                Visible::expected_after()
            );
        }
    }
    let _ = writeln!(out, "{matched} of 10 boundaries match PROTOCOL.md §8");
    Ok(matched == Boundary::ALL.len())
}

fn run_boundary(root: &Location, boundary: Boundary, consumer: Ordering) -> Result<Row, Error> {
    let dir = root.child(&format!("{:02}-{}", boundary.number(), boundary.name()));
    dir.create().map_err(failed(&dir))?;
    let dir_text = dir.arg();

    let crashed = worker_command(&["crash", &dir_text, boundary.name(), consumer.name()])?
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()?;
    let exited_at_boundary = crashed.status.code() == Some(EXIT_CODE);
    let exit = match crashed.status.code() {
        Some(code) if code == EXIT_CODE => format!("the child exited with {code} at the boundary"),
        Some(code) => {
            format!("the child exited with {code}, not {EXIT_CODE}: the boundary was not reached")
        }
        None => format!("the child ended without an exit code: {}", crashed.status),
    };
    let before = Visible::of(&dir.read().map_err(failed(&dir))?);

    let recovered = worker_command(&["recover", &dir_text, consumer.name()])?
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()?;
    if !recovered.status.success() {
        return Err(Error::Run(format!(
            "{}: the recovery process failed: {}",
            boundary.name(),
            recovered.status
        )));
    }
    let recovery = String::from_utf8_lossy(&recovered.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|v| {
            format!(
                "{} {}",
                v["op"].as_str().unwrap_or("?"),
                v["result"].as_str().unwrap_or("?")
            )
        })
        .collect();
    let after = Visible::of(&dir.read().map_err(failed(&dir))?);
    let row = Row {
        boundary,
        exit,
        exited_at_boundary,
        before,
        recovery,
        after,
    };
    // A server's schemas that matched §8 are dropped (a reader's database is not for keeping runs); files stay
    // for the reader to open, and a failed boundary's schemas stay to look into.
    if row.ok() {
        dir.tidy();
    }
    Ok(row)
}
