//! The apply transaction's steps that every consumer shares — strict's, the wrong turns' and the reader's rule's
//! (`rule_apply.rs`): the projection read and written, the effect, the `applied` and `blocked` marks, the
//! outside call, and §6's checks. A leaf below both: the consumers call it, it calls none of them.

use super::db::Db;
use super::vocab::{Stop, P};
use super::{next_kind, payload_fits_schema, ApplyResult, BlockReason, Boundary, Event};

pub(super) fn write_projection(
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

pub(super) fn write_effect(db: &mut Db, event: &Event, held: i64) -> Result<(), Stop> {
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

/// Inside the apply transaction: the projection, the effect and the `applied` mark together (§5), with the
/// two boundaries between them.
pub(super) fn record(db: &mut Db, flow_id: &str, next: &Next) -> Result<ApplyResult, Stop> {
    write_projection(db, flow_id, next.event.seq, &next.event.kind, next.held)?;
    db.pass(Boundary::ApplyAfterProjection)?;
    write_effect(db, &next.event, next.held)?;
    mark_applied(db, &next.event_id)?;
    db.pass(Boundary::ApplyAfterEffect)?;
    Ok(ApplyResult::Applied)
}

/// After the apply transaction committed: an applied event passes `apply.after_commit`.
pub(super) fn after_commit(db: &mut Db, result: ApplyResult) -> Result<ApplyResult, Stop> {
    if result == ApplyResult::Applied {
        db.pass(Boundary::ApplyAfterCommit)?;
    }
    Ok(result)
}

/// The event at `last_seq + 1`, checked and ready to apply.
pub(super) struct Next {
    pub(super) event_id: String,
    pub(super) event: Event,
    pub(super) held: i64,
}

/// The flow's projection: `(last_seq, state, held)`, or `(0, new, 0)` before its first applied event.
pub(super) fn projection(db: &mut Db, flow_id: &str) -> Result<(i64, String, i64), Stop> {
    Ok(db
        .query_opt(
            "SELECT last_seq, state, held FROM projection WHERE flow_id=?",
            &[P::T(flow_id)],
            |r| Ok((r.get::<i64>(0)?, r.get::<String>(1)?, r.get::<i64>(2)?)),
        )?
        .unwrap_or_else(|| (0, "new".to_owned(), 0)))
}

pub(super) fn mark_blocked(db: &mut Db, event_id: &str, reason: BlockReason) -> Result<(), Stop> {
    db.exec(
        "UPDATE inbox SET state='blocked', reason=? WHERE event_id=?",
        &[P::T(reason.name()), P::T(event_id)],
    )?;
    Ok(())
}

pub(super) fn mark_applied(db: &mut Db, event_id: &str) -> Result<(), Stop> {
    db.exec(
        "UPDATE inbox SET state='applied', reason=NULL WHERE event_id=?",
        &[P::T(event_id)],
    )?;
    Ok(())
}

/// After the apply transaction stepped out: the outside call commits the effect on its own, then the
/// projection and the `applied` mark commit with `apply.after_effect` (`effect_outside_tx`, a rule's `outside`).
pub(super) fn outside_call(db: &mut Db, flow_id: &str, next: &Next) -> Result<ApplyResult, Stop> {
    // The outside call: once made, no rollback of ours can take it back.
    db.write_tx(|db| write_effect(db, &next.event, next.held))?;
    let result = db.write_tx(|db| {
        write_projection(db, flow_id, next.event.seq, &next.event.kind, next.held)?;
        mark_applied(db, &next.event_id)?;
        db.pass(Boundary::ApplyAfterEffect)?;
        Ok(ApplyResult::Applied)
    })?;
    after_commit(db, result)
}

/// RULE.md's `problem`: strict's first failing check of `event` on a flow in `state`, if any.
pub fn problem(event: &Event, state: &str, support_v2: bool) -> Option<BlockReason> {
    check_with(event, state, support_v2).err()
}

pub(super) fn check_with(event: &Event, state: &str, support_v2: bool) -> Result<(), BlockReason> {
    let supported = event.schema == 1 || (event.schema == 2 && support_v2);
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
