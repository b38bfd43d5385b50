//! A spec run on SQLite, the protocol's other store: one connection per session to one database file (WAL, as
//! the real processes use), each statement sent alone. SQLite lets one writer in at a time, so a step that needs
//! the write lock while another session holds it is answered "busy" at once (no busy timeout): it is printed
//! `<waiting ...>`, as PostgreSQL's lock wait is, and tried again, from the statement that was busy, after each
//! step that follows; `<... completed>` when it gets through.
//!
//! What a spec written for PostgreSQL needs to mean the same here, and nothing more (`docs/postgres.md` lists
//! it; the statements' side is `lite_sql.rs`):
//! - `BEGIN` is `BEGIN IMMEDIATE`: every transaction takes the write lock first, as the protocol's do on SQLite.
//! - Several statements outside a transaction are one; an error ends the transaction it is in, as on
//!   PostgreSQL: the statements after it in the transaction are refused with PostgreSQL's words, and its
//!   `COMMIT` rolls back.
//! - Sequences are counters outside any transaction, as PostgreSQL's are; `pg_advisory_xact_lock(key)` does
//!   nothing, as the writer's lock already excludes every other writer.
//!
//! A step whose session still waits when the permutation asks for its next one cannot run in that order here:
//! the writer it waits for is freed only by a later step. The permutation stops there, says so, and is not
//! checked. The permutations are run by `engine.rs`, as on PostgreSQL; this file is what SQLite does differently:
//! how a block's statements run, and busy as the wait.

use super::answer::{Answer, Now, Stopped};
use super::engine::{self, Store};
use super::lite_sql::{controls_transaction, result_set, sequence, shims, split, Sequences};
use super::ops::{self, Memory, Ran};
use super::print::ResultSet;
use super::run::{Permutation, Transcript};
use super::{Block, Spec, Step};
use crate::protocol::db::Db;
use crate::protocol::Role;
use rusqlite::{ffi, Connection, ErrorCode};
use std::io::Write;

/// A session's connection and what its transaction has come to.
struct Session {
    /// The protocol's handle on the connection, for the steps that call its operations.
    db: Db,
    /// An error ended the transaction: the rest of it is refused until its end, as on PostgreSQL.
    aborted: bool,
    memory: Memory,
}

impl Session {
    fn conn(&self) -> &Connection {
        // Opened by `run_spec` below on an SQLite connection: the seam hands it back.
        self.db
            .conn()
            .lite()
            .expect("a SQLite session is opened on SQLite")
    }
}

const ABORTED: &str =
    "ERROR:  current transaction is aborted, commands ignored until end of transaction block";

/// Runs `spec` on a fresh SQLite database in a temporary directory, printing as the isolation tester prints.
pub fn run_spec(spec: &Spec, out: &mut dyn Write) -> Result<Vec<Permutation>, Stopped> {
    let dir = Scratch::new().map_err(|e| Stopped(format!("a temporary directory: {e}")))?;
    let path = dir.0.join("spec.db");
    let sequences = Sequences::default();
    let open = || -> Result<Session, Stopped> {
        let conn = Connection::open(&path).map_err(|e| Stopped(format!("SQLite: {e}")))?;
        // Busy is answered at once (rusqlite would wait 5 s): the runner, not SQLite, waits.
        conn.busy_timeout(std::time::Duration::ZERO)
            .and_then(|()| shims(&conn, &sequences))
            .map_err(|e| Stopped(format!("SQLite: {e}")))?;
        Ok(Session {
            db: Db::on(conn.into(), Role::Consumer),
            aborted: false,
            memory: Memory::default(),
        })
    };
    let watch = open()?;
    watch
        .conn()
        .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
        .map_err(|e| Stopped(format!("SQLite: {e}")))?;
    let sessions = spec
        .sessions
        .iter()
        .map(|_| open())
        .collect::<Result<Vec<_>, _>>()?;
    let mut lite = Lite {
        pending: sessions.iter().map(|_| None).collect(),
        watch,
        sessions,
        sequences: &sequences,
    };
    let mut out = Transcript::new(out);
    engine::run(spec, &mut lite, &mut out)?;
    Ok(out.permutations)
}

/// The SQLite this store runs on (the bundled one), as the recording names it.
pub fn sqlite_version() -> String {
    rusqlite::version().to_owned()
}

