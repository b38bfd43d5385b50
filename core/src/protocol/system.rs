//! The whole world of one session: two databases on "disk", the process currently running against them, and
//! restart. Each protocol call runs inside the current process; a crash drops it and starts a new one.

use super::consumer::{self, ConsumerConfig};
use super::db::{
    self, Db, ExitHook, Role, SqlLine, SqlLog, Stop, Store, CONSUMER_SCHEMA, PRODUCER_SCHEMA,
};
use super::producer::{self, Transition, WriteMode};
use super::{AdvanceResult, ApplyResult, Boundary, Event, FlowStop, ReceiveResult};
use rusqlite::Connection;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

static NEXT_SYSTEM: AtomicU64 = AtomicU64::new(1);

words! {
    /// A rejecting trigger of experiment 10 (§8).
    pub enum FaultTarget {
        OutboxInsert = "outbox_insert",
        EffectInsert = "effect_insert",
    }
}

/// The running process: one connection to each database. Dropping it is a process exit.
struct Process {
    producer: Db,
    consumer: Db,
}

/// What one `process_all` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessAll {
    /// `false` when the step limit stopped it (`limit`).
    pub done: bool,
    /// Each visited flow's stop reason (`idle`, `gap`, `blocked:…`, `limit`).
    pub flows: BTreeMap<String, FlowStop>,
    /// How many events were applied.
    pub applied: usize,
}

pub struct System {
    producer_uri: String,
    consumer_uri: String,
    // The "disks": they keep each in-memory database alive across process exits and are used only to read
    // committed state for snapshots. Declared after `process` so the process closes first on drop.
    process: Process,
    producer_disk: Connection,
    consumer_disk: Connection,
    pub config: ConsumerConfig,
    log: Option<SqlLog>,
    store: Store,
    exit_hook: Option<ExitHook>,
    /// See [`System::set_quick_restart`].
    quick_restart: bool,
    /// A fault trigger may have been installed since the last wipe.
    faults: bool,
}

/// The two database files of a system on disk, inside one directory.
pub const PRODUCER_FILE: &str = "producer.db";
pub const CONSUMER_FILE: &str = "consumer.db";

impl System {
    /// Two fresh, empty databases with the article's schema, and a process running against them.
    pub fn new(config: ConsumerConfig) -> Result<System, Stop> {
        let n = NEXT_SYSTEM.fetch_add(1, AtomicOrdering::Relaxed);
        // memdb databases are shared by name between connections only when the name starts with `/`.
        let producer_uri = format!("file:/outbox-playground-{n}-producer.db?vfs=memdb");
        let consumer_uri = format!("file:/outbox-playground-{n}-consumer.db?vfs=memdb");
        let producer_disk = db::open(&producer_uri)?;
        let consumer_disk = db::open(&consumer_uri)?;
        // The page's SQLite is built with 1 KiB pages (`.cargo/config.toml`); natively the same, so both copy
        // the same bytes into their journals (the protocol's rows are small).
        #[cfg(not(target_arch = "wasm32"))]
        for disk in [&producer_disk, &consumer_disk] {
            disk.pragma_update(None, "page_size", 1024)?;
        }
        producer_disk.execute_batch(PRODUCER_SCHEMA)?;
        consumer_disk.execute_batch(CONSUMER_SCHEMA)?;
        let process = Process {
            producer: Db::open(&producer_uri, Role::Producer)?,
            consumer: Db::open(&consumer_uri, Role::Consumer)?,
        };
        Ok(System {
            producer_uri,
            consumer_uri,
            process,
            producer_disk,
            consumer_disk,
            config,
            log: None,
            store: Store::Memory,
            exit_hook: None,
            quick_restart: false,
            faults: false,
        })
    }

    /// Creates the two database files in `dir` (which must exist) with the article's schema, in WAL mode.
    /// Run once, by one process, before any worker opens them.
    pub fn create_files(dir: &Path, store: Store) -> Result<(), Stop> {
        for (file, schema) in [
            (PRODUCER_FILE, PRODUCER_SCHEMA),
            (CONSUMER_FILE, CONSUMER_SCHEMA),
        ] {
            let conn = db::open_in(&path_text(&dir.join(file))?, store)?;
            conn.execute_batch(schema)?;
        }
        Ok(())
    }

