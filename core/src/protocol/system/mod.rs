//! The whole world of one session: two databases on "disk", the process currently running against them, and
//! restart. Each protocol call runs inside the current process; a crash drops it and starts a new one.

use super::conn::Conn;
use super::conn::PRODUCER_SCHEMA;
use super::consumer::{self, ConsumerConfig};
use super::db::{self, Db, ExitHook, SqlLine, SqlLog};
use super::location::Location;
use super::producer::{self, Transition, WriteMode};
use super::vocab::{Role, Stop};
use super::{AdvanceResult, ApplyResult, Boundary, Event, FlowStop, ReceiveResult};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// Where the databases are: a restart opens them again from here.
    location: Location,
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
    /// A server's schemas this system made, removed after every connection above has closed.
    _owned: Option<Owned>,
}

/// Removes a system's databases when it is dropped ([`Location::removed_with_its_system`]).
struct Owned(Location);

impl Drop for Owned {
    fn drop(&mut self) {
        // Nothing to report to: a schema left behind is named by its prefix and dropped with its server.
        let _ = self.0.remove();
    }
}

/// Without the leading `/`, a memdb database private to its connection, freed when it closes.
const WARM_UP_DB: &str = "file:outbox-playground-warm-up.db?vfs=memdb";

impl System {
    /// SQLite's first use, in scratch in-memory databases closed again at once: none of the playground's state.
    /// For the page: the browser compiles each wasm function on its first call, on the thread that makes it, so
    /// opening SQLite for the first time is one long task. Run first, a step a task, these leave most of
    /// SQLite's code compiled for [`System::create`], and every task is short: opening a connection (SQLite's
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

    /// Fresh, empty databases at `location` with the article's schema, and a process running against them.
    /// A server's schemas are removed with the system; files stay for a reader; memory goes with it anyway.
    pub fn create(location: &Location, config: ConsumerConfig) -> Result<System, Stop> {
        let (location, [producer_disk, consumer_disk]) = location.create_disks()?;
        let owned = location
            .removed_with_its_system()
            .then(|| Owned(location.clone()));
        let mut system = System::on(location, producer_disk, consumer_disk, config)?;
        system._owned = owned;
        Ok(system)
    }

    /// A process on the databases at `location` (made by [`Location::create`]), as one of several real
    /// processes sharing them. Nothing is created: a missing file is an error.
    pub fn open(location: &Location, config: ConsumerConfig) -> Result<System, Stop> {
        let [producer_disk, consumer_disk] = location.open_disks()?;
        System::on(location.clone(), producer_disk, consumer_disk, config)
    }

    /// A system on `location`'s databases: a process and the two disks' connections.
    fn on(
        location: Location,
        producer_disk: Conn,
        consumer_disk: Conn,
        config: ConsumerConfig,
    ) -> Result<System, Stop> {
        let process = Process {
            producer: location.open(Role::Producer)?,
            consumer: location.open(Role::Consumer)?,
        };
        Ok(System {
            location,
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
            _owned: None,
        })
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
        let mut producer = self.location.open(Role::Producer)?;
        let mut consumer = self.location.open(Role::Consumer)?;
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
        let note = self.location.restart_note();
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

impl Location {
    /// What a fresh process sees: both databases' committed tables. Here, so that `location.rs` needs nothing
    /// of the system but its `Synchronous` setting.
    pub fn read(&self) -> Result<Snapshot, Stop> {
        System::open(self, ConsumerConfig::default())?.snapshot()
    }
}

mod power;
mod reads;
mod tables;
pub use crate::protocol::vocab::Synchronous;
pub use reads::*;
