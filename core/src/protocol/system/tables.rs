//! The committed tables of both databases: the rows a session shows and the checker fingerprints, read back
//! after every step, and written back directly when the page travels in time or the explorer starts over.

use super::{FaultTarget, System};
use crate::protocol::consumer::ConsumerConfig;
use crate::protocol::db::Stop;
use rusqlite::Connection;
use serde::Serialize;

impl System {
    /// Empties both databases (rows and fault triggers): a fresh session without the cost of creating databases
    /// and schemas again (the explorer runs hundreds of sessions). An idle process keeps its connections (they
    /// hold no state of the old session, and reopening costs a schema parse each); one with a transaction open
    /// is restarted.
    pub fn wipe(&mut self, config: ConsumerConfig) -> Result<(), Stop> {
        // First: a process that died mid-transaction still holds its write lock, which the deletes would wait on.
        self.settle()?;
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
        self.disks = super::power::Disks::default();
        self.take_sql_log();
        self.take_passed();
        Ok(())
    }

    /// A process with no transaction open and nothing armed or remembered: an idle one keeps its connections
    /// (they hold no state, and reopening costs a schema parse each); one with a transaction open restarts.
    pub(crate) fn settle(&mut self) -> Result<(), Stop> {
        if self.process.producer.is_idle() && self.process.consumer.is_idle() {
            self.process.producer.clear();
            self.process.consumer.clear();
            Ok(())
        } else {
            self.restart()
        }
    }

