//! One PostgreSQL connection as the protocol uses it ([`PgConn`]): statements prepared once each, SQLite's
//! placeholders numbered, the write transaction's `BEGIN` and lock per role.

use super::error::stop;
use crate::protocol::vocab::{Control, Role, Stop, P};
use postgres::types::{IsNull, ToSql, Type};
use postgres::{Client, SimpleQueryMessage, Statement};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// One connection; statements prepared once each, by their text.
pub struct PgConn {
    client: RefCell<Client>,
    statements: RefCell<HashMap<String, Statement>>,
    open: Cell<bool>,
    /// The write transaction's `BEGIN` as each role runs it, by [`Role`] index, and the role this connection
    /// serves now.
    begins: [String; 2],
    role: Cell<Role>,
}

impl PgConn {
    /// `client` as the protocol's connection, its writers' locks named after `base` (`base_producer`,
    /// `base_consumer`: the role's schema, when `base` is a place's prefix). It serves the consumer until told
    /// otherwise ([`PgConn::lock_as`]).
    pub fn on(client: Client, base: &str) -> PgConn {
        // One advisory lock per role's schema: taken first in every write transaction, it lets one writer in at
        // a time, as SQLite's `BEGIN IMMEDIATE` does (§2). READ COMMITTED whatever the server's default: each
        // statement then reads what the lock's previous holder committed, as SQLite's single writer does.
        let begin = |role: Role| {
            let key = fnv1a(format!("{base}_{}", role.name()).as_bytes());
            format!("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({key})")
        };
        PgConn {
            client: RefCell::new(client),
            statements: RefCell::new(HashMap::new()),
            open: Cell::new(false),
            begins: [begin(Role::Producer), begin(Role::Consumer)],
            role: Cell::new(Role::Consumer),
        }
    }

    /// From now on, write transactions take `role`'s lock.
    pub fn lock_as(&self, role: Role) {
        self.role.set(role);
    }

    /// Whether a transaction is open, asked of the server (the client does not say): in one, the probe is not
    /// its first statement, so its start is not the transaction's; in one an error ended, it fails.
    pub fn in_transaction(&self) -> bool {
        let probe = self
            .simple_query("SELECT transaction_timestamp() = statement_timestamp()")
            .ok()
            .and_then(|messages| {
                messages.into_iter().find_map(|m| match m {
                    SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
                    _ => None,
                })
            });
        probe.as_deref() != Some("t")
    }

    /// Statements as the simple protocol sends them, several in one text (a spec's step).
    pub fn simple_query(&self, sql: &str) -> Result<Vec<SimpleQueryMessage>, postgres::Error> {
        self.client.borrow_mut().simple_query(sql)
    }

    /// The notifications received so far and not yet taken (`LISTEN`): the sender's process id, the channel and
    /// the payload.
    pub fn notifications(&self) -> Vec<(i32, String, String)> {
        use postgres::fallible_iterator::FallibleIterator;
        let mut client = self.client.borrow_mut();
        let mut notifications = client.notifications();
        let mut pending = notifications.iter();
        let mut out = Vec::new();
        while let Ok(Some(n)) = pending.next() {
            out.push((
                n.process_id(),
                n.channel().to_owned(),
                n.payload().to_owned(),
            ));
        }
        out
    }

    fn prepared(&self, sql: &str) -> Result<Statement, Stop> {
        if let Some(s) = self.statements.borrow().get(sql) {
            return Ok(s.clone());
        }
        let statement = self
            .client
            .borrow_mut()
            .prepare(&placeholders(sql))
            .map_err(stop)?;
        self.statements
            .borrow_mut()
            .insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    pub fn execute(&self, sql: &str, params: &[P<'_>]) -> Result<usize, Stop> {
        let statement = self.prepared(sql)?;
        let values = values(params);
        let n = self
            .client
            .borrow_mut()
            .execute(&statement, &values)
            .map_err(stop)?;
        Ok(n as usize)
    }

    pub fn query_each(
        &self,
        sql: &str,
        params: &[P<'_>],
        mut each: impl FnMut(&postgres::Row) -> Result<bool, Stop>,
    ) -> Result<(), Stop> {
        let statement = self.prepared(sql)?;
        let values = values(params);
        let rows = self
            .client
            .borrow_mut()
            .query(&statement, &values)
            .map_err(stop)?;
        for row in &rows {
            if !each(row)? {
                break;
            }
        }
        Ok(())
    }

    pub fn batch(&self, sql: &str) -> Result<(), Stop> {
        self.client.borrow_mut().batch_execute(sql).map_err(stop)
    }

    pub fn begin_sql(&self) -> &str {
        &self.begins[self.role.get() as usize]
    }

    pub fn control(&self, control: Control) -> Result<(), Stop> {
        let sql = match control {
            Control::Begin => self.begin_sql(),
            Control::Commit => "COMMIT",
            Control::Rollback => "ROLLBACK",
        };
        let result = self.client.borrow_mut().batch_execute(sql).map_err(stop);
        if control == Control::Begin && result.is_err() {
            // The lock's wait failed (a timeout, a deadlock) inside the transaction BEGIN opened: it is aborted,
            // and ends here, as SQLite's busy `BEGIN IMMEDIATE` leaves no transaction behind. That error is the
            // one reported; a failed ROLLBACK leaves nothing more to undo.
            let _ = self.client.borrow_mut().batch_execute("ROLLBACK");
        }
        // A failed COMMIT ends the transaction on PostgreSQL too (it rolls back).
        self.open.set(control == Control::Begin && result.is_ok());
        result
    }

    pub fn is_idle(&self) -> bool {
        !self.open.get()
    }
}

fn values<'a>(params: &'a [P<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

/// SQLite's placeholders as PostgreSQL's: `?` numbered in order, `?N` as `$N`; quoted text left alone.
pub fn placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let (mut n, mut quoted) = (0, false);
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                out.push('$');
                if chars.peek().is_some_and(char::is_ascii_digit) {
                    while let Some(d) = chars.next_if(char::is_ascii_digit) {
                        out.push(d);
                    }
                } else {
                    n += 1;
                    out.push_str(&n.to_string());
                }
            }
            _ => out.push(c),
        }
    }
    out
}

impl ToSql for P<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self {
            P::T(s) if <&str as ToSql>::accepts(ty) => s.to_sql(ty, out),
            P::I(i) if *ty == Type::INT8 => i.to_sql(ty, out),
            P::I(i) if *ty == Type::INT4 => i32::try_from(i)?.to_sql(ty, out),
            _ => Err(format!("{self:?} where the statement takes {ty}").into()),
        }
    }

    fn accepts(ty: &Type) -> bool {
        <&str as ToSql>::accepts(ty) || *ty == Type::INT8 || *ty == Type::INT4
    }

    postgres::types::to_sql_checked!();
}

fn fnv1a(bytes: &[u8]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}
