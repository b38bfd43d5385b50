//! The consumer: a durable inbox that dedupes by event id (§4) and an apply that moves a flow only at exactly
//! `last_seq + 1` (§5), blocking on what it cannot take (§6). Also the article's wrong control, dedupe-only.

use super::db::{Db, Stop, P};
use super::types::{
    held_after, next_kind, payload_fits_schema, ApplyResult, BlockReason, Boundary, Event,
    Ordering, ReceiveResult,
};

/// The consumer's deployment settings. They are configuration, not state: they survive a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ConsumerConfig {
    pub ordering: Ordering,
    /// §6: the version-2 decoder. Off by default; turning it on lets blocked events apply unchanged.
    pub support_v2: bool,
}

/// §4: one write transaction that tells duplicates and both kinds of conflict apart, else stores `pending`.
/// The dedupe-only control (§5) instead overwrites the projection in arrival order in the same transaction.
pub fn receive(db: &mut Db, event: &Event, config: ConsumerConfig) -> Result<ReceiveResult, Stop> {
    let body = event.canonical_body();
    let result = db.write_tx(|db| {
        let held = db.query_opt(
            "SELECT body FROM inbox WHERE event_id=?",
            &[P::T(&event.event_id)],
            |r| r.get::<_, String>(0),
        )?;
        if let Some(held) = held {
            return Ok(if held == body {
                ReceiveResult::Duplicate
            } else {
                ReceiveResult::IdConflict
            });
        }
        let taken = db.query_opt(
            "SELECT event_id FROM inbox WHERE flow_id=? AND seq=?",
            &[P::T(&event.flow_id), P::I(event.seq)],
            |r| r.get::<_, String>(0),
        )?;
        if taken.is_some() {
            return Ok(ReceiveResult::SequenceConflict);
        }
        let state = match config.ordering {
            Ordering::Strict => "pending",
            Ordering::DedupeOnly => "applied",
        };
        db.exec(
            "INSERT INTO inbox(event_id, flow_id, seq, body, state) VALUES(?, ?, ?, ?, ?)",
            &[
                P::T(&event.event_id),
                P::T(&event.flow_id),
                P::I(event.seq),
                P::T(&body),
                P::T(state),
            ],
        )?;
        db.pass(Boundary::ReceiveAfterInsert)?;
        if config.ordering == Ordering::DedupeOnly {
            // The wrong control (§5): the id is deduplicated, but the state follows arrival order.
            let held = held_after(&event.kind);
            write_projection(db, &event.flow_id, event.seq, &event.kind, held)?;
            write_effect(db, event, held)?;
        }
        Ok(ReceiveResult::Accepted)
    })?;
    if result == ReceiveResult::Accepted {
        db.pass(Boundary::ReceiveAfterCommit)?;
    }
    Ok(result)
}

fn write_projection(
    db: &mut Db,
    flow_id: &str,
    seq: i64,
    state: &str,
    held: i64,
) -> Result<(), Stop> {
    db.exec(
        "INSERT INTO projection(flow_id, last_seq, state, held) VALUES(?, ?, ?, ?) \
         ON CONFLICT(flow_id) DO UPDATE SET last_seq=excluded.last_seq, state=excluded.state, held=excluded.held",
        &[P::T(flow_id), P::I(seq), P::T(state), P::I(held)],
    )?;
    Ok(())
}

fn write_effect(db: &mut Db, event: &Event, held: i64) -> Result<(), Stop> {
    db.exec(
        "INSERT INTO effect(event_id, flow_id, seq, kind, held) VALUES(?, ?, ?, ?, ?)",
        &[
            P::T(&event.event_id),
            P::T(&event.flow_id),
            P::I(event.seq),
            P::T(&event.kind),
            P::I(held),
        ],
    )?;
    Ok(())
}

/// §5: one attempt at exactly `last_seq + 1` — never "greater than last_seq".
pub fn apply(db: &mut Db, flow_id: &str, config: ConsumerConfig) -> Result<ApplyResult, Stop> {
    if config.ordering == Ordering::DedupeOnly {
        // The control already "applied" on receive; there is never anything left to do.
        return Ok(ApplyResult::Idle);
    }
    let result = db.write_tx(|db| {
        let (last_seq, state) = db
            .query_opt(
                "SELECT last_seq, state FROM projection WHERE flow_id=?",
                &[P::T(flow_id)],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
            )?
            .unwrap_or_else(|| (0, "new".to_owned()));
        let next = db.query_opt(
            "SELECT event_id, body, state FROM inbox WHERE flow_id=? AND seq=?",
            &[P::T(flow_id), P::I(last_seq + 1)],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
        )?;
        let Some((event_id, body)) = next else {
            let later = db.query_opt(
                "SELECT 1 FROM inbox WHERE flow_id=? AND seq>? LIMIT 1",
                &[P::T(flow_id), P::I(last_seq + 1)],
                |r| r.get::<_, i64>(0),
            )?;
            return Ok(if later.is_some() {
                ApplyResult::Gap
            } else {
                ApplyResult::Idle
            });
        };
        let verdict = match Event::from_body(&body) {
            Err(_) => Err(BlockReason::InvalidPayload),
            Ok(event) => check(&event, &state, config).map(|()| event),
        };
        match verdict {
            Err(reason) => {
                // §6: blocked, never skipped, rewritten or moved aside; later rows stay pending.
                db.exec(
                    "UPDATE inbox SET state='blocked', reason=? WHERE event_id=?",
                    &[P::T(reason.name()), P::T(&event_id)],
                )?;
                Ok(ApplyResult::Blocked(reason))
            }
            Ok(event) => {
                let held = held_after(&event.kind);
                write_projection(db, flow_id, event.seq, &event.kind, held)?;
                db.pass(Boundary::ApplyAfterProjection)?;
                write_effect(db, &event, held)?;
                db.exec(
                    "UPDATE inbox SET state='applied', reason=NULL WHERE event_id=?",
                    &[P::T(&event_id)],
                )?;
                db.pass(Boundary::ApplyAfterEffect)?;
                Ok(ApplyResult::Applied)
            }
        }
    })?;
    if result == ApplyResult::Applied {
        db.pass(Boundary::ApplyAfterCommit)?;
    }
    Ok(result)
}

/// §6: schema first (1, or 2 with `support_v2`), then the payload, then the transition.
fn check(event: &Event, state: &str, config: ConsumerConfig) -> Result<(), BlockReason> {
    let supported = event.schema == 1 || (event.schema == 2 && config.support_v2);
    if !supported {
        return Err(BlockReason::UnsupportedSchema);
    }
    if !payload_fits_schema(event.schema, &event.payload) {
        return Err(BlockReason::InvalidPayload);
    }
    if next_kind(state) != Some(event.kind.as_str()) {
        return Err(BlockReason::InvalidTransition);
    }
    Ok(())
}

/// The flows `process_all` visits: those with inbox rows, in `flow_id` order.
pub fn flows_with_inbox_rows(db: &mut Db) -> Result<Vec<String>, Stop> {
    db.query_all(
        "SELECT DISTINCT flow_id FROM inbox ORDER BY flow_id",
        &[],
        |r| r.get(0),
    )
}
