//! The producer (§2): `advance` commits the state change and its outbox row in one transaction; the unsafe dual
//! write is kept beside it as the article's contrast.

use super::conn::Row;
use super::db::Db;
use super::vocab::{Stop, P};
use super::{next_kind, payload_fits_schema, AdvanceResult, Boundary, Event, AMOUNT};

/// A requested transition: the event the producer would commit, with the seq it believes the flow is at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    pub expected_seq: i64,
    /// The event as it would be committed (`seq = expected_seq + 1`).
    pub event: Event,
}

words! {
    /// How the producer writes: the protocol, or the article's wrong way (§2).
    pub enum WriteMode {
        Atomic = "atomic",
        UnsafeDualWrite = "unsafe_dual_write",
    }
}

/// §2: check the id's history, then `expected_seq`, then legality; then update `flow` and insert `outbox` together.
pub fn advance(db: &mut Db, t: &Transition, mode: WriteMode) -> Result<AdvanceResult, Stop> {
    let body = t.event.canonical_body();
    let event = &t.event;
    let result = db.write_tx(|db| {
        // The history first: a retry of a committed event is `existing` even after the flow moved on (§2).
        let previous = db.query_opt(
            "SELECT body FROM outbox WHERE event_id=?",
            &[P::T(&event.event_id)],
            |r| r.get::<String>(0),
        )?;
        if let Some(previous) = previous {
            return Ok(if previous == body {
                AdvanceResult::Existing
            } else {
                AdvanceResult::Conflict
            });
        }
        let current = db.query_opt(
            "SELECT seq, state FROM flow WHERE flow_id=?",
            &[P::T(&event.flow_id)],
            |r| Ok((r.get::<i64>(0)?, r.get::<String>(1)?)),
        )?;
        let (seq, state) = current.clone().unwrap_or_else(|| (0, "new".to_owned()));
        if t.expected_seq != seq {
            return Ok(AdvanceResult::Stale);
        }
        let legal = next_kind(&state) == Some(event.kind.as_str())
            && payload_fits_schema(event.schema, &event.payload);
        if !legal {
            return Ok(AdvanceResult::InvalidTransition);
        }
        if current.is_some() {
            db.exec(
                "UPDATE flow SET seq=?, state=? WHERE flow_id=?",
                &[P::I(event.seq), P::T(&event.kind), P::T(&event.flow_id)],
            )?;
        } else {
            db.exec(
                "INSERT INTO flow(flow_id, seq, state, amount) VALUES(?, ?, ?, ?)",
                &[
                    P::T(&event.flow_id),
                    P::I(event.seq),
                    P::T(&event.kind),
                    P::I(AMOUNT),
                ],
            )?;
        }
        if mode == WriteMode::UnsafeDualWrite {
            // §2: the state is committed on its own and the process dies before the outbox is written. It
            // passes no boundary (TRACE.md, CHECKER.md): none of the ten describes "state committed alone".
            db.commit_then_exit()?;
        }
        db.pass(Boundary::ProducerAfterState)?;
        db.exec(
            "INSERT INTO outbox(event_id, flow_id, seq, body) VALUES(?, ?, ?, ?)",
            &[
                P::T(&event.event_id),
                P::T(&event.flow_id),
                P::I(event.seq),
                P::T(&body),
            ],
        )?;
        db.pass(Boundary::ProducerAfterOutbox)?;
        Ok(AdvanceResult::Committed)
    })?;
    if result == AdvanceResult::Committed {
        db.pass(Boundary::ProducerAfterCommit)?;
    }
    Ok(result)
}

/// An outbox row as the relay reads it.
#[derive(Clone, Debug)]
pub struct OutboxRow {
    pub event_id: String,
    pub body: String,
    pub accepted: bool,
}

/// §6: the first unaccepted row by `(flow_id, seq)`, or the row named by `event_id` even if already accepted.
pub fn pick_for_relay(db: &mut Db, event_id: Option<&str>) -> Result<Option<OutboxRow>, Stop> {
    let map = |r: &Row<'_>| {
        Ok(OutboxRow {
            event_id: r.get(0)?,
            body: r.get(1)?,
            accepted: r.get::<i64>(2)? == 1,
        })
    };
    match event_id {
        None => db.query_opt(
            "SELECT event_id, body, accepted FROM outbox WHERE accepted=0 ORDER BY flow_id, seq LIMIT 1",
            &[],
            map,
        ),
        Some(id) => db.query_opt(
            "SELECT event_id, body, accepted FROM outbox WHERE event_id=?",
            &[P::T(id)],
            map,
        ),
    }
}

/// §4: in a producer transaction of its own, record that the consumer holds the event. Writes (and so crosses
/// the relay boundaries) only while the row is still 0; says whether it wrote.
pub fn mark_accepted(db: &mut Db, event_id: &str) -> Result<bool, Stop> {
    let wrote = db.write_tx(|db| {
        let accepted = db.query_opt(
            "SELECT accepted FROM outbox WHERE event_id=?",
            &[P::T(event_id)],
            |r| r.get::<i64>(0),
        )?;
        if accepted != Some(0) {
            return Ok(false);
        }
        db.exec(
            "UPDATE outbox SET accepted=1 WHERE event_id=?",
            &[P::T(event_id)],
        )?;
        db.pass(Boundary::RelayAfterMark)?;
        Ok(true)
    })?;
    if wrote {
        db.pass(Boundary::RelayAfterMarkCommit)?;
    }
    Ok(wrote)
}
