//! PostgreSQL's answers as the protocol's [`Stop`], in the words a reader reads on SQLite too. A leaf of `pg/`:
//! the place and the connection both turn errors into stops here.

use crate::protocol::vocab::Stop;

/// PostgreSQL's answer as a [`Stop`]: its own message, the words the reader reads on SQLite too. A serialization
/// failure, a deadlock and a lock wait past `lock_timeout` are `busy`: the transaction wrote nothing.
pub fn stop(e: postgres::Error) -> Stop {
    match e.as_db_error() {
        Some(db) => match db.code().code() {
            "40001" | "40P01" | "55P03" => Stop::Busy(db.message().to_owned()),
            "23505" => Stop::Sql(unique_violation(db)),
            _ => Stop::Sql(db.message().to_owned()),
        },
        None => Stop::Sql(cause(&e)),
    }
}

/// A unique violation in SQLite's words, `UNIQUE constraint failed: effect.event_id`, from the table and the
/// detail's key (`Key (event_id)=(B1) already exists.`): the same message on both stores for the same refusal.
fn unique_violation(db: &postgres::error::DbError) -> String {
    let columns = db
        .detail()
        .and_then(|d| d.strip_prefix("Key ("))
        .and_then(|d| d.split_once(")="))
        .map(|(columns, _)| columns);
    match (db.table(), columns) {
        (Some(table), Some(columns)) => {
            let named: Vec<String> = columns
                .split(", ")
                .map(|c| format!("{table}.{c}"))
                .collect();
            format!("UNIQUE constraint failed: {}", named.join(", "))
        }
        _ => db.message().to_owned(),
    }
}

/// The whole chain of an error's causes in one line (the postgres crate's own text names only the first, and a
/// server's answer may add a DETAIL or HINT line).
pub(super) fn cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
