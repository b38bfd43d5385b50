//! The consumer: a durable inbox that dedupes by event id (§4) and an apply that moves a flow only at exactly
//! `last_seq + 1` (§5), blocking on what it cannot take (§6). Also the article's wrong control, dedupe-only.

use super::apply_steps::{
    after_commit, check_with, mark_blocked, outside_call, projection, record, write_effect,
    write_projection, Next,
};
use super::db::Db;
use super::vocab::{Stop, P};
use super::{
    held_after, payload_fits_schema, ApplyResult, BlockReason, Boundary, Event, Ordering,
    ReceiveResult,
};
use crate::protocol::rule::Rule;
use std::sync::Arc;

pub use super::apply_steps::problem;

/// The consumer's deployment settings. They are configuration, not state: they survive a restart.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ConsumerConfig {
    pub ordering: Ordering,
    /// §6: the version-2 decoder. Off by default; turning it on lets blocked events apply unchanged.
    pub support_v2: bool,
    /// The reader's rule, with `ordering` [`Ordering::Rule`] (RULE.md).
    pub rule: Option<Arc<Rule>>,
}

/// §4: one write transaction that tells duplicates and both kinds of conflict apart, else stores `pending`.
/// The dedupe-only control (§5) instead overwrites the projection in arrival order in the same transaction.
pub fn receive(db: &mut Db, event: &Event, config: &ConsumerConfig) -> Result<ReceiveResult, Stop> {
    let body = event.canonical_body();
    let result = db.write_tx(|db| {
        let held = db.query_opt(
            "SELECT body FROM inbox WHERE event_id=?",
            &[P::T(&event.event_id)],
            |r| r.get::<String>(0),
        )?;
        if let Some(held) = held {
            return Ok(if held == body {
                ReceiveResult::DUPLICATE
            } else {
                ReceiveResult::ID_CONFLICT
            });
        }
        let taken = db.query_opt(
            "SELECT event_id FROM inbox WHERE flow_id=? AND seq=?",
            &[P::T(&event.flow_id), P::I(event.seq)],
            |r| r.get::<String>(0),
        )?;
        if taken.is_some() {
            return Ok(ReceiveResult::SEQUENCE_CONFLICT);
        }
        let state = if config.ordering == Ordering::DedupeOnly {
            "applied"
        } else {
            "pending"
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
        Ok(ReceiveResult::ACCEPTED)
    })?;
    if result == ReceiveResult::ACCEPTED {
        db.pass(Boundary::ReceiveAfterCommit)?;
    }
    Ok(result)
}

/// §5: one attempt at exactly `last_seq + 1` — never "greater than last_seq". The wrong turns of CHECKER.md
/// differ from it only where CHECKER.md says they do.
pub fn apply(db: &mut Db, flow_id: &str, config: &ConsumerConfig) -> Result<ApplyResult, Stop> {
    match config.ordering {
        // The control already "applied" on receive; there is never anything left to do.
        Ordering::DedupeOnly => Ok(ApplyResult::Idle),
        Ordering::GreaterThan => apply_greater_than(db, flow_id),
        Ordering::EffectOutsideTx => apply_effect_outside_tx(db, flow_id, config),
        Ordering::Rule => match &config.rule {
            Some(r) => super::rule_apply::apply_rule(db, flow_id, config.support_v2, r),
            None => Err(Stop::Sql("the consumer is `rule` but has no rule".into())),
        },
        Ordering::Strict | Ordering::SkipBlocked => {
            let result = db.write_tx(|db| match decide(db, flow_id, config)? {
                Decision::Stop(result) => Ok(result),
                Decision::Apply(next) => record(db, flow_id, &next),
            })?;
            after_commit(db, result)
        }
    }
}

enum Decision {
    /// `gap`, `idle`, or `blocked` (already marked, inside the caller's transaction).
    Stop(ApplyResult),
    Apply(Next),
}

/// Inside the apply transaction: reads `last_seq`, looks only at `last_seq + 1` (`pending` or `blocked` alike)
/// and checks it. A failed check marks the row `blocked` — and, for `skip_blocked`, moves the projection past
/// it in the same transaction (§6's dead-letter queue).
fn decide(db: &mut Db, flow_id: &str, config: &ConsumerConfig) -> Result<Decision, Stop> {
    let (last_seq, state, held) = projection(db, flow_id)?;
    let next = db.query_opt(
        "SELECT event_id, body FROM inbox WHERE flow_id=? AND seq=?",
        &[P::T(flow_id), P::I(last_seq + 1)],
        |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)),
    )?;
    let Some((event_id, body)) = next else {
        let later = db.query_opt(
            "SELECT 1 FROM inbox WHERE flow_id=? AND seq>? LIMIT 1",
            &[P::T(flow_id), P::I(last_seq + 1)],
            |r| r.get::<i64>(0),
        )?;
        return Ok(Decision::Stop(if later.is_some() {
            ApplyResult::Gap
        } else {
            ApplyResult::Idle
        }));
    };
    let verdict = match Event::from_body(&body) {
        Err(_) => Err(BlockReason::InvalidPayload),
        Ok(event) => check(&event, &state, config).map(|()| event),
    };
    match verdict {
        Err(reason) => {
            // §6: blocked, never skipped, rewritten or moved aside; later rows stay pending.
            mark_blocked(db, &event_id, reason)?;
            if config.ordering == Ordering::SkipBlocked {
                // The wrong turn: "move it to a dead-letter queue and go on".
                write_projection(db, flow_id, last_seq + 1, &state, held)?;
            }
            Ok(Decision::Stop(ApplyResult::Blocked(reason)))
        }
        Ok(event) => {
            let held = held_after(&event.kind);
            Ok(Decision::Apply(Next {
                event_id,
                event,
                held,
            }))
        }
    }
}

