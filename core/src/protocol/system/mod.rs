//! The whole world of one session: two databases on "disk", the process currently running against them, and
//! restart. Each protocol call runs inside the current process; a crash drops it and starts a new one.

use super::conn::Conn;
use super::consumer::{self, ConsumerConfig};
use super::db::{self, Db, ExitHook, SqlLine, SqlLog, Store, CONSUMER_SCHEMA, PRODUCER_SCHEMA};
use super::producer::{self, Transition, WriteMode};
use super::vocab::{Role, Stop};
use super::{AdvanceResult, ApplyResult, Boundary, Event, FlowStop, ReceiveResult};
#[cfg(feature = "postgres")]
use place::Owned;
use place::Place;
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

static NEXT_SYSTEM: AtomicU64 = AtomicU64::new(1);

words! {
    /// A rejecting trigger of experiment 10 (§8).
    pub enum FaultTarget {
        OutboxInsert = "outbox_insert",
        EffectInsert = "effect_insert",
    }
}

impl FaultTarget {
    /// The table whose inserts the trigger rejects.
    pub fn table(self) -> &'static str {
        match self {
            FaultTarget::OutboxInsert => "outbox",
            FaultTarget::EffectInsert => "effect",
        }
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
    place: Place,
    // The "disks": they keep each in-memory database alive across process exits (on files and on PostgreSQL,
    // only connections) and are used only to read committed state for snapshots. Declared after `process` so the process closes first on drop.
    process: Process,
    producer_disk: Conn,
    consumer_disk: Conn,
    pub config: ConsumerConfig,
    log: Option<SqlLog>,
    exit_hook: Option<ExitHook>,
    /// See [`System::set_quick_restart`].
    quick_restart: bool,
    /// A fault trigger may have been installed since the last wipe.
    faults: bool,
    /// What the process's connections note of the tables their commits change (producer, consumer), when
    /// tracked ([`System::track_changes`]).
    changes: Option<[Arc<db::Changes>; 2]>,
    /// What each disk last synced (the page's power cut).
    disks: power::Disks,
    /// PostgreSQL schemas this system made, dropped after every connection above has closed.
    #[cfg(feature = "postgres")]
    _owned: Option<Owned>,
}

/// The two database files of a system on disk, inside one directory.
pub const PRODUCER_FILE: &str = "producer.db";
pub const CONSUMER_FILE: &str = "consumer.db";

/// Without the leading `/`, a memdb database private to its connection, freed when it closes.
const WARM_UP_DB: &str = "file:outbox-playground-warm-up.db?vfs=memdb";

impl System {
    /// SQLite's first use, in scratch in-memory databases closed again at once: none of the playground's state.
    /// For the page: the browser compiles each wasm function on its first call, on the thread that makes it, so
    /// opening SQLite for the first time is one long task. Run first, a step a task, these leave most of
    /// SQLite's code compiled for [`System::new`], and every task is short: opening a connection (SQLite's
    /// start), running a query (its parser and its VM), then a schema (its B-trees and its catalogue).
    pub const WARM_UP: [fn() -> Result<(), Stop>; 3] = [
        || {
            db::open(WARM_UP_DB)?;
            Ok(())
        },
        || {
            let scratch = db::open(WARM_UP_DB)?;
            scratch.query_row("SELECT 1", [], |_| Ok(()))?;
            Ok(())
        },
        || {
            db::open(WARM_UP_DB)?.execute_batch(PRODUCER_SCHEMA)?;
            Ok(())
        },
    ];

