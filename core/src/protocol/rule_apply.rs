//! The reader's rule as the consumer (RULE.md): `waiting` filled inside the apply transaction, the rule's answer
//! carried out with strict's writes and boundaries. The steps it shares with the consumer are in
//! [`super::apply_steps`].

use super::apply_steps::{
    after_commit, check_with, mark_blocked, outside_call, projection, record, write_projection,
    Next,
};
use super::db::Db;
use super::vocab::{Stop, P};
use super::{held_after, ApplyResult, BlockReason, Boundary, Event};
use crate::protocol::rule::{self, Act, Rule, RuleEffect, WaitingRow};

/// RULE.md's `waiting` for `flow_id` as the committed rows hold it now (`arrival` counted when asked).
#[inline(never)]
pub fn waiting_now(
    db: &mut Db,
    flow_id: &str,
    support_v2: bool,
    arrival: bool,
) -> Result<Vec<WaitingRow>, Stop> {
    let (last_seq, state, held) = projection(db, flow_id)?;
    waiting(db, flow_id, (last_seq, &state, held), support_v2, arrival)
}

/// The reader's rule (RULE.md): inside the apply transaction, `waiting` is filled from the flow's `pending` and
/// `blocked` rows, the rule answers, and the engine carries the answer out with strict's writes and boundaries
/// (an `outside` effect exactly as `effect_outside_tx`). An answer it cannot carry out writes nothing.
// Out of line, and cold: the page's first load holds only what start-up runs (scripts/split-wasm.mjs), and
// code inlined into `apply` would ride along with it.
#[cold]
#[inline(never)]
pub(super) fn apply_rule(
    db: &mut Db,
    flow_id: &str,
    support_v2: bool,
    rule: &Rule,
) -> Result<ApplyResult, Stop> {
    let outside = rule.effect() == RuleEffect::Outside;
    let decided = db.write_tx_or_rollback(|db| {
        let (last_seq, state, held) = projection(db, flow_id)?;
        let rows = waiting(
            db,
            flow_id,
            (last_seq, &state, held),
            support_v2,
            rule.reads_arrival(),
        )?;
        let (index, act) = match rule::answer(rule, &rows) {
            Err(message) => {
                db.note(format!("-- {message}"));
                db.rule_error = Some(message);
                return Ok((Err(ApplyResult::RuleError), true));
            }
            Ok(None) if rows.is_empty() => return Ok((Err(ApplyResult::Idle), true)),
            Ok(None) => return Ok((Err(ApplyResult::Gap), true)),
            Ok(Some(answer)) => answer,
        };
        let row = &rows[index];
        db.note(format!("-- the rule answered ({}, {act:?})", row.event_id));
        if act != Act::Apply {
            let reason = rule::block_reason(row.problem);
            mark_blocked(db, &row.event_id, reason)?;
            if act == Act::Skip {
                write_projection(db, flow_id, row.seq, &state, held)?;
            }
            return Ok((Err(ApplyResult::Blocked(reason)), true));
        }
        let event = Event::from_body(&row.body).map_err(Stop::Sql)?;
        let next = Next {
            event_id: row.event_id.clone(),
            held: held_after(&event.kind),
            event,
        };
        if !outside {
            return record(db, flow_id, &next).map(|r| (Err(r), true));
        }
        write_projection(db, flow_id, next.event.seq, &next.event.kind, next.held)?;
        db.pass(Boundary::ApplyAfterProjection)?;
        db.note("-- the effect is an outside call: step out of the transaction to make it".into());
        Ok((Ok(next), false))
    })?;
    match decided {
        Err(result) => after_commit(db, result),
        Ok(next) => outside_call(db, flow_id, &next),
    }
}

/// RULE.md's `waiting` for one flow: its `pending` and `blocked` rows with the projection, strict's first
/// failing check as `problem`, and (only for a rule that reads it) the row's place in the inbox's arrival order.
fn waiting(
    db: &mut Db,
    flow_id: &str,
    (last_seq, flow_state, held): (i64, &str, i64),
    support_v2: bool,
    arrival: bool,
) -> Result<Vec<WaitingRow>, Stop> {
    let sql = if arrival {
        "SELECT event_id, seq, body, state, reason, arrival FROM \
         (SELECT *, row_number() OVER (ORDER BY rowid) AS arrival FROM inbox) AS q \
         WHERE flow_id=? AND state IN ('pending', 'blocked') ORDER BY seq"
    } else {
        "SELECT event_id, seq, body, state, reason, 0 FROM inbox \
         WHERE flow_id=? AND state IN ('pending', 'blocked') ORDER BY seq"
    };
    let rows = db.query_all(sql, &[P::T(flow_id)], |r| {
        Ok((
            r.get::<String>(0)?,
            r.get::<i64>(1)?,
            r.get::<String>(2)?,
            r.get::<String>(3)?,
            r.get::<Option<String>>(4)?,
            r.get::<i64>(5)?,
        ))
    })?;
    Ok(rows
        .into_iter()
        .map(|(event_id, seq, body, state, reason, arrival)| {
            let parsed = Event::from_body(&body);
            let problem = match &parsed {
                Err(_) => Some(BlockReason::InvalidPayload),
                Ok(e) => check_with(e, flow_state, support_v2).err(),
            };
            let (kind, schema) = parsed.map_or((String::new(), 0), |e| (e.kind, e.schema));
            WaitingRow {
                event_id,
                seq,
                kind,
                schema,
                state,
                reason,
                last_seq,
                flow_state: flow_state.to_owned(),
                held,
                problem: problem.map(BlockReason::name),
                arrival,
                body,
            }
        })
        .collect())
}
