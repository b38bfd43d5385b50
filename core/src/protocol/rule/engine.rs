//! Where a rule runs: a scratch in-memory database per thread that holds only `waiting`, with SQLite's authorizer
//! (what a rule may read and call, and whether it reads `arrival`) and its progress handler (a bound on steps).
//! The rule's statement stays prepared in the connection's cache: prepared once per rule, not per apply.

use super::{Act, WaitingRow};
use rusqlite::ffi;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_void, CStr};

/// `waiting`'s columns, in RULE.md's order.
pub const COLUMNS: [&str; 11] = [
    "event_id",
    "seq",
    "kind",
    "schema",
    "state",
    "reason",
    "last_seq",
    "flow_state",
    "held",
    "problem",
    "arrival",
];

const SCHEMA: &str = "CREATE TABLE waiting(event_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, \
    schema INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT, last_seq INTEGER NOT NULL, flow_state TEXT NOT NULL, \
    held INTEGER NOT NULL, problem TEXT, arrival INTEGER NOT NULL)";
const INSERT: &str = "INSERT INTO waiting VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

/// Progress callbacks come every this many SQLite VM steps.
const STEPS_PER_CALL: c_int = 1000;
/// A rule is stopped after this many callbacks: two million steps, tens of milliseconds in the page.
pub const MAX_CALLS: u32 = 2000;
/// The longest string or blob a rule may build: a rule's values are ids and words (a string doubled in a loop,
/// or a cross join of long strings, stops here rather than in the page's memory).
const MAX_LENGTH: c_int = 1_000;

/// The functions a rule may call: each one's answer is fixed by its arguments, and each is in the page's
/// SQLite as in the CLI's, with the same answer (no floating point: no `avg`, `total`, `round`, `printf`).
pub const FUNCTIONS: [&str; 42] = [
    "abs",
    "char",
    "coalesce",
    "concat",
    "concat_ws",
    "count",
    "dense_rank",
    "first_value",
    "glob",
    "group_concat",
    "hex",
    "ifnull",
    "iif",
    "instr",
    "lag",
    "last_value",
    "lead",
    "length",
    "like",
    "likely",
    "lower",
    "ltrim",
    "max",
    "min",
    "nth_value",
    "ntile",
    "nullif",
    "octet_length",
    "quote",
    "rank",
    "replace",
    "row_number",
    "rtrim",
    "sign",
    "string_agg",
    "substr",
    "substring",
    "sum",
    "trim",
    "typeof",
    "unicode",
    "upper",
];

/// What the authorizer learned and what the progress handler counts, shared with SQLite's callbacks.
#[derive(Default)]
struct Guard {
    /// The engine's own statements (filling `waiting`) are being prepared: nothing is refused.
    trusted: Cell<bool>,
    refusal: RefCell<Option<String>>,
    reads_arrival: Cell<bool>,
    calls: Cell<u32>,
}

struct Scratch {
    // Declared first: the connection (and its callbacks) go before the guard they point at.
    conn: Connection,
    guard: Box<Guard>,
}

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

const SQLITE_READ: c_int = 20;
const SQLITE_SELECT: c_int = 21;
const SQLITE_FUNCTION: c_int = 31;

fn text<'a>(p: *const c_char) -> &'a str {
    if p.is_null() {
        ""
    } else {
        // SAFETY: SQLite passes NUL-terminated strings that live for the callback.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("")
    }
}

/// SQLite's authorizer: a rule reads `waiting`'s columns, calls the listed functions, and nothing else.
unsafe extern "C" fn authorize(
    data: *mut c_void,
    code: c_int,
    a1: *const c_char,
    a2: *const c_char,
    _db: *const c_char,
    _inner: *const c_char,
) -> c_int {
    // SAFETY: `data` is the `Guard` boxed beside the connection, alive as long as it is.
    let guard = unsafe { &*(data as *const Guard) };
    if guard.trusted.get() {
        return ffi::SQLITE_OK;
    }
    let refusal = match code {
        SQLITE_SELECT => None,
        SQLITE_READ => {
            let (table, column) = (text(a1), text(a2));
            if !table.eq_ignore_ascii_case("waiting") {
                Some(super::lex::refused_table(table))
            } else if column.is_empty() {
                None
            } else if let Some(c) = COLUMNS.iter().find(|c| c.eq_ignore_ascii_case(column)) {
                if *c == "arrival" {
                    guard.reads_arrival.set(true);
                }
                None
            } else {
                Some(format!(
                    "the rule reads waiting.{column}, which is not a column of waiting"
                ))
            }
        }
        SQLITE_FUNCTION => {
            let name = text(a2);
            if FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(name)) {
                None
            } else {
                Some(super::lex::refused_function(name))
            }
        }
        _ => Some("the rule must only read: it may not write, attach, or change a setting".into()),
    };
    match refusal {
        None => ffi::SQLITE_OK,
        Some(message) => {
            guard.refusal.borrow_mut().get_or_insert(message);
            ffi::SQLITE_DENY
        }
    }
}

