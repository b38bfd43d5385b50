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
//! checked.

use super::answer::{Answer, Stopped};
use super::lite_sql::{controls_transaction, result_set, sequence, shims, split, Sequences};
use super::ops::{self, Memory, Ran};
use super::print::ResultSet;
use super::run::{Permutation, Transcript};
use super::{check, Block, Spec, Step};
use crate::protocol::conn::Conn;
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
        match self.db.conn() {
            Conn::Lite(c) => c,
            #[cfg(feature = "postgres")]
            Conn::Pg(_) => unreachable!("a SQLite session is opened on SQLite"),
        }
    }
}

/// How a step sent to its session stands (where a busy one stopped, to try it again from there).
enum Now {
    Answered(Answer),
    /// Busy at statement `at`, with the answers of the statements before it.
    Waiting {
        at: usize,
        so_far: Answer,
    },
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
            db: Db::on(Conn::Lite(conn), Role::Consumer),
            aborted: false,
            memory: Memory::default(),
        })
    };
    let mut watch = open()?;
    watch
        .conn()
        .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
        .map_err(|e| Stopped(format!("SQLite: {e}")))?;
    let mut sessions = spec
        .sessions
        .iter()
        .map(|_| open())
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Transcript::new(out);
    out.parsed(spec.sessions.len());
    for steps in spec.permutations() {
        permutation(
            spec,
            &steps,
            &mut watch,
            &mut sessions,
            &sequences,
            &mut out,
        )?;
    }
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

fn permutation(
    spec: &Spec,
    steps: &[String],
    watch: &mut Session,
    sessions: &mut [Session],
    sequences: &Sequences,
    out: &mut Transcript<'_>,
) -> Result<(), Stopped> {
    out.begin(steps);
    // Each permutation's sessions are new processes, which remember nothing they delivered; so is each block
    // of the spec's own, as on PostgreSQL, where it has a connection of its own.
    for session in sessions.iter_mut() {
        session.memory = Memory::default();
    }
    for sql in &spec.setup {
        watch.memory = Memory::default();
        block(watch, sequences, sql, "setup", out)?;
    }
    for (i, session) in spec.sessions.iter().enumerate() {
        if let Some(sql) = &session.setup {
            block(&mut sessions[i], sequences, sql, "a session's setup", out)?;
        }
    }
    let mut waiting: Vec<(usize, &Step, usize, Answer)> = Vec::new();
    let mut stopped = false;
    'steps: for name in steps {
        let (i, step) = spec.step(name).expect("a parsed spec's step");
        let who = &spec.sessions[i].name;
        if let Some(at) = waiting.iter().position(|(s, ..)| *s == i) {
            let (_, earlier, from, so_far) = waiting.remove(at);
            match statements(&mut sessions[i], sequences, &earlier.sql, from, so_far) {
                Now::Answered(answer) => out.completed(who, earlier, &answer),
                Now::Waiting { .. } => {
                    out.cannot(who, step, &format!(
                        "session {who} still waits for the writer (SQLite lets one in at a time), which this permutation frees only later"
                    ));
                    stopped = true;
                    break 'steps;
                }
            }
            waiting = released(waiting, sessions, sequences, spec, out);
        }
        match statements(&mut sessions[i], sequences, &step.sql, 0, Answer::default()) {
            Now::Answered(answer) => out.answered(who, step, &answer),
            Now::Waiting { at, so_far } => {
                out.waiting(who, step);
                waiting.push((i, step, at, so_far));
            }
        }
        waiting = released(waiting, sessions, sequences, spec, out);
    }
    if !stopped {
        if let Some((i, step, ..)) = waiting.first() {
            let who = &spec.sessions[*i].name;
            out.cannot(
                who,
                step,
                &format!("session {who} still waits for the writer when the permutation ends"),
            );
            stopped = true;
        }
    }
    // What a stopped permutation left open goes, so that the next one starts from its setup.
    if stopped {
        roll_back(sessions);
    } else {
        check_end(watch, out)?;
    }
    for (i, session) in spec.sessions.iter().enumerate() {
        if let Some(sql) = &session.teardown {
            let answer = statements(&mut sessions[i], sequences, sql, 0, Answer::default());
            if let Now::Answered(answer) = answer {
                out.block(sql, &answer);
            }
        }
    }
    // What a session still has open after its own teardown goes before the spec's, as on PostgreSQL (`pg.rs`).
    roll_back(sessions);
    if let Some(sql) = &spec.teardown {
        watch.memory = Memory::default();
        block(watch, sequences, sql, "teardown", out)?;
    }
    Ok(())
}