    /// A process running against the two database files in `dir` (made by [`System::create_files`]), as one
    /// of several real processes sharing them. Nothing is created: a missing file is an error.
    pub fn open_files(dir: &Path, store: Store, config: ConsumerConfig) -> Result<System, Stop> {
        let producer_uri = path_text(&dir.join(PRODUCER_FILE))?;
        let consumer_uri = path_text(&dir.join(CONSUMER_FILE))?;
        for path in [&producer_uri, &consumer_uri] {
            if !Path::new(path).is_file() {
                return Err(Stop::Sql(format!("{path}: no such database file")));
            }
        }
        let process = Process {
            producer: Db::open_in(&producer_uri, store, Role::Producer)?,
            consumer: Db::open_in(&consumer_uri, store, Role::Consumer)?,
        };
        Ok(System {
            producer_disk: db::open_in(&producer_uri, store)?,
            consumer_disk: db::open_in(&consumer_uri, store)?,
            producer_uri,
            consumer_uri,
            process,
            config,
            log: None,
            store,
            exit_hook: None,
            quick_restart: false,
            faults: false,
        })
    }

    /// A restart that rolls the open transaction back on the process's own connections instead of dropping
    /// them and opening new ones. The committed rows afterwards are the same — SQLite rolls back a dropped
    /// connection's transaction the same way — at a fraction of the cost (no schema to parse, no statement to
    /// prepare again). Only the checker uses it; its counterexamples are replayed with real exits.
    pub fn set_quick_restart(&mut self, on: bool) {
        self.quick_restart = on;
    }

    /// From now on, reaching an armed boundary calls `hook` (a real worker's `_exit`) instead of returning
    /// [`Stop::Crash`].
    pub fn set_exit_hook(&mut self, hook: ExitHook) {
        self.exit_hook = Some(hook);
        self.process.producer.exit_hook = Some(hook);
        self.process.consumer.exit_hook = Some(hook);
    }

    /// Turns the SQL log on or off (the UI's SQL panel reads it with [`System::take_sql_log`]).
    pub fn set_logging(&mut self, on: bool) {
        self.log = on.then(SqlLog::default);
        self.process.producer.log = self.log.clone();
        self.process.consumer.log = self.log.clone();
    }

    /// The statements both databases ran since the last call, in the order they ran.
    pub fn take_sql_log(&mut self) -> Vec<SqlLine> {
        self.log
            .as_ref()
            .map(|log| std::mem::take(&mut *log.borrow_mut()))
            .unwrap_or_default()
    }

    /// The boundaries crossed since the last call: the producer's, then the consumer's (callers use membership,
    /// not order).
    pub fn take_passed(&mut self) -> Vec<Boundary> {
        let mut out = std::mem::take(&mut self.process.producer.passed);
        out.append(&mut self.process.consumer.passed);
        out
    }

    /// §8: the process exits; every open transaction dies with its connection, and a new process reopens
    /// the databases with nothing but what was committed.
    pub fn restart(&mut self) -> Result<(), Stop> {
        if self.quick_restart {
            // The checker's restarts: SQLite rolls the open transaction back, as it would for a dropped
            // connection, and the process keeps its connections (and their prepared statements).
            self.process.producer.abandon();
            self.process.consumer.abandon();
            self.process
                .producer
                .note("-- restart: the open transaction rolled back".into());
            return Ok(());
        }
        let mut producer = Db::open_in(&self.producer_uri, self.store, Role::Producer)?;
        let mut consumer = Db::open_in(&self.consumer_uri, self.store, Role::Consumer)?;
        producer.log = self.log.clone();
        consumer.log = self.log.clone();
        producer.exit_hook = self.exit_hook;
        consumer.exit_hook = self.exit_hook;
        // Assigning drops the old process: its connections close and SQLite rolls back their open transactions.
        self.process = Process { producer, consumer };
        self.process.producer.note(
            "-- restart: SQLite rolled back the open transaction; reopened from what was committed"
                .into(),
        );
        Ok(())
    }

