//! The statements' side of a spec run on SQLite (`lite.rs`): a block split into statements, PostgreSQL's
//! functions and sequences as SQLite answers them, and a statement's rows as a result set.

use super::print::ResultSet;
use rusqlite::Connection;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The spec's sequences and where each has come to, shared by every session (outside transactions).
pub(super) type Sequences = Arc<Mutex<HashMap<String, i64>>>;

/// PostgreSQL's functions a spec may call, as SQLite functions (see the module's comment).
pub(super) fn shims(conn: &Connection, sequences: &Sequences) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        "pg_advisory_xact_lock",
        1,
        FunctionFlags::SQLITE_UTF8,
        |_| Ok(rusqlite::types::Null),
    )?;
    let sequences = sequences.clone();
    conn.create_scalar_function("nextval", 1, FunctionFlags::SQLITE_UTF8, move |ctx| {
        let name: String = ctx.get(0)?;
        let mut all = sequences.lock().unwrap_or_else(|e| e.into_inner());
        let Some(n) = all.get_mut(&name.to_lowercase()) else {
            return Err(rusqlite::Error::UserFunctionError(
                format!("relation \"{name}\" does not exist").into(),
            ));
        };
        *n += 1;
        Ok(*n)
    })
}

/// Whether a statement begins or ends a transaction, or works on savepoints.
pub(super) fn controls_transaction(statement: &str) -> bool {
    let first = statement
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    matches!(
        first.as_str(),
        "BEGIN" | "START" | "COMMIT" | "END" | "ROLLBACK" | "ABORT" | "SAVEPOINT" | "RELEASE"
    )
}

/// `CREATE SEQUENCE [IF NOT EXISTS] name` or `DROP SEQUENCE [IF EXISTS] name, …` (`rest`: the words after
/// `SEQUENCE`), answered as PostgreSQL answers; options are refused. Not undone by a rollback, unlike
/// PostgreSQL's (only `nextval` is outside transactions there).
pub(super) fn sequence(
    rest: &[String],
    create: bool,
    sequences: &Sequences,
) -> Result<Option<ResultSet>, String> {
    let guarded = if create {
        ["IF", "NOT", "EXISTS"].as_slice()
    } else {
        ["IF", "EXISTS"].as_slice()
    };
    let lenient = rest.len() > guarded.len() && rest.iter().zip(guarded).all(|(w, g)| w == g);
    let names = if lenient {
        &rest[guarded.len()..]
    } else {
        rest
    };
    let names: Vec<String> = names
        .join(" ")
        .split(',')
        .map(|n| n.trim().trim_matches('"').to_lowercase())
        .collect();
    let bad = |n: &String| n.is_empty() || n.contains(char::is_whitespace);
    if names.iter().any(bad) || (create && names.len() != 1) {
        return Err(format!(
            "{} SEQUENCE takes {} here, without options",
            if create { "CREATE" } else { "DROP" },
            if create { "one name" } else { "names" }
        ));
    }
    let mut all = sequences.lock().unwrap_or_else(|e| e.into_inner());
    for name in names {
        match (create, all.contains_key(&name)) {
            (true, true) if !lenient => return Err(format!("relation \"{name}\" already exists")),
            (true, false) => {
                all.insert(name, 0);
            }
            (false, false) if !lenient => {
                return Err(format!("sequence \"{name}\" does not exist"))
            }
            (false, true) => {
                all.remove(&name);
            }
            _ => {}
        }
    }
    Ok(None)
}

pub(super) fn result_set(stmt: &mut rusqlite::Statement<'_>) -> rusqlite::Result<ResultSet> {
    use rusqlite::types::ValueRef;
    let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let n = columns.len();
    let mut rows = Vec::new();
    let mut cursor = stmt.raw_query();
    while let Some(row) = cursor.next()? {
        rows.push(
            (0..n)
                .map(|i| {
                    Ok(match row.get_ref(i)? {
                        ValueRef::Null => None,
                        ValueRef::Integer(v) => Some(v.to_string()),
                        ValueRef::Real(v) => Some(v.to_string()),
                        ValueRef::Text(t) | ValueRef::Blob(t) => {
                            Some(String::from_utf8_lossy(t).into_owned())
                        }
                    })
                })
                .collect::<rusqlite::Result<_>>()?,
        );
    }
    Ok(ResultSet { columns, rows })
}

/// A block's statements: split at each `;` outside quotes (`'…'`, `"…"`) and comments (`--`).
pub(super) fn split(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '-') if chars.peek() == Some(&'-') => {
                while chars.next_if(|&c| c != '\n').is_some() {}
                continue;
            }
            (None, ';') => {
                if !current.trim().is_empty() {
                    out.push(current.trim().to_owned());
                }
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}