    /// Every step of [`System::WARM_UP`] at once.
    pub fn warm_up() -> Result<(), Stop> {
        System::WARM_UP.iter().try_for_each(|step| step())
    }

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
        let place = Place::Lite {
            producer: producer_uri,
            consumer: consumer_uri,
            store: Store::Memory,
        };
        System::on(
            place,
            Conn::Lite(producer_disk),
            Conn::Lite(consumer_disk),
            config,
        )
    }

    /// A system on `place`'s databases: a process and the two disks' connections.
    fn on(
        place: Place,
        producer_disk: Conn,
        consumer_disk: Conn,
        config: ConsumerConfig,
    ) -> Result<System, Stop> {
        let process = Process {
            producer: place.open(Role::Producer)?,
            consumer: place.open(Role::Consumer)?,
        };
        Ok(System {
            place,
            process,
            producer_disk,
            consumer_disk,
            config,
            log: None,
            exit_hook: None,
            quick_restart: false,
            faults: false,
            changes: None,
            disks: power::Disks::default(),
            #[cfg(feature = "postgres")]
            _owned: None,
        })
    }

    /// Two fresh, empty schemas on the PostgreSQL server of `url`, dropped again with the system.
    #[cfg(feature = "postgres")]
    pub fn new_pg(url: &str, config: ConsumerConfig) -> Result<System, Stop> {
        let place = super::pg::Place::fresh(url);
        place.create()?;
        let owned = Owned(place.clone());
        let mut system = System::open_pg(&place, None, config)?;
        system._owned = Some(owned);
        Ok(system)
    }

    /// A process on the schemas of `place` (made by [`super::pg::Place::create`]), as one of several real
    /// processes sharing them; a write waits at most `lock_timeout` for the write lock, then answers `busy`.
    #[cfg(feature = "postgres")]
    pub fn open_pg(
        place: &super::pg::Place,
        lock_timeout: Option<std::time::Duration>,
        config: ConsumerConfig,
    ) -> Result<System, Stop> {
        let producer_disk = Conn::Pg(Box::new(place.open(Role::Producer, None)?));
        let consumer_disk = Conn::Pg(Box::new(place.open(Role::Consumer, None)?));
        let place = Place::Pg {
            place: place.clone(),
            lock_timeout,
        };
        System::on(place, producer_disk, consumer_disk, config)
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
        let producer_disk = Conn::Lite(db::open_in(&producer_uri, store)?);
        let consumer_disk = Conn::Lite(db::open_in(&consumer_uri, store)?);
        let place = Place::Lite {
            producer: producer_uri,
            consumer: consumer_uri,
            store,
        };
        System::on(place, producer_disk, consumer_disk, config)
    }

    /// A restart that rolls the open transaction back on the process's own connections instead of dropping
    /// them and opening new ones. The committed rows afterwards are the same — SQLite rolls back a dropped
    /// connection's transaction the same way — at a fraction of the cost (no schema to parse, no statement to
    /// prepare again). Only the checker uses it; its counterexamples are replayed with real exits.
    pub fn set_quick_restart(&mut self, on: bool) {
        self.quick_restart = on;
    }

    /// From now on, the process (and every process after a restart) notes which tables its commits change, for
    /// [`System::take_changed_tables`].
    pub fn track_changes(&mut self) -> Result<(), Stop> {
        let changes = [Arc::default(), Arc::default()];
        self.process.producer.track_changes(&changes[0])?;
        self.process.consumer.track_changes(&changes[1])?;
        self.changes = Some(changes);
        Ok(())
    }

    /// The tables ([`db::tables`]) the process's commits changed since the last call: all five when nothing
    /// is tracked. A table is named when a commit wrote it, even if the rows came back to what they were.
    pub fn take_changed_tables(&mut self) -> u8 {
        self.changes
            .as_ref()
            .map_or(db::tables::ALL, |[p, c]| p.take() | c.take())
    }

    /// The two "disks" (producer, consumer): the connections that read and write committed rows outside any
    /// process, for the checker's own loads.
    pub(crate) fn disks(&self) -> Result<(&Connection, &Connection), Stop> {
        Ok((self.producer_disk.lite()?, self.consumer_disk.lite()?))
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
            .map(|log| std::mem::take(&mut *db::lines(log)))
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
        let mut producer = self.place.open(Role::Producer)?;
        let mut consumer = self.place.open(Role::Consumer)?;
        producer.log = self.log.clone();
        consumer.log = self.log.clone();
        producer.exit_hook = self.exit_hook;
        consumer.exit_hook = self.exit_hook;
        // The new connections note changes where the old ones did (what the old transaction wrote is gone).
        if let Some([p, c]) = &self.changes {
            producer.track_changes(p)?;
            consumer.track_changes(c)?;
        }
        // Assigning drops the old process: its connections close and the store rolls back their open
        // transactions.
        self.process = Process { producer, consumer };
        let note = self.place.restart_note();
        self.process.producer.note(note.into());
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
        let result = consumer::receive(&mut self.process.consumer, &event, &self.config)?;
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
            Ok(event) => consumer::receive(&mut self.process.consumer, &event, &self.config),
        }
    }

    pub fn apply(&mut self, flow_id: &str) -> Result<ApplyResult, Stop> {
        consumer::apply(&mut self.process.consumer, flow_id, &self.config)
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

    /// RULE.md's `waiting` for `flow_id` now, `arrival` counted (the explanation asks a rule and strict there).
    pub fn waiting(
        &mut self,
        flow_id: &str,
    ) -> Result<Vec<crate::protocol::rule::WaitingRow>, Stop> {
        let v2 = self.config.support_v2;
        super::rule_apply::waiting_now(&mut self.process.consumer, flow_id, v2, true)
    }

    /// What the reader's rule returned at the last `rule_error`, taken once (the step report's message).
    pub fn take_rule_error(&mut self) -> Option<String> {
        self.process.consumer.rule_error.take()
    }

    /// Installs a real trigger that rejects the insert (experiment 10); it stays until cleared.
    pub fn inject_fault(&mut self, target: FaultTarget) -> Result<(), Stop> {
        self.faults = true;
        let db = self.process_db(target);
        let sql = db.conn().fault_trigger(target.table(), true);
        db.batch(&sql)
    }

    pub fn clear_fault(&mut self, target: FaultTarget) -> Result<(), Stop> {
        let db = self.process_db(target);
        let sql = db.conn().fault_trigger(target.table(), false);
        db.batch(&sql)
    }

    fn process_db(&mut self, target: FaultTarget) -> &mut Db {
        match target {
            FaultTarget::OutboxInsert => &mut self.process.producer,
            FaultTarget::EffectInsert => &mut self.process.consumer,
        }
    }
}

fn path_text(path: &Path) -> Result<String, Stop> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Stop::Sql(format!("{}: the path is not UTF-8", path.display())))
}

mod place;
mod power;
mod reads;
mod tables;
pub use power::Synchronous;
pub use reads::*;