    /// Runs `op` with the process set to exit at `crash_at`. Returns the operation's own result, or
    /// `Err(Stop::Crash(b))` after the exit *and* the restart, or `Err(Stop::Sql(_))` with everything rolled back.
    pub fn run<T>(
        &mut self,
        crash_at: Option<Boundary>,
        op: impl FnOnce(&mut System) -> Result<T, Stop>,
    ) -> Result<T, Stop> {
        self.process.producer.armed = crash_at;
        self.process.consumer.armed = crash_at;
        let result = op(self);
        self.process.producer.armed = None;
        self.process.consumer.armed = None;
        match result {
            Err(Stop::Crash(_)) | Err(Stop::UnsafeExit) => {
                self.restart()?;
                result
            }
            other => other,
        }
    }

    pub fn advance(&mut self, t: &Transition) -> Result<AdvanceResult, Stop> {
        producer::advance(&mut self.process.producer, t, WriteMode::Atomic)
    }

    pub fn unsafe_dual_write(&mut self, t: &Transition) -> Result<AdvanceResult, Stop> {
        producer::advance(&mut self.process.producer, t, WriteMode::UnsafeDualWrite)
    }

    /// §6: take a row (first unaccepted, or the one named), hand it to receive, and only on `accepted` or a
    /// same-body `duplicate` mark it accepted in a separate producer transaction. `None`: nothing to send.
    pub fn relay(
        &mut self,
        event_id: Option<&str>,
    ) -> Result<Option<(String, ReceiveResult)>, Stop> {
        let Some(row) = producer::pick_for_relay(&mut self.process.producer, event_id)? else {
            return Ok(None);
        };
        let event = Event::from_body(&row.body).map_err(|e| {
            Stop::Sql(format!(
                "outbox row {} holds no valid event: {e}",
                row.event_id
            ))
        })?;
        let result = consumer::receive(&mut self.process.consumer, &event, self.config)?;
        if matches!(result, ReceiveResult::ACCEPTED | ReceiveResult::DUPLICATE) && !row.accepted {
            producer::mark_accepted(&mut self.process.producer, &row.event_id)?;
        }
        Ok(Some((row.event_id, result)))
    }

    /// A direct delivery to the consumer (bypassing producer and relay). The envelope is checked here, at
    /// the transport: a malformed event is `rejected` with a message and nothing is written.
    pub fn receive(&mut self, event: &serde_json::Value) -> Result<ReceiveResult, Stop> {
        match Event::from_json(event) {
            Err(message) => Ok(ReceiveResult::Rejected(message)),
            Ok(event) => consumer::receive(&mut self.process.consumer, &event, self.config),
        }
    }

    pub fn apply(&mut self, flow_id: &str) -> Result<ApplyResult, Stop> {
        consumer::apply(&mut self.process.consumer, flow_id, self.config)
    }

