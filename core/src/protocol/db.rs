//! One "process" connection to a database: write transactions, crash points and a SQL log. The connection is a
//! [`Conn`], SQLite's or (natively) PostgreSQL's; what follows is SQLite's in-memory case, the page's.
//!
//! A database lives as long as its *disk* connection (held by [`crate::protocol::System`]); a process opens its
//! own connection to the same `file:/name?vfs=memdb` database. Dropping a process connection mid-transaction is
//! exactly a process exit: SQLite rolls the open transaction back and the disk keeps only what was committed.

pub use super::changes::{tables, Changes};
use super::conn::{Conn, Row};
use super::vocab::{Control, Role, Stop, P};
use super::Boundary;
use rusqlite::{Connection, OpenFlags};
use std::fmt::Write as _;
use std::sync::Arc;

/// The SQL log both databases of a process write to, so the panel shows statements in the order they ran.
/// Natively shared, not `Rc`, so that a system can move to a thread (the checker's threads each own one); the
/// page has one thread, and a lock's code would be in its first load.
#[cfg(not(target_arch = "wasm32"))]
pub type SqlLog = Arc<std::sync::Mutex<Vec<SqlLine>>>;
#[cfg(target_arch = "wasm32")]
pub type SqlLog = std::rc::Rc<std::cell::RefCell<Vec<SqlLine>>>;

/// The log's lines, to add to or take.
pub fn lines(log: &SqlLog) -> impl std::ops::DerefMut<Target = Vec<SqlLine>> + '_ {
    #[cfg(not(target_arch = "wasm32"))]
    return log.lock().unwrap_or_else(|e| e.into_inner());
    #[cfg(target_arch = "wasm32")]
    return log.borrow_mut();
}

/// What a process does where it is to exit — at its armed boundary, or at the unsafe dual write's built-in
/// exit — instead of returning [`Stop::Crash`] or [`Stop::UnsafeExit`]: a real worker exits right there
/// (`_exit`), any transaction still open, and the operating system closes its files.
pub type ExitHook = fn() -> !;

/// One line of the SQL panel: which database ran which statement, values inlined.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SqlLine {
    pub db: Role,
    pub sql: String,
    /// The statement as the code writes it, before its values are inlined (empty for a note): what the
    /// level's code under attack matches a move's statements by.
    #[serde(skip)]
    pub template: String,
}