    /// Takes the committed rows back from `from` (what the databases hold now) to `to`, an earlier state of the
    /// same databases (a disk's image: the page's power cut), row by row: the rows changed since are written back,
    /// the rows added since deleted. The protocol deletes no row, so `to` holds none that `from` lacks: the inbox's
    /// rows keep their places in the arrival order, and the effect log is a prefix of `from`'s. (The checker
    /// writes its compact rows itself, `checker::rows`.)
    pub(crate) fn roll_back(&mut self, from: &Snapshot, to: &Snapshot) -> Result<(), Stop> {
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
                    "UPDATE inbox SET flow_id=?, seq=?, body=?, state=?, reason=? WHERE event_id=?",
                )?
                .execute(rusqlite::params![
                    r.flow_id, r.seq, r.body, r.state, r.reason, r.event_id
                ])
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
        debug_assert!(fc.effect.starts_with(&tc.effect));
        for r in fc.effect.get(tc.effect.len()..).unwrap_or_default() {
            c.prepare_cached("DELETE FROM effect WHERE event_id=?")?
                .execute([&r.event_id])?;
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
        // `arrival`: the rowid, which orders the rows as the inbox stored them (a rule may read it, RULE.md).
        // Not a rank by window function: the page reads this after every step, and SQLite's window code would
        // join its first load.
        let inbox_sql = if bodies {
            "SELECT event_id, flow_id, seq, state, reason, body, rowid FROM inbox ORDER BY event_id"
        } else {
            "SELECT event_id, flow_id, seq, state, reason, '', rowid FROM inbox ORDER BY event_id"
        };
        let inbox = rows(c, inbox_sql, |r| {
            Ok(InboxRow {
                event_id: r.get(0)?,
                flow_id: r.get(1)?,
                seq: r.get(2)?,
                state: r.get(3)?,
                reason: r.get(4)?,
                body: r.get(5)?,
                arrival: r.get(6)?,
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

    /// The effect rows committed after row `id`, in written order, and the last row's id (what a step applied,
    /// for the page's diagram).
    pub fn effects_after(&self, id: i64) -> Result<(Vec<EffectRow>, i64), Stop> {
        let mut stmt = self.consumer_disk.prepare_cached(
            "SELECT id, event_id, flow_id, seq, kind, held FROM effect WHERE id > ? ORDER BY id",
        )?;
        let mut rows = stmt.query([id])?;
        let (mut out, mut last) = (Vec::new(), id);
        while let Some(r) = rows.next()? {
            last = r.get(0)?;
            out.push(EffectRow {
                event_id: r.get(1)?,
                flow_id: r.get(2)?,
                seq: r.get(3)?,
                kind: r.get(4)?,
                held: r.get(5)?,
            });
        }
        Ok((out, last))
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

impl System {
    /// The committed rows, bodies left out, of `flows` only: what the badge checks of the flows a step wrote
    /// (a long import checks these, not every flow, after each step), in indexed reads. `effect` has no index
    /// on `flow_id`, so a flow's effects are read through its inbox rows' event ids: an effect is written by
    /// applying an inbox row, and the two commit together or the inbox row first.
    pub fn rows_of_flows(&self, flows: &[&str]) -> Result<Snapshot, Stop> {
        let (p, c) = (&self.producer_disk, &self.consumer_disk);
        let mut s = Snapshot {
            producer: ProducerTables {
                flow: Vec::new(),
                outbox: Vec::new(),
            },
            consumer: ConsumerTables {
                support_v2: self.config.support_v2,
                inbox: Vec::new(),
                projection: Vec::new(),
                effect: Vec::new(),
            },
        };
        fn read<T>(
            conn: &Connection,
            sql: &str,
            flow: &str,
            map: fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
            into: &mut Vec<T>,
        ) -> Result<(), Stop> {
            let mut stmt = conn.prepare_cached(sql)?;
            for row in stmt.query_map([flow], map)? {
                into.push(row?);
            }
            Ok(())
        }
        for &f in flows {
            let (pr, co) = (&mut s.producer, &mut s.consumer);
            read(
                p,
                "SELECT flow_id, seq, state, amount FROM flow WHERE flow_id = ?1",
                f,
                flow_row,
                &mut pr.flow,
            )?;
            read(
                p,
                "SELECT event_id, flow_id, seq, '', accepted FROM outbox WHERE flow_id = ?1",
                f,
                outbox_row,
                &mut pr.outbox,
            )?;
            read(c, "SELECT event_id, flow_id, seq, state, reason, '', rowid FROM inbox WHERE flow_id = ?1", f, inbox_row, &mut co.inbox)?;
            read(
                c,
                "SELECT flow_id, last_seq, state, held FROM projection WHERE flow_id = ?1",
                f,
                projection_row,
                &mut co.projection,
            )?;
            read(c, "SELECT event_id, flow_id, seq, kind, held FROM effect WHERE flow_id = ?1 AND event_id IN (SELECT event_id FROM inbox WHERE flow_id = ?1) ORDER BY id", f, effect_row, &mut co.effect)?;
        }
        Ok(s)
    }

    /// The flows with an inbox row not applied: the only flows an apply can write.
    pub fn flows_waiting(&self) -> Result<Vec<String>, Stop> {
        rows(
            &self.consumer_disk,
            "SELECT DISTINCT flow_id FROM inbox WHERE state <> 'applied'",
            |r| r.get(0),
        )
    }

    /// The flow of the outbox row `event_id`, if there is one.
    pub fn flow_of_event(&self, event_id: &str) -> Result<Option<String>, Stop> {
        let mut stmt = self
            .producer_disk
            .prepare_cached("SELECT flow_id FROM outbox WHERE event_id = ?1")?;
        let mut rows = stmt.query([event_id])?;
        Ok(match rows.next()? {
            Some(r) => Some(r.get(0)?),
            None => None,
        })
    }
}

fn flow_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FlowRow> {
    Ok(FlowRow {
        flow_id: r.get(0)?,
        seq: r.get(1)?,
        state: r.get(2)?,
        amount: r.get(3)?,
    })
}

fn outbox_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<OutboxRow> {
    Ok(OutboxRow {
        event_id: r.get(0)?,
        flow_id: r.get(1)?,
        seq: r.get(2)?,
        body: r.get(3)?,
        accepted: r.get(4)?,
    })
}

fn inbox_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<InboxRow> {
    Ok(InboxRow {
        event_id: r.get(0)?,
        flow_id: r.get(1)?,
        seq: r.get(2)?,
        state: r.get(3)?,
        reason: r.get(4)?,
        body: r.get(5)?,
        arrival: r.get(6)?,
    })
}

fn projection_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ProjectionRow> {
    Ok(ProjectionRow {
        flow_id: r.get(0)?,
        last_seq: r.get(1)?,
        state: r.get(2)?,
        held: r.get(3)?,
    })
}

fn effect_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<EffectRow> {
    Ok(EffectRow {
        event_id: r.get(0)?,
        flow_id: r.get(1)?,
        seq: r.get(2)?,
        kind: r.get(3)?,
        held: r.get(4)?,
    })
}

/// Makes a keyed table hold `to` instead of `from`: deletes the keys `to` lacks, writes the rows that differ.
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
        if !from.contains(r) {
            write(r)?;
        }
    }
    Ok(())
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
    /// Orders the rows as the inbox stored them: the rowid read back, a place (1 = first) in a checker state
    /// whose rule reads `arrival`, 0 in one whose rule does not. Not in the result document.
    #[serde(skip)]
    pub arrival: i64,
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

impl Snapshot {
    /// What a fresh pair of databases holds, known without opening them: every table empty (the core's tests
    /// check it against SQLite's answer).
    pub fn empty(support_v2: bool) -> Snapshot {
        Snapshot {
            producer: ProducerTables {
                flow: Vec::new(),
                outbox: Vec::new(),
            },
            consumer: ConsumerTables {
                support_v2,
                inbox: Vec::new(),
                projection: Vec::new(),
                effect: Vec::new(),
            },
        }
    }
}
