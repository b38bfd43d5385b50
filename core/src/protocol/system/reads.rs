//! The committed tables of both databases read back: the row types, a snapshot of everything (what a session
//! shows and the checker fingerprints, after every step), and the rows of a few flows (what a long import checks).

use super::System;
use crate::protocol::conn::{Conn, Row};
use crate::protocol::vocab::{Stop, P};
use serde::Serialize;

impl System {
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
        let inbox = rows(c, inbox_sql, inbox_row)?;
        let projection = rows(
            c,
            "SELECT flow_id, last_seq, state, held FROM projection ORDER BY flow_id",
            projection_row,
        )?;
        let effect = rows(
            c,
            "SELECT event_id, flow_id, seq, kind, held FROM effect ORDER BY id",
            effect_row,
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
        let (mut out, mut last) = (Vec::new(), id);
        self.consumer_disk.query_each(
            "SELECT event_id, flow_id, seq, kind, held, id FROM effect WHERE id > ? ORDER BY id",
            &[P::I(id)],
            |r| {
                last = r.get(5)?;
                out.push(effect_row(r)?);
                Ok(true)
            },
        )?;
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
            flow_row,
        )?;
        let outbox = rows(
            p,
            if bodies {
                "SELECT event_id, flow_id, seq, body, accepted FROM outbox ORDER BY event_id"
            } else {
                "SELECT event_id, flow_id, seq, '', accepted FROM outbox ORDER BY event_id"
            },
            outbox_row,
        )?;
        Ok(Snapshot {
            producer: ProducerTables { flow, outbox },
            consumer: self.consumer_tables(bodies)?,
        })
    }

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
            conn: &Conn,
            sql: &str,
            flow: &str,
            map: fn(&Row<'_>) -> Result<T, Stop>,
            into: &mut Vec<T>,
        ) -> Result<(), Stop> {
            into.extend(conn.query_all(sql, &[P::T(flow)], map)?);
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
        self.producer_disk.query_opt(
            "SELECT flow_id FROM outbox WHERE event_id = ?1",
            &[P::T(event_id)],
            |r| r.get(0),
        )
    }
}

fn flow_row(r: &Row<'_>) -> Result<FlowRow, Stop> {
    Ok(FlowRow {
        flow_id: r.get(0)?,
        seq: r.get(1)?,
        state: r.get(2)?,
        amount: r.get(3)?,
    })
}

fn outbox_row(r: &Row<'_>) -> Result<OutboxRow, Stop> {
    Ok(OutboxRow {
        event_id: r.get(0)?,
        flow_id: r.get(1)?,
        seq: r.get(2)?,
        body: r.get(3)?,
        accepted: r.get(4)?,
    })
}

fn inbox_row(r: &Row<'_>) -> Result<InboxRow, Stop> {
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

fn projection_row(r: &Row<'_>) -> Result<ProjectionRow, Stop> {
    Ok(ProjectionRow {
        flow_id: r.get(0)?,
        last_seq: r.get(1)?,
        state: r.get(2)?,
        held: r.get(3)?,
    })
}

fn effect_row(r: &Row<'_>) -> Result<EffectRow, Stop> {
    Ok(EffectRow {
        event_id: r.get(0)?,
        flow_id: r.get(1)?,
        seq: r.get(2)?,
        kind: r.get(3)?,
        held: r.get(4)?,
    })
}

fn rows<T>(
    conn: &Conn,
    sql: &str,
    map: impl FnMut(&Row<'_>) -> Result<T, Stop>,
) -> Result<Vec<T>, Stop> {
    conn.query_all(sql, &[], map)
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