    /// Applies every flow with inbox rows, in `flow_id` order, each until it stops; `limit` counts attempts.
    pub fn process_all(&mut self, limit: u32) -> Result<ProcessAll, Stop> {
        let flows = consumer::flows_with_inbox_rows(&mut self.process.consumer)?;
        let mut attempts = 0u32;
        let mut out = ProcessAll {
            done: true,
            flows: BTreeMap::new(),
            applied: 0,
        };
        'flows: for flow in flows {
            loop {
                if attempts >= limit {
                    out.done = false;
                    out.flows.insert(flow, FlowStop::Limit);
                    break 'flows;
                }
                attempts += 1;
                match self.apply(&flow)? {
                    ApplyResult::Applied => out.applied += 1,
                    stop => {
                        out.flows.insert(flow, stop.into());
                        break;
                    }
                }
            }
        }
        Ok(out)
    }

    /// Installs a real trigger that rejects the insert (experiment 10); it stays until cleared.
    pub fn inject_fault(&mut self, target: FaultTarget) -> Result<(), Stop> {
        self.faults = true;
        let (db, sql) = match target {
            FaultTarget::OutboxInsert => (
                &mut self.process.producer,
                "CREATE TRIGGER IF NOT EXISTS fault_outbox_insert BEFORE INSERT ON outbox \
                 BEGIN SELECT RAISE(ABORT, 'injected fault: outbox insert rejected'); END",
            ),
            FaultTarget::EffectInsert => (
                &mut self.process.consumer,
                "CREATE TRIGGER IF NOT EXISTS fault_effect_insert BEFORE INSERT ON effect \
                 BEGIN SELECT RAISE(ABORT, 'injected fault: effect insert rejected'); END",
            ),
        };
        db.batch(sql)
    }

    pub fn clear_fault(&mut self, target: FaultTarget) -> Result<(), Stop> {
        let db = match target {
            FaultTarget::OutboxInsert => &mut self.process.producer,
            FaultTarget::EffectInsert => &mut self.process.consumer,
        };
        db.batch(&format!("DROP TRIGGER IF EXISTS fault_{}", target.name()))
    }

    /// Empties both databases (rows and fault triggers): a fresh session without the cost of creating databases
    /// and schemas again (the explorer runs hundreds of sessions). An idle process keeps its connections (they
    /// hold no state of the old session, and reopening costs a schema parse each); one with a transaction open
    /// is restarted.
    pub fn wipe(&mut self, config: ConsumerConfig) -> Result<(), Stop> {
        for sql in ["DELETE FROM flow", "DELETE FROM outbox"] {
            self.producer_disk.prepare_cached(sql)?.execute([])?;
        }
        for sql in [
            "DELETE FROM inbox",
            "DELETE FROM projection",
            "DELETE FROM effect",
        ] {
            self.consumer_disk.prepare_cached(sql)?.execute([])?;
        }
        // Only a session that injected a fault has a trigger to drop: dropping one changes the schema, which
        // every connection would then parse again.
        if self.faults {
            for (disk, target) in [
                (&self.producer_disk, FaultTarget::OutboxInsert),
                (&self.consumer_disk, FaultTarget::EffectInsert),
            ] {
                disk.execute_batch(&format!("DROP TRIGGER IF EXISTS fault_{}", target.name()))?;
            }
            self.faults = false;
        }
        self.config = config;
        self.settle()?;
        self.take_sql_log();
        self.take_passed();
        Ok(())
    }

    /// A process with no transaction open and nothing armed or remembered: an idle one keeps its connections
    /// (they hold no state, and reopening costs a schema parse each); one with a transaction open restarts.
    fn settle(&mut self) -> Result<(), Stop> {
        if self.process.producer.is_idle() && self.process.consumer.is_idle() {
            self.process.producer.clear();
            self.process.consumer.clear();
            Ok(())
        } else {
            self.restart()
        }
    }

    /// Replaces both databases' rows with `snapshot`'s, as if they had been committed: a state restored
    /// directly, without replaying the history that led to it (the checker expands each state this way).
    /// Effects are inserted in the order given, so "written order" survives. The process is fresh.
    pub fn load(&mut self, snapshot: &Snapshot) -> Result<(), Stop> {
        let now = self.snapshot()?;
        self.load_changes(&now, snapshot)
    }

    /// Changes the committed rows from `from` (what the databases hold now) to `to`, row by row: only what
    /// differs is written. Much cheaper than [`System::load`] when two states differ in a row or two.
    pub fn load_changes(&mut self, from: &Snapshot, to: &Snapshot) -> Result<(), Stop> {
        self.settle()?;
        let (fp, tp) = (&from.producer, &to.producer);
        let (fc, tc) = (&from.consumer, &to.consumer);
        let p = &self.producer_disk;
        let c = &self.consumer_disk;
        sync(
            p,
            &fp.flow,
            &tp.flow,
            |r| &r.flow_id,
            "DELETE FROM flow WHERE flow_id=?",
            |r| {
                p.prepare_cached(
                    "INSERT OR REPLACE INTO flow(flow_id, seq, state, amount) VALUES(?, ?, ?, ?)",
                )?
                .execute(rusqlite::params![r.flow_id, r.seq, r.state, r.amount])
            },
        )?;
        sync(
            p,
            &fp.outbox,
            &tp.outbox,
            |r| &r.event_id,
            "DELETE FROM outbox WHERE event_id=?",
            |r| {
                p.prepare_cached(
                "INSERT OR REPLACE INTO outbox(event_id, flow_id, seq, body, accepted) VALUES(?, ?, ?, ?, ?)",
            )?
            .execute(rusqlite::params![r.event_id, r.flow_id, r.seq, r.body, r.accepted])
            },
        )?;
        sync(
            c,
            &fc.inbox,
            &tc.inbox,
            |r| &r.event_id,
            "DELETE FROM inbox WHERE event_id=?",
            |r| {
                c.prepare_cached(
                "INSERT OR REPLACE INTO inbox(event_id, flow_id, seq, body, state, reason) VALUES(?, ?, ?, ?, ?, ?)",
            )?
            .execute(rusqlite::params![r.event_id, r.flow_id, r.seq, r.body, r.state, r.reason])
            },
        )?;
        sync(
            c,
            &fc.projection,
            &tc.projection,
            |r| &r.flow_id,
            "DELETE FROM projection WHERE flow_id=?",
            |r| {
                c.prepare_cached(
                "INSERT OR REPLACE INTO projection(flow_id, last_seq, state, held) VALUES(?, ?, ?, ?)",
            )?
            .execute(rusqlite::params![r.flow_id, r.last_seq, r.state, r.held])
            },
        )?;
        // The effect log is ordered: keep the common prefix, rewrite the rest in order.
        let same = fc
            .effect
            .iter()
            .zip(&tc.effect)
            .take_while(|(a, b)| a == b)
            .count();
        for r in &fc.effect[same..] {
            c.prepare_cached("DELETE FROM effect WHERE event_id=?")?
                .execute([&r.event_id])?;
        }
        for r in &tc.effect[same..] {
            c.prepare_cached(
                "INSERT INTO effect(event_id, flow_id, seq, kind, held) VALUES(?, ?, ?, ?, ?)",
            )?
            .execute(rusqlite::params![
                r.event_id, r.flow_id, r.seq, r.kind, r.held
            ])?;
        }
        self.take_sql_log();
        Ok(())
    }

    /// The consumer's committed tables only, bodies left out: all the invariant reads. The producer tables come
    /// back empty, so this is for checking, never for display.
    pub fn consumer_view(&self) -> Result<Snapshot, Stop> {
        Ok(Snapshot {
            producer: ProducerTables {
                flow: Vec::new(),
                outbox: Vec::new(),
            },
            consumer: self.consumer_tables(false)?,
        })
    }

    fn consumer_tables(&self, bodies: bool) -> Result<ConsumerTables, Stop> {
        let c = &self.consumer_disk;
        let inbox_sql = if bodies {
            "SELECT event_id, flow_id, seq, state, reason, body FROM inbox ORDER BY event_id"
        } else {
            "SELECT event_id, flow_id, seq, state, reason, '' FROM inbox ORDER BY event_id"
        };
        let inbox = rows(c, inbox_sql, |r| {
            Ok(InboxRow {
                event_id: r.get(0)?,
                flow_id: r.get(1)?,
                seq: r.get(2)?,
                state: r.get(3)?,
                reason: r.get(4)?,
                body: r.get(5)?,
            })
        })?;
        let projection = rows(
            c,
            "SELECT flow_id, last_seq, state, held FROM projection ORDER BY flow_id",
            |r| {
                Ok(ProjectionRow {
                    flow_id: r.get(0)?,
                    last_seq: r.get(1)?,
                    state: r.get(2)?,
                    held: r.get(3)?,
                })
            },
        )?;
        let effect = rows(
            c,
            "SELECT event_id, flow_id, seq, kind, held FROM effect ORDER BY id",
            |r| {
                Ok(EffectRow {
                    event_id: r.get(0)?,
                    flow_id: r.get(1)?,
                    seq: r.get(2)?,
                    kind: r.get(3)?,
                    held: r.get(4)?,
                })
            },
        )?;
        Ok(ConsumerTables {
            support_v2: self.config.support_v2,
            inbox,
            projection,
            effect,
        })
    }

    /// Everything committed in both databases, read through the disks (never from a copy kept elsewhere).
    pub fn snapshot(&self) -> Result<Snapshot, Stop> {
        self.committed(true)
    }

    /// The same rows without the bodies (`body` is empty): all a fingerprint reads, at less cost.
    pub fn rows_without_bodies(&self) -> Result<Snapshot, Stop> {
        self.committed(false)
    }

    fn committed(&self, bodies: bool) -> Result<Snapshot, Stop> {
        let p = &self.producer_disk;
        let flow = rows(
            p,
            "SELECT flow_id, seq, state, amount FROM flow ORDER BY flow_id",
            |r| {
                Ok(FlowRow {
                    flow_id: r.get(0)?,
                    seq: r.get(1)?,
                    state: r.get(2)?,
                    amount: r.get(3)?,
                })
            },
        )?;
        let outbox = rows(
            p,
            if bodies {
                "SELECT event_id, flow_id, seq, body, accepted FROM outbox ORDER BY event_id"
            } else {
                "SELECT event_id, flow_id, seq, '', accepted FROM outbox ORDER BY event_id"
            },
            |r| {
                Ok(OutboxRow {
                    event_id: r.get(0)?,
                    flow_id: r.get(1)?,
                    seq: r.get(2)?,
                    body: r.get(3)?,
                    accepted: r.get(4)?,
                })
            },
        )?;
        Ok(Snapshot {
            producer: ProducerTables { flow, outbox },
            consumer: self.consumer_tables(bodies)?,
        })
    }
}

