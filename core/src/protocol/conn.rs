//! The store seam: one connection to one database, SQLite or PostgreSQL. The protocol's statements are written
//! once, in the SQL both stores accept (`?` placeholders, `ON CONFLICT … DO UPDATE`, a derived table named with
//! `AS`); what differs — how a write transaction begins, the schema's types, errors, the fault triggers — is
//! answered here for SQLite and in [`super::pg`] for PostgreSQL. The page builds only the SQLite side.

use super::vocab::{Cell, Control, Role, Stop, P};
use rusqlite::Connection;

/// The protocol's tables on SQLite (PostgreSQL's are `pg::PRODUCER_SCHEMA` and `pg::CONSUMER_SCHEMA`).
pub const PRODUCER_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS flow(flow_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, state TEXT NOT NULL, amount INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS outbox(event_id TEXT PRIMARY KEY, flow_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
  accepted INTEGER NOT NULL DEFAULT 0 CHECK(accepted IN (0,1)), UNIQUE(flow_id,seq));
";

pub const CONSUMER_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS inbox(event_id TEXT PRIMARY KEY, flow_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK(state IN ('pending','blocked','applied')), reason TEXT, UNIQUE(flow_id,seq));
CREATE TABLE IF NOT EXISTS projection(flow_id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, state TEXT NOT NULL, held INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS effect(id INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, flow_id TEXT NOT NULL,
  seq INTEGER NOT NULL, kind TEXT NOT NULL, held INTEGER NOT NULL);
";

/// One database's connection, on either store.
pub enum Conn {
    Lite(Connection),
    /// Boxed: a PostgreSQL client is several times an SQLite handle, and the page's `Conn` is only the latter.
    #[cfg(feature = "postgres")]
    Pg(Box<super::pg::PgConn>),
}

impl From<Connection> for Conn {
    fn from(c: Connection) -> Conn {
        Conn::Lite(c)
    }
}

#[cfg(feature = "postgres")]
impl From<super::pg::PgConn> for Conn {
    fn from(c: super::pg::PgConn) -> Conn {
        Conn::Pg(Box::new(c))
    }
}

/// One result row, read by column index.
pub enum Row<'a> {
    Lite(&'a rusqlite::Row<'a>),
    #[cfg(feature = "postgres")]
    Pg(&'a postgres::Row),
}

impl Row<'_> {
    pub fn get<T: Cell>(&self, i: usize) -> Result<T, Stop> {
        match self {
            Row::Lite(r) => Ok(T::lite(r, i)?),
            #[cfg(feature = "postgres")]
            Row::Pg(r) => T::pg(r, i).map_err(super::pg::stop),
        }
    }
}

impl Conn {
    /// Runs one statement that changes rows; the number of rows.
    pub fn execute(&self, sql: &str, params: &[P<'_>]) -> Result<usize, Stop> {
        match self {
            Conn::Lite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                Ok(stmt.execute(rusqlite::params_from_iter(params.iter()))?)
            }
            #[cfg(feature = "postgres")]
            Conn::Pg(c) => c.execute(sql, params),
        }
    }

    /// Runs a query and hands each row to `each` until it answers `false`.
    pub fn query_each(
        &self,
        sql: &str,
        params: &[P<'_>],
        mut each: impl FnMut(&Row<'_>) -> Result<bool, Stop>,
    ) -> Result<(), Stop> {
        match self {
            Conn::Lite(c) => {
                let mut stmt = c.prepare_cached(sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
                while let Some(row) = rows.next()? {
                    if !each(&Row::Lite(row))? {
                        break;
                    }
                }
                Ok(())
            }
            #[cfg(feature = "postgres")]
            Conn::Pg(c) => c.query_each(sql, params, |row| each(&Row::Pg(row))),
        }
    }

    /// Every row, mapped.
    pub fn query_all<T>(
        &self,
        sql: &str,
        params: &[P<'_>],
        mut map: impl FnMut(&Row<'_>) -> Result<T, Stop>,
    ) -> Result<Vec<T>, Stop> {
        let mut out = Vec::new();
        self.query_each(sql, params, |row| {
            out.push(map(row)?);
            Ok(true)
        })?;
        Ok(out)
    }

    /// The first row, mapped, if any.
    pub fn query_opt<T>(
        &self,
        sql: &str,
        params: &[P<'_>],
        map: impl FnOnce(&Row<'_>) -> Result<T, Stop>,
    ) -> Result<Option<T>, Stop> {
        let mut map = Some(map);
        let mut out = None;
        self.query_each(sql, params, |row| {
            if let Some(map) = map.take() {
                out = Some(map(row)?);
            }
            Ok(false)
        })?;
        Ok(out)
    }

    /// DDL or a batch without parameters.
    pub fn batch(&self, sql: &str) -> Result<(), Stop> {
        match self {
            Conn::Lite(c) => Ok(c.execute_batch(sql)?),
            #[cfg(feature = "postgres")]
            Conn::Pg(c) => c.batch(sql),
        }
    }

    /// The statement this store runs for `control`, as the SQL log shows it.
    pub fn control_sql(&self, control: Control) -> &str {
        match (self, control) {
            (Conn::Lite(_), Control::Begin) => "BEGIN IMMEDIATE",
            #[cfg(feature = "postgres")]
            (Conn::Pg(c), Control::Begin) => c.begin_sql(),
            (_, Control::Commit) => "COMMIT",
            (_, Control::Rollback) => "ROLLBACK",
        }
    }

    /// Begins, commits or rolls back a transaction. SQLite's from the statement cache: every write runs two of
    /// them, and parsing them afresh each time was a tenth of the explorer's time.
    pub fn control(&self, control: Control) -> Result<(), Stop> {
        match self {
            Conn::Lite(c) => {
                c.prepare_cached(self.control_sql(control))?.execute([])?;
                Ok(())
            }
            #[cfg(feature = "postgres")]
            Conn::Pg(c) => c.control(control),
        }
    }

    /// From now on, write transactions are `role`'s: on PostgreSQL they take its lock; SQLite has one writer.
    pub fn lock_as(&self, role: Role) {
        match self {
            Conn::Lite(_) => {}
            #[cfg(feature = "postgres")]
            Conn::Pg(c) => c.lock_as(role),
        }
        let _ = role;
    }

    /// No transaction is open on this connection.
    pub fn is_idle(&self) -> bool {
        match self {
            Conn::Lite(c) => c.is_autocommit(),
            #[cfg(feature = "postgres")]
            Conn::Pg(c) => c.is_idle(),
        }
    }

    /// Experiment 10's trigger that rejects every insert into `table` (`on`), or the statement that removes it.
    pub fn fault_trigger(&self, table: &str, on: bool) -> String {
        let name = format!("fault_{table}_insert");
        let message = format!("injected fault: {table} insert rejected");
        match (self, on) {
            (Conn::Lite(_), true) => format!(
                "CREATE TRIGGER IF NOT EXISTS {name} BEFORE INSERT ON {table} \
                 BEGIN SELECT RAISE(ABORT, '{message}'); END"
            ),
            (Conn::Lite(_), false) => format!("DROP TRIGGER IF EXISTS {name}"),
            #[cfg(feature = "postgres")]
            (Conn::Pg(_), true) => format!(
                "CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS \
                 $$BEGIN RAISE EXCEPTION '{message}'; END$$; \
                 DROP TRIGGER IF EXISTS {name} ON {table}; \
                 CREATE TRIGGER {name} BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION {name}()"
            ),
            #[cfg(feature = "postgres")]
            (Conn::Pg(_), false) => format!("DROP TRIGGER IF EXISTS {name} ON {table}"),
        }
    }

    /// Whether a transaction is open, as the store itself says: the client's own count aside, a spec's raw
    /// `BEGIN` counts too.
    pub fn in_transaction(&self) -> bool {
        match self {
            Conn::Lite(c) => !c.is_autocommit(),
            #[cfg(feature = "postgres")]
            Conn::Pg(c) => c.in_transaction(),
        }
    }

    /// The protocol's tables for `role`, as this store spells them.
    pub fn schema(&self, role: Role) -> &'static str {
        match (self, role) {
            (Conn::Lite(_), Role::Producer) => PRODUCER_SCHEMA,
            (Conn::Lite(_), Role::Consumer) => CONSUMER_SCHEMA,
            #[cfg(feature = "postgres")]
            (Conn::Pg(_), Role::Producer) => super::pg::PRODUCER_SCHEMA,
            #[cfg(feature = "postgres")]
            (Conn::Pg(_), Role::Consumer) => super::pg::CONSUMER_SCHEMA,
        }
    }

    /// Whether a busy answer means "wait and try again": SQLite's writer is taken; PostgreSQL waits on its own
    /// and answers busy only for a deadlock or a serialization failure, an error like any other.
    pub fn busy_is_a_wait(&self) -> bool {
        match self {
            Conn::Lite(_) => true,
            #[cfg(feature = "postgres")]
            Conn::Pg(_) => false,
        }
    }

    /// The PostgreSQL connection, for what only the server has (a spec's statements sent as they are).
    #[cfg(feature = "postgres")]
    pub fn pg(&self) -> Result<&super::pg::PgConn, Stop> {
        match self {
            Conn::Pg(c) => Ok(c),
            Conn::Lite(_) => Err(Stop::Sql("this needs PostgreSQL".into())),
        }
    }

    /// The SQLite connection, for what only SQLite has (its hooks, its page counts, the checker's loads).
    pub fn lite(&self) -> Result<&Connection, Stop> {
        match self {
            Conn::Lite(c) => Ok(c),
            #[cfg(feature = "postgres")]
            Conn::Pg(_) => Err(Stop::Sql(
                "this needs SQLite: the checker, the power layer and the page run on SQLite only"
                    .into(),
            )),
        }
    }
}