/// The wrong turn of §5, "3 is greater than 0, so apply it": the `pending` row with the smallest seq above
/// `last_seq`, whatever lies between. It checks the schema (1 only) and the payload, not the transition; a
/// failed check blocks the row for good. Success passes the three `apply.*` boundaries like strict.
fn apply_greater_than(db: &mut Db, flow_id: &str) -> Result<ApplyResult, Stop> {
    let result = db.write_tx(|db| {
        let (last_seq, _, _) = projection(db, flow_id)?;
        let next = db.query_opt(
            "SELECT event_id, body FROM inbox WHERE flow_id=? AND state='pending' AND seq>? \
             ORDER BY seq LIMIT 1",
            &[P::T(flow_id), P::I(last_seq)],
            |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)),
        )?;
        let Some((event_id, body)) = next else {
            return Ok(ApplyResult::Idle);
        };
        let event = match Event::from_body(&body) {
            Err(_) => Err(BlockReason::InvalidPayload),
            Ok(event) if event.schema != 1 => Err(BlockReason::UnsupportedSchema),
            Ok(event) if !payload_fits_schema(event.schema, &event.payload) => {
                Err(BlockReason::InvalidPayload)
            }
            Ok(event) => Ok(event),
        };
        match event {
            Err(reason) => {
                mark_blocked(db, &event_id, reason)?;
                Ok(ApplyResult::Blocked(reason))
            }
            Ok(event) => {
                let held = held_after(&event.kind);
                record(
                    db,
                    flow_id,
                    &Next {
                        event_id,
                        event,
                        held,
                    },
                )
            }
        }
    })?;
    after_commit(db, result)
}

/// The wrong turn of §5 where the effect is an outside call (an email, a remote reservation): strict, except
/// that the effect is written outside the apply transaction, after `apply.after_projection` and before
/// `apply.after_effect`. SQLite has one writer per database, so the call cannot commit while the apply
/// transaction holds the write lock: the consumer writes the projection, passes `apply.after_projection`, steps
/// out of its transaction (rolls it back) to make the call — the effect commits on its own — and then writes
/// the projection again with the `applied` mark. A crash at `apply.after_projection` leaves nothing; one at
/// `apply.after_effect` leaves only the effect.
fn apply_effect_outside_tx(
    db: &mut Db,
    flow_id: &str,
    config: &ConsumerConfig,
) -> Result<ApplyResult, Stop> {
    let decided = db.write_tx_or_rollback(|db| match decide(db, flow_id, config)? {
        // `gap`, `idle` or `blocked`: as strict, committed here.
        Decision::Stop(result) => Ok((Err(result), true)),
        Decision::Apply(next) => {
            write_projection(db, flow_id, next.event.seq, &next.event.kind, next.held)?;
            db.pass(Boundary::ApplyAfterProjection)?;
            db.note(
                "-- the effect is an outside call: step out of the transaction to make it".into(),
            );
            Ok((Ok(next), false))
        }
    })?;
    let next = match decided {
        Err(result) => return Ok(result),
        Ok(next) => next,
    };
    outside_call(db, flow_id, &next)
}

/// §6: schema first (1, or 2 with `support_v2`), then the payload, then the transition.
fn check(event: &Event, state: &str, config: &ConsumerConfig) -> Result<(), BlockReason> {
    check_with(event, state, config.support_v2)
}

/// The flows `process_all` visits: those with inbox rows, in `flow_id` order.
pub fn flows_with_inbox_rows(db: &mut Db) -> Result<Vec<String>, Stop> {
    db.query_all(
        "SELECT DISTINCT flow_id FROM inbox ORDER BY flow_id",
        &[],
        |r| r.get(0),
    )
}