/// A directory of its own for the run's database, removed with everything in it when the run ends.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("outbox-interleave-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The SQLite store the driver runs: the watch's connection (the spec's own blocks, the end state) and one per
/// session, with where each session's waiting step stopped.
struct Lite<'s> {
    watch: Session,
    sessions: Vec<Session>,
    sequences: &'s Sequences,
    /// Per session, its step sent and not yet answered: the statement to try again from, and the answers before
    /// it.
    pending: Vec<Option<(usize, Answer)>>,
}

impl Lite<'_> {
    /// `block` on `session` to its end: refused, named `what`, when it finds the writer taken or fails.
    fn finished(&mut self, i: Option<usize>, block: &Block, what: &str) -> Result<Answer, Stopped> {
        let session = match i {
            Some(i) => &mut self.sessions[i],
            None => &mut self.watch,
        };
        match statements(session, self.sequences, block, 0, Answer::default()) {
            Ran::Answered(answer) => Ok(answer),
            Ran::Busy { .. } => Err(Stopped(format!(
                "{what} found the database busy: a session still holds the writer"
            ))),
        }
    }
}

impl Store for Lite<'_> {
    fn forget(&mut self) {
        // Each permutation's sessions are new processes, which remember nothing they delivered.
        for session in &mut self.sessions {
            session.memory = Memory::default();
        }
    }

    fn block(&mut self, block: &Block, what: &str) -> Result<Answer, Stopped> {
        // Each block of the spec's own is a new process too, as on PostgreSQL, where it has a connection of its
        // own.
        self.watch.memory = Memory::default();
        self.finished(None, block, what)
    }

    fn setup(&mut self, i: usize, block: &Block) -> Result<Answer, Stopped> {
        let what = "a session's setup";
        let answer = self.finished(Some(i), block, what)?;
        match &answer.error {
            Some(e) => Err(Stopped(format!("{what} failed: {e}"))),
            None => Ok(answer),
        }
    }

    fn teardown(&mut self, i: usize, block: &Block) -> Result<Option<Answer>, Stopped> {
        Ok(
            match statements(
                &mut self.sessions[i],
                self.sequences,
                block,
                0,
                Answer::default(),
            ) {
                Ran::Answered(answer) => Some(answer),
                Ran::Busy { .. } => None,
            },
        )
    }

    fn send(&mut self, i: usize, _: &Step) -> Result<(), Stopped> {
        self.pending[i] = Some((0, Answer::default()));
        Ok(())
    }

    /// The step run, or tried again from the statement that was busy.
    fn settle(&mut self, i: usize, step: &Step) -> Result<Now, Stopped> {
        let (from, so_far) = self.pending[i].take().unwrap_or_default();
        Ok(
            match statements(
                &mut self.sessions[i],
                self.sequences,
                &step.sql,
                from,
                so_far,
            ) {
                Ran::Answered(answer) => Now::Answered(answer),
                Ran::Busy { at, so_far } => {
                    self.pending[i] = Some((at, so_far));
                    Now::Waiting
                }
            },
        )
    }

    /// Always: busy is answered at once, and the one writer is freed only by a step that runs after it.
    fn freed_only_later(&mut self, _: usize, _: &[usize]) -> Result<bool, Stopped> {
        Ok(true)
    }

    /// Never needed (every wait is freed only later, above); a step still busy stops the run.
    fn wait(&mut self, i: usize, step: &Step) -> Result<Answer, Stopped> {
        match self.settle(i, step)? {
            Now::Answered(answer) => Ok(answer),
            Now::Waiting => Err(Stopped(format!(
                "step {} still waits for the writer",
                step.name
            ))),
        }
    }

    fn abandon(&mut self, waiting: &[usize]) -> Result<(), Stopped> {
        for &i in waiting {
            self.pending[i] = None;
        }
        Ok(())
    }

    fn roll_back(&mut self) -> Result<(), Stopped> {
        for session in &mut self.sessions {
            if !session.conn().is_autocommit() {
                let _ = session.conn().execute_batch("ROLLBACK");
            }
            session.aborted = false;
        }
        Ok(())
    }

    fn read(&mut self, sql: &str) -> Result<ResultSet, String> {
        let mut stmt = self.watch.conn().prepare(sql).map_err(|e| e.to_string())?;
        result_set(&mut stmt).map_err(|e| e.to_string())
    }

    fn cannot(&self, who: &str, at_end: bool) -> String {
        if at_end {
            format!("session {who} still waits for the writer when the permutation ends")
        } else {
            format!(
                "session {who} still waits for the writer (SQLite lets one in at a time), which this permutation frees only later"
            )
        }
    }
}