/// SQLite's progress handler: stops the statement after [`MAX_CALLS`] calls.
unsafe extern "C" fn progress(data: *mut c_void) -> c_int {
    // SAFETY: as in `authorize`.
    let guard = unsafe { &*(data as *const Guard) };
    let calls = guard.calls.get() + 1;
    guard.calls.set(calls);
    c_int::from(calls > MAX_CALLS)
}

fn open() -> Result<Scratch, String> {
    let conn = crate::protocol::db::open("file:outbox-playground-rule.db?vfs=memdb")
        .and_then(|c| c.execute_batch(SCHEMA).map(|()| c))
        .map_err(|e| format!("the rule's database failed: {e}"))?;
    conn.set_prepared_statement_cache_capacity(32);
    // As the page's SQLite is built (`.cargo/config.toml`: SQLITE_DQS=0, no automatic index): a double-quoted
    // word is a name, never a string, and both builds plan a rule alike.
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rusqlite::config::DbConfig;
        let alike = conn
            .set_db_config(DbConfig::SQLITE_DBCONFIG_DQS_DML, false)
            .and_then(|_| conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DQS_DDL, false))
            .and_then(|_| conn.execute_batch("PRAGMA automatic_index = OFF"));
        alike.map_err(|e| format!("the rule's database failed: {e}"))?;
    }
    let guard = Box::<Guard>::default();
    let data = &*guard as *const Guard as *mut c_void;
    // SAFETY: the handle is this connection's own; `guard` outlives it (see `Scratch`).
    unsafe {
        let db = conn.handle();
        ffi::sqlite3_limit(db, ffi::SQLITE_LIMIT_LENGTH, MAX_LENGTH);
        ffi::sqlite3_set_authorizer(db, Some(authorize), data);
        ffi::sqlite3_progress_handler(db, STEPS_PER_CALL, Some(progress), data);
    }
    Ok(Scratch { conn, guard })
}

fn with_scratch<T>(f: impl FnOnce(&Scratch) -> Result<T, String>) -> Result<T, String> {
    SCRATCH.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(open()?);
        }
        match slot.as_ref() {
            Some(scratch) => f(scratch),
            None => Err("the rule's database failed".into()),
        }
    })
}

/// A refusal from SQLite as it prepares a rule: the message and where, when SQLite says.
fn prepare_error(guard: &Guard, e: rusqlite::Error) -> (String, Option<usize>) {
    let refused = guard.refusal.borrow_mut().take();
    if let rusqlite::Error::MultipleStatement = e {
        return ("the rule must be exactly one statement".into(), None);
    }
    if let Some(message) = refused {
        return (message, None);
    }
    match e {
        rusqlite::Error::SqlInputError { msg, offset, .. } => (msg, usize::try_from(offset).ok()),
        rusqlite::Error::SqliteFailure(_, Some(msg)) => (msg, None),
        _ => ("SQLite could not prepare the rule".into(), None),
    }
}

/// Prepares `sql` as a rule: whether SQLite accepts it under the authorizer, its two columns, and whether it
/// reads `arrival`.
pub fn prepare(sql: &str) -> Result<bool, (String, Option<usize>)> {
    let outcome = with_scratch(|s| {
        *s.guard.refusal.borrow_mut() = None;
        s.guard.reads_arrival.set(false);
        // Not from the cache: the authorizer must see this prepare to say what the rule reads.
        let checked = match s.conn.prepare(sql) {
            Err(e) => Err(prepare_error(&s.guard, e)),
            Ok(stmt) if !stmt.readonly() => {
                Err(("the rule must only read: it may not write".into(), None))
            }
            Ok(stmt) if stmt.column_count() != 2 => Err((
                format!(
                    "the rule's result must be two columns, an event_id and an action; it has {}",
                    stmt.column_count()
                ),
                None,
            )),
            Ok(_) => Ok(s.guard.reads_arrival.get()),
        };
        Ok(checked)
    });
    match outcome {
        Ok(checked) => checked,
        Err(message) => Err((message, None)),
    }
}