/// Makes a keyed table hold `to` instead of `from` (both sorted by key): deletes the keys `to` lacks, writes
/// the rows that are new or differ.
fn sync<R: PartialEq>(
    conn: &Connection,
    from: &[R],
    to: &[R],
    key: impl Fn(&R) -> &String,
    delete: &str,
    mut write: impl FnMut(&R) -> rusqlite::Result<usize>,
) -> Result<(), Stop> {
    for r in from {
        if !to.iter().any(|t| key(t) == key(r)) {
            conn.prepare_cached(delete)?.execute([key(r)])?;
        }
    }
    for r in to {
        if from.iter().find(|f| key(f) == key(r)) != Some(r) {
            write(r)?;
        }
    }
    Ok(())
}

fn path_text(path: &Path) -> Result<String, Stop> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Stop::Sql(format!("{}: the path is not UTF-8", path.display())))
}

fn rows<T>(
    conn: &Connection,
    sql: &str,
    map: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, Stop> {
    let mut stmt = conn.prepare_cached(sql)?;
    let out = stmt.query_map([], map)?.collect::<Result<Vec<T>, _>>()?;
    Ok(out)
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlowRow {
    pub flow_id: String,
    pub seq: i64,
    pub state: String,
    pub amount: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutboxRow {
    pub event_id: String,
    pub flow_id: String,
    pub seq: i64,
    pub body: String,
    pub accepted: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InboxRow {
    pub event_id: String,
    pub flow_id: String,
    pub seq: i64,
    pub body: String,
    pub state: String,
    pub reason: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProjectionRow {
    pub flow_id: String,
    pub last_seq: i64,
    pub state: String,
    pub held: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EffectRow {
    pub event_id: String,
    pub flow_id: String,
    pub seq: i64,
    pub kind: String,
    pub held: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProducerTables {
    pub flow: Vec<FlowRow>,
    pub outbox: Vec<OutboxRow>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConsumerTables {
    pub support_v2: bool,
    pub inbox: Vec<InboxRow>,
    pub projection: Vec<ProjectionRow>,
    pub effect: Vec<EffectRow>,
}

/// Both databases' committed tables, in the order TRACE.md's result document lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    pub producer: ProducerTables,
    pub consumer: ConsumerTables,
}
