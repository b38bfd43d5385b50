//! The protocol's shared vocabulary, below every store and every party: the two roles, why an operation stops,
//! a statement's parameters and control words, and what a row's column can be read as. A leaf: it imports no
//! other module of the protocol, so the store seam (`conn.rs`), each store and `db.rs` all point down to it.

use super::Boundary;
use rusqlite::types::{ToSql, ToSqlOutput, Value as SqlValue, ValueRef};

words! {
    /// Which of the two commit domains a connection belongs to (§1: no transaction ever spans both).
    pub enum Role {
        Producer = "producer",
        Consumer = "consumer",
    }
}

/// Why a protocol operation stopped early. Errors are values: nothing here panics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The process exits at this boundary; its open transaction must die with its connection.
    Crash(Boundary),
    /// The unsafe dual write's built-in exit, after committing only the state (§2).
    UnsafeExit,
    /// An SQL error; the transaction has been rolled back and the message is reported, never hidden (§8).
    Sql(String),
    /// Another process held the write lock past the busy timeout (`SQLITE_BUSY`; on PostgreSQL the lock's
    /// `lock_timeout`, a deadlock or a serialization failure). Only databases shared by real processes answer this. The transaction that waited wrote nothing (an earlier one of the same
    /// step, such as a relay's receive, may have committed), and it is never a success.
    Busy(String),
}

impl From<rusqlite::Error> for Stop {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy) => Stop::Busy(sql_message(&e)),
            _ => Stop::Sql(sql_message(&e)),
        }
    }
}

/// What the reader is told when SQLite refuses a statement: SQLite's own message (a trigger's `RAISE`, a
/// constraint). rusqlite's other errors (a column read as the wrong type) would be the program's bugs, never the
/// reader's doing: natively they print in full; the page names only that it happened, which keeps rusqlite's
/// error formatting out of its module (1 KB, gzip).
fn sql_message(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
        rusqlite::Error::SqliteFailure(code, None) => {
            format!("SQLite error {}", code.extended_code)
        }
        #[cfg(not(target_arch = "wasm32"))]
        other => other.to_string(),
        #[cfg(target_arch = "wasm32")]
        _ => "the SQLite layer failed unexpectedly (a bug in the playground)".into(),
    }
}

/// A statement parameter that can also be printed into the SQL log.
#[derive(Clone, Copy, Debug)]
pub enum P<'a> {
    T(&'a str),
    I(i64),
}

impl ToSql for P<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            P::T(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            P::I(i) => ToSqlOutput::Owned(SqlValue::Integer(*i)),
        })
    }
}

/// A transaction's control statement, which each store spells its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// A write transaction that holds its database's write lock from its first statement (§2).
    Begin,
    Commit,
    Rollback,
}

/// A value a row's column can be read as: the protocol reads whole numbers, text and nullable text.
pub trait Cell: Sized {
    fn lite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self>;
    #[cfg(feature = "postgres")]
    fn pg(row: &postgres::Row, i: usize) -> Result<Self, postgres::Error>;
}

impl Cell for i64 {
    fn lite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self> {
        row.get(i)
    }
    #[cfg(feature = "postgres")]
    fn pg(row: &postgres::Row, i: usize) -> Result<Self, postgres::Error> {
        // The schema's numbers are `bigint`; a literal in a select list (`SELECT 1`) is an `integer`.
        row.try_get::<_, i64>(i)
            .or_else(|_| row.try_get::<_, i32>(i).map(i64::from))
    }
}

impl Cell for String {
    fn lite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self> {
        row.get(i)
    }
    #[cfg(feature = "postgres")]
    fn pg(row: &postgres::Row, i: usize) -> Result<Self, postgres::Error> {
        row.try_get(i)
    }
}

impl Cell for Option<String> {
    fn lite(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Self> {
        row.get(i)
    }
    #[cfg(feature = "postgres")]
    fn pg(row: &postgres::Row, i: usize) -> Result<Self, postgres::Error> {
        row.try_get(i)
    }
}

words! {
    /// `PRAGMA synchronous` for both databases.
    #[derive(Default)]
    pub enum Synchronous {
        #[default]
        Full = "full",
        Normal = "normal",
        Off = "off",
    }
}

impl Synchronous {
    /// The pragma's value as SQLite spells it (`FULL`). Spelled out: `to_uppercase` would bring Unicode's case
    /// tables (13 KB) into the page.
    pub fn upper(self) -> &'static str {
        match self {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
            Synchronous::Off => "OFF",
        }
    }
}