/// Runs an accepted rule over `rows`: the first row of its answer, read as an index into `rows` and an action.
/// Every answer the engine cannot carry out is an `Err` that says what the rule returned.
pub fn answer(sql: &str, rows: &[WaitingRow]) -> Result<Option<(usize, Act)>, String> {
    with_scratch(|s| {
        let failed = run_error;
        // Counted from here: the engine's own statements run under the same progress handler.
        s.guard.calls.set(0);
        s.guard.trusted.set(true);
        // One transaction for the delete and the inserts: a commit each was most of filling `waiting`.
        let own = s
            .conn
            .prepare_cached("DELETE FROM waiting")
            .and_then(|d| Ok((d, s.conn.prepare_cached(INSERT)?)))
            .and_then(|(d, i)| {
                let begin = s.conn.prepare_cached("BEGIN")?;
                let commit = s.conn.prepare_cached("COMMIT")?;
                // A fill that failed half-way left its transaction open.
                if !s.conn.is_autocommit() {
                    s.conn.prepare_cached("ROLLBACK")?.execute([])?;
                }
                Ok((d, i, begin, commit))
            });
        s.guard.trusted.set(false);
        let (mut delete, mut insert, mut begin, mut commit) = own.map_err(failed)?;
        begin.execute([]).map_err(failed)?;
        delete.execute([]).map_err(failed)?;
        {
            for r in rows {
                insert
                    .execute(rusqlite::params![
                        r.event_id,
                        r.seq,
                        r.kind,
                        r.schema,
                        r.state,
                        r.reason,
                        r.last_seq,
                        r.flow_state,
                        r.held,
                        r.problem,
                        r.arrival
                    ])
                    .map_err(failed)?;
            }
        }
        commit.execute([]).map_err(failed)?;
        *s.guard.refusal.borrow_mut() = None;
        let mut stmt = s.conn.prepare_cached(sql).map_err(failed)?;
        let mut result = stmt.query([]).map_err(failed)?;
        let Some(row) = result.next().map_err(failed)? else {
            return Ok(None);
        };
        let id = row.get_ref(0).map_err(failed)?;
        let action = row.get_ref(1).map_err(failed)?;
        let index = match id {
            ValueRef::Text(t) => rows.iter().position(|r| r.event_id.as_bytes() == t),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "your rule answered the event_id {}, which is not a waiting row",
                shown(id)
            )
        })?;
        let act = match action {
            ValueRef::Text(b"apply") => Act::Apply,
            ValueRef::Text(b"block") => Act::Block,
            ValueRef::Text(b"skip") => Act::Skip,
            other => {
                return Err(format!(
                    "your rule answered the action {}; an action is 'apply', 'block' or 'skip'",
                    shown(other)
                ))
            }
        };
        Ok(Some((index, act)))
    })
}

fn run_error(e: rusqlite::Error) -> String {
    match e {
        // Only the progress handler interrupts a rule.
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            format!(
                "your rule was stopped after {} million steps of SQLite without an answer",
                (u64::from(MAX_CALLS) * STEPS_PER_CALL as u64) / 1_000_000
            )
        }
        rusqlite::Error::SqliteFailure(_, Some(msg))
        | rusqlite::Error::SqlInputError { msg, .. } => {
            format!("your rule failed: {msg}")
        }
        _ => "your rule failed in SQLite".into(),
    }
}

/// A value a rule returned, as a message shows it: `'A9'`, `3`, `NULL`.
fn shown(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => "NULL".into(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Text(t) => format!("'{}'", crate::json::clip(&String::from_utf8_lossy(t), 40)),
        ValueRef::Blob(_) => "a blob".into(),
        ValueRef::Real(_) => "a number that is not an integer".into(),
    }
}