/// Opens a connection to the shared in-memory database `uri` (`file:/name?vfs=memdb`).
pub fn open(uri: &str) -> Result<Connection, rusqlite::Error> {
    Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

/// A process's connection to one database.
pub struct Db {
    conn: Conn,
    /// What SQLite's hooks note of this connection's writes, when tracked ([`Db::track_changes`]). After
    /// `conn`, so that it is dropped after the connection whose hooks point at it.
    changes: Option<Arc<Changes>>,
    role: Role,
    /// The boundary at which this process is to exit during the current step, if any.
    pub armed: Option<Boundary>,
    /// Statements run, when someone is watching (the UI's SQL panel); `None` keeps the hot path free of formatting.
    pub log: Option<SqlLog>,
    /// Every boundary this process crossed, in order (the explorer learns from a clean run where each can fire).
    pub passed: Vec<Boundary>,
    /// Set by a real worker process: reaching the armed boundary ends the process there and then.
    pub exit_hook: Option<ExitHook>,
    /// What a reader's rule returned that the engine could not carry out, at the last `rule_error`.
    pub rule_error: Option<String>,
}

impl Db {
    /// A process's connection on either store.
    pub fn on(conn: Conn, role: Role) -> Db {
        Db {
            conn,
            changes: None,
            role,
            armed: None,
            log: None,
            passed: Vec::new(),
            exit_hook: None,
            rule_error: None,
        }
    }

    /// From now on, SQLite's hooks note in `changes` which tables this connection's transactions change: the
    /// checker reads back and writes back only those. A transaction this connection left open is forgotten;
    /// a rollback here forgets the writes itself ([`Db::abandon`], an error).
    pub fn track_changes(&mut self, changes: &Arc<Changes>) -> Result<(), Stop> {
        changes.set_hooks(self.conn.lite()?);
        self.changes = Some(changes.clone());
        Ok(())
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// Crosses `boundary`: when it is the armed one, the process exits here.
    pub fn pass(&mut self, boundary: Boundary) -> Result<(), Stop> {
        self.passed.push(boundary);
        if self.armed == Some(boundary) {
            self.note(format!("-- process exits at {boundary}"));
            if let Some(exit) = self.exit_hook {
                exit();
            }
            return Err(Stop::Crash(boundary));
        }
        Ok(())
    }

    pub fn note(&mut self, text: String) {
        self.push(text, String::new());
    }

    fn push(&mut self, sql: String, template: String) {
        if let Some(log) = &self.log {
            lines(log).push(SqlLine {
                db: self.role,
                sql,
                template,
            });
        }
    }

    fn record(&mut self, sql: &str, params: &[P<'_>]) {
        if self.log.is_some() {
            self.push(render(sql, params), sql.to_owned());
        }
    }

    /// Runs one statement that changes rows.
    pub fn exec(&mut self, sql: &str, params: &[P<'_>]) -> Result<usize, Stop> {
        self.record(sql, params);
        self.conn.execute(sql, params)
    }

    /// Runs a query and maps its first row, if any.
    pub fn query_opt<T>(
        &mut self,
        sql: &str,
        params: &[P<'_>],
        map: impl FnOnce(&Row<'_>) -> Result<T, Stop>,
    ) -> Result<Option<T>, Stop> {
        self.record(sql, params);
        self.conn.query_opt(sql, params, map)
    }

    /// Runs a query and maps every row.
    pub fn query_all<T>(
        &mut self,
        sql: &str,
        params: &[P<'_>],
        map: impl FnMut(&Row<'_>) -> Result<T, Stop>,
    ) -> Result<Vec<T>, Stop> {
        self.record(sql, params);
        self.conn.query_all(sql, params, map)
    }

    /// Runs DDL or a batch (fault triggers) without parameters.
    pub fn batch(&mut self, sql: &str) -> Result<(), Stop> {
        self.record(sql, &[]);
        self.conn.batch(sql)
    }

    /// The store this process's connection is on.
    pub fn conn(&self) -> &Conn {
        &self.conn
    }

    fn control(&mut self, control: Control) -> Result<(), Stop> {
        if self.log.is_some() {
            let sql = self.conn.control_sql(control).to_owned();
            self.push(sql.clone(), sql);
        }
        self.conn.control(control)
    }

    /// Forgets the boundaries this process crossed and any armed exit: the same connections serve a new session.
    pub fn clear(&mut self) {
        self.armed = None;
        self.passed.clear();
    }

    /// The pages this connection's commits wrote to the database since the last call: what a WAL would
    /// have received (the page's automatic checkpoint counts them).
    pub fn pages_written(&self) -> u32 {
        let Ok(conn) = self.conn.lite() else {
            return 0;
        };
        let (mut now, mut high) = (0, 0);
        // SAFETY: the handle is this open connection's; SQLite writes the two ints and keeps no pointer.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_db_status(
                conn.handle(),
                rusqlite::ffi::SQLITE_DBSTATUS_CACHE_WRITE,
                &mut now,
                &mut high,
                1,
            )
        };
        if rc == rusqlite::ffi::SQLITE_OK {
            now.max(0) as u32
        } else {
            0
        }
    }

    /// No transaction is open on this connection.
    pub fn is_idle(&self) -> bool {
        self.conn.is_idle()
    }

    /// `BEGIN IMMEDIATE … COMMIT` around `body` (§2: every write; on PostgreSQL `BEGIN` and the schema's
    /// advisory lock). An SQL error rolls the whole transaction back and is returned as it is. A crash leaves the
    /// transaction open on purpose: the caller drops this connection, and the store rolls it back as it would
    /// for a process that died.
    pub fn write_tx<T>(
        &mut self,
        body: impl FnOnce(&mut Db) -> Result<T, Stop>,
    ) -> Result<T, Stop> {
        self.control(Control::Begin)?;
        match body(self) {
            Ok(value) => match self.control(Control::Commit) {
                Ok(()) => Ok(value),
                Err(e) => {
                    self.rollback();
                    Err(e)
                }
            },
            Err(e @ (Stop::Sql(_) | Stop::Busy(_))) => {
                self.rollback();
                Err(e)
            }
            Err(other) => Err(other),
        }
    }

    /// Like [`Db::write_tx`], but `body` also says whether its work commits (`true`) or is rolled back
    /// (`false`): a consumer that must step out of its transaction before it goes on.
    pub fn write_tx_or_rollback<T>(
        &mut self,
        body: impl FnOnce(&mut Db) -> Result<(T, bool), Stop>,
    ) -> Result<T, Stop> {
        self.control(Control::Begin)?;
        match body(self) {
            Ok((value, true)) => match self.control(Control::Commit) {
                Ok(()) => Ok(value),
                Err(e) => {
                    self.rollback();
                    Err(e)
                }
            },
            Ok((value, false)) => {
                self.rollback();
                Ok(value)
            }
            Err(e @ (Stop::Sql(_) | Stop::Busy(_))) => {
                self.rollback();
                Err(e)
            }
            Err(other) => Err(other),
        }
    }

    /// Rolls back whatever transaction this connection still has open, and forgets its boundaries.
    pub fn abandon(&mut self) {
        self.rollback();
        self.clear();
    }

    fn rollback(&mut self) {
        if let Some(changes) = &self.changes {
            changes.forget_pending();
        }
        if !self.conn.is_idle() {
            // A failed ROLLBACK leaves nothing more to undo; the error that caused it is what gets reported.
            let _ = self.control(Control::Rollback);
        }
    }

    /// Commits what `body` wrote and then lets the process die: the unsafe dual write's exit (§2).
    pub fn commit_then_exit(&mut self) -> Result<(), Stop> {
        self.control(Control::Commit)?;
        self.note("-- process exits before the outbox write (os._exit in the article)".into());
        if let Some(exit) = self.exit_hook {
            exit();
        }
        Err(Stop::UnsafeExit)
    }
}

/// Inlines parameters into `?` placeholders for display. Strings are quoted the SQL way.
fn render(sql: &str, params: &[P<'_>]) -> String {
    let mut out = String::with_capacity(sql.len() + 32);
    let mut next = params.iter();
    for c in sql.chars() {
        if c == '?' {
            match next.next() {
                Some(P::T(s)) => {
                    out.push('\'');
                    out.push_str(&s.replace('\'', "''"));
                    out.push('\'');
                }
                Some(P::I(i)) => {
                    let _ = write!(out, "{i}");
                }
                None => out.push('?'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_inlines_and_quotes() {
        assert_eq!(
            render(
                "SELECT body FROM inbox WHERE event_id=? AND seq=?",
                &[P::T("it's"), P::I(2)]
            ),
            "SELECT body FROM inbox WHERE event_id='it''s' AND seq=2"
        );
    }
}