/// Runs `block`'s statements (or its protocol operations) from the `from`th, one at a time, adding to `so_far`.
fn statements(
    session: &mut Session,
    sequences: &Sequences,
    block: &Block,
    from: usize,
    mut so_far: Answer,
) -> Ran {
    let sql = match block {
        Block::Ops { ops, .. } => {
            let aborted = session.aborted;
            return ops::run_block(
                &mut session.db,
                ops,
                from,
                so_far,
                &mut session.memory,
                aborted,
            );
        }
        Block::Sql(sql) => sql,
    };
    let all = split(sql);
    // Several statements outside a transaction are one implicit transaction on PostgreSQL: an error undoes
    // the block. The same here, its write lock taken first, as every transaction here takes it.
    let implicit = from == 0
        && all.len() > 1
        && session.conn().is_autocommit()
        && !all.iter().any(|s| controls_transaction(s));
    if implicit {
        if let Err(e) = session.conn().execute_batch("BEGIN IMMEDIATE") {
            if busy(&e) {
                return Ran::Busy { at: 0, so_far };
            }
            so_far.error = Some(format!("ERROR:  {}", message(&e)));
            return Ran::Answered(so_far);
        }
    }
    for (at, statement) in all.iter().enumerate().skip(from) {
        match statement_answer(session, sequences, statement) {
            Ok(Some(set)) => so_far.sets.push(set),
            Ok(None) => {}
            // Not in an implicit transaction: it holds the write lock from its start.
            Err(e) if busy(&e) => return Ran::Busy { at, so_far },
            Err(e) => {
                so_far.error = Some(format!("ERROR:  {}", message(&e)));
                // The error ends its transaction, as on PostgreSQL; the block's other statements are not run.
                if !session.conn().is_autocommit() {
                    let _ = session.conn().execute_batch("ROLLBACK");
                    session.aborted = !implicit;
                }
                return Ran::Answered(so_far);
            }
        }
    }
    if implicit {
        if let Err(e) = session.conn().execute_batch("COMMIT") {
            so_far.error = Some(format!("ERROR:  {}", message(&e)));
            let _ = session.conn().execute_batch("ROLLBACK");
        }
    }
    Ran::Answered(so_far)
}

fn busy(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::DatabaseBusy)
}

fn message(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(m)) => m.clone(),
        rusqlite::Error::UserFunctionError(m) => m.to_string(),
        other => other.to_string(),
    }
}

/// One statement's answer: its rows, when it has columns.
fn statement_answer(
    session: &mut Session,
    sequences: &Sequences,
    statement: &str,
) -> Result<Option<ResultSet>, rusqlite::Error> {
    let words: Vec<String> = statement
        .split_whitespace()
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let word = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    let refused =
        |m: String| rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_ERROR), Some(m));
    let in_transaction = session.db.conn().in_transaction();
    match (word(0), word(1)) {
        ("SAVEPOINT" | "RELEASE", _) | ("ROLLBACK", "TO") => {
            return Err(refused(
                "savepoints are not supported on SQLite here".into(),
            ))
        }
        _ => {}
    }
    let ends = matches!(word(0), "COMMIT" | "ROLLBACK" | "END" | "ABORT");
    if session.aborted {
        if ends {
            session.aborted = false;
            return Ok(None);
        }
        return Err(refused(ABORTED["ERROR:  ".len()..].to_owned()));
    }
    match (word(0), word(1)) {
        // PostgreSQL only warns of a BEGIN inside a transaction, or an end outside one.
        ("BEGIN" | "START", _) if in_transaction => return Ok(None),
        ("BEGIN" | "START", _) => {
            session.conn().execute_batch("BEGIN IMMEDIATE")?;
            return Ok(None);
        }
        ("COMMIT" | "ROLLBACK" | "END" | "ABORT", _) if !in_transaction => return Ok(None),
        ("ABORT", _) => {
            session.conn().execute_batch("ROLLBACK")?;
            return Ok(None);
        }
        ("CREATE" | "DROP", "SEQUENCE") => {
            return sequence(&words[2..], word(0) == "CREATE", sequences).map_err(refused)
        }
        _ => {}
    }
    let mut stmt = session.conn().prepare(statement)?;
    if stmt.column_count() == 0 {
        stmt.raw_execute()?;
        return Ok(None);
    }
    result_set(&mut stmt).map(Some)
}

#[cfg(test)]
#[path = "lite_tests.rs"]
mod tests;
