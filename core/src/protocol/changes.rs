//! Which tables a process's commits changed, as SQLite's hooks tell it: the checker reads back and writes back
//! only those tables ([`super::db::Db::track_changes`]).

use rusqlite::Connection;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// The five tables as bits of a mask: which tables a process's commits changed ([`super::db::Db::track_changes`]).
pub mod tables {
    pub const FLOW: u8 = 1;
    pub const OUTBOX: u8 = 1 << 1;
    pub const INBOX: u8 = 1 << 2;
    pub const PROJECTION: u8 = 1 << 3;
    pub const EFFECT: u8 = 1 << 4;
    pub const ALL: u8 = FLOW | OUTBOX | INBOX | PROJECTION | EFFECT;

    /// A table of the schema by name (0 for any other: the hooks also see a `temp` table).
    pub fn bit(name: &str) -> u8 {
        match name {
            "flow" => FLOW,
            "outbox" => OUTBOX,
            "inbox" => INBOX,
            "projection" => PROJECTION,
            "effect" => EFFECT,
            _ => 0,
        }
    }
}

/// What SQLite's hooks told of one database's process connections: the tables the open transaction wrote, and
/// those commits changed since the last look. A statement or transaction rolled back leaves no mark (a table
/// written by a statement that failed inside a transaction that then committed is marked: marked may mean
/// unchanged). It outlives a process: a restart hands it to the new connection. SQLite skips the update hook for
/// a `DELETE` with no `WHERE` (its truncate optimization, compiled out only of the page's SQLite): the protocol
/// never runs one on a process connection.
#[derive(Default)]
pub struct Changes {
    pending: AtomicU8,
    committed: AtomicU8,
}

impl Changes {
    /// The tables ([`tables`]) changed by commits since the last call.
    pub fn take(&self) -> u8 {
        self.committed.swap(0, Ordering::Relaxed)
    }

    /// Forgets what the open transaction wrote (it rolled back).
    pub(super) fn forget_pending(&self) {
        self.pending.store(0, Ordering::Relaxed);
    }

    /// Sets SQLite's update and commit hooks on `conn` to note in `self`; what a transaction left open wrote is
    /// forgotten. Through SQLite's C interface, not rusqlite's `hooks` feature: that feature's clean-up runs on
    /// every close, and so was in the page's first load (2 KB gzip) though only the checker's worker tracks;
    /// and SQLite calls a rollback hook while rusqlite 0.43 closes a connection, after freeing it.
    pub(super) fn set_hooks(self: &Arc<Changes>, conn: &Connection) {
        use rusqlite::ffi;
        use std::ffi::{c_char, c_int, c_void, CStr};
        /// SQLite's update hook: a row of `table` in `db` was written.
        unsafe extern "C" fn on_update(
            changes: *mut c_void,
            _op: c_int,
            db: *const c_char,
            table: *const c_char,
            _rowid: i64,
        ) {
            // SAFETY: `changes` is the `Changes` the hooks were set with, alive while they are set; SQLite
            // passes the names as NUL-terminated strings that live for the call.
            let (changes, db, table) = unsafe {
                (
                    &*(changes as *const Changes),
                    CStr::from_ptr(db),
                    CStr::from_ptr(table),
                )
            };
            if db.to_bytes() == b"main" {
                let bit = std::str::from_utf8(table.to_bytes()).map_or(0, tables::bit);
                changes.pending.fetch_or(bit, Ordering::Relaxed);
            }
        }
        /// SQLite's commit hook: what the transaction wrote is committed (0: let the commit go ahead).
        unsafe extern "C" fn on_commit(changes: *mut c_void) -> c_int {
            // SAFETY: as above.
            let changes = unsafe { &*(changes as *const Changes) };
            let written = changes.pending.swap(0, Ordering::Relaxed);
            changes.committed.fetch_or(written, Ordering::Relaxed);
            0
        }
        self.forget_pending();
        let arg = Arc::as_ptr(self) as *mut c_void;
        // SAFETY: the handle is this open connection's; `arg` stays valid while the hooks are set: the caller (a
        // `Db`) keeps a clone of the Arc and drops it only after its connection (fields drop in order).
        unsafe {
            ffi::sqlite3_update_hook(conn.handle(), Some(on_update), arg);
            ffi::sqlite3_commit_hook(conn.handle(), Some(on_commit), arg);
        }
    }
}