fn roll_back(sessions: &mut [Session]) {
    for session in sessions.iter_mut() {
        if !session.conn().is_autocommit() {
            let _ = session.conn().execute_batch("ROLLBACK");
        }
        session.aborted = false;
    }
}

/// The waiting steps tried again, in the order they began to wait: those that got through are printed.
fn released<'s>(
    waiting: Vec<(usize, &'s Step, usize, Answer)>,
    sessions: &mut [Session],
    sequences: &Sequences,
    spec: &Spec,
    out: &mut Transcript<'_>,
) -> Vec<(usize, &'s Step, usize, Answer)> {
    let mut still = Vec::new();
    for (i, step, from, so_far) in waiting {
        match statements(&mut sessions[i], sequences, &step.sql, from, so_far) {
            Now::Answered(answer) => out.completed(&spec.sessions[i].name, step, &answer),
            Now::Waiting { at, so_far } => still.push((i, step, at, so_far)),
        }
    }
    still
}

fn block(
    session: &mut Session,
    sequences: &Sequences,
    sql: &Block,
    what: &str,
    out: &mut Transcript<'_>,
) -> Result<(), Stopped> {
    match statements(session, sequences, sql, 0, Answer::default()) {
        Now::Answered(answer) => match &answer.error {
            Some(e) => Err(Stopped(format!("{what} failed: {e}"))),
            None => {
                out.block(sql, &answer);
                Ok(())
            }
        },
        Now::Waiting { .. } => Err(Stopped(format!(
            "{what} found the database busy: a session still holds the writer"
        ))),
    }
}

fn check_end(watch: &mut Session, out: &mut Transcript<'_>) -> Result<(), Stopped> {
    let checked = check::end_state(&mut |sql| {
        let mut stmt = watch.conn().prepare(sql).map_err(|e| e.to_string())?;
        result_set(&mut stmt).map_err(|e| e.to_string())
    })
    .map_err(|e| Stopped(format!("reading the end state: {e}")))?;
    if let Some(checked) = checked {
        out.checked(checked);
    }
    Ok(())
}

/// Runs `block`'s statements (or its protocol operations) from the `from`th, one at a time, adding to `so_far`.
fn statements(
    session: &mut Session,
    sequences: &Sequences,
    block: &Block,
    from: usize,
    mut so_far: Answer,
) -> Now {
    let sql = match block {
        Block::Ops { ops, .. } => {
            let aborted = session.aborted;
            return match ops::run_block(
                &mut session.db,
                ops,
                from,
                so_far,
                &mut session.memory,
                aborted,
            ) {
                Ran::Answered(answer) => Now::Answered(answer),
                Ran::Busy { at, so_far } => Now::Waiting { at, so_far },
            };
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
                return Now::Waiting { at: 0, so_far };
            }
            so_far.error = Some(format!("ERROR:  {}", message(&e)));
            return Now::Answered(so_far);
        }
    }
    for (at, statement) in all.iter().enumerate().skip(from) {
        match statement_answer(session, sequences, statement) {
            Ok(Some(set)) => so_far.sets.push(set),
            Ok(None) => {}
            // Not in an implicit transaction: it holds the write lock from its start.
            Err(e) if busy(&e) => return Now::Waiting { at, so_far },
            Err(e) => {
                so_far.error = Some(format!("ERROR:  {}", message(&e)));
                // The error ends its transaction, as on PostgreSQL; the block's other statements are not run.
                if !session.conn().is_autocommit() {
                    let _ = session.conn().execute_batch("ROLLBACK");
                    session.aborted = !implicit;
                }
                return Now::Answered(so_far);
            }
        }
    }
    if implicit {
        if let Err(e) = session.conn().execute_batch("COMMIT") {
            so_far.error = Some(format!("ERROR:  {}", message(&e)));
            let _ = session.conn().execute_batch("ROLLBACK");
        }
    }
    Now::Answered(so_far)
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
    let in_transaction = !session.conn().is_autocommit();
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
