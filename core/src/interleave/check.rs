//! A permutation's end state checked with the checker's properties, when the spec's tables are the protocol's
//! (`flow`, `outbox`, `inbox`, `projection`, `effect`, in one database: both roles' tables side by side): the
//! consumer's invariant and `no_loss`, as the player's badge checks them (`protocol::invariant`).

use super::print::ResultSet;
use crate::protocol::invariant;
use crate::protocol::system::{
    ConsumerTables, EffectRow, FlowRow, InboxRow, OutboxRow, ProducerTables, ProjectionRow,
};
use crate::protocol::Snapshot;
use serde::Serialize;

/// The protocol's tables, which a spec must hold all of for its end states to be checked.
pub const TABLES: [&str; 5] = ["flow", "outbox", "inbox", "projection", "effect"];

/// What each property says of an end state: `None` where it holds, else what breaks it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    pub consumer_invariant: Option<String>,
    pub no_loss: Option<String>,
}

impl Check {
    pub fn holds(&self) -> bool {
        self.consumer_invariant.is_none() && self.no_loss.is_none()
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let said = |name: &str, v: &Option<String>| match v {
            None => format!("{name} holds"),
            Some(why) => format!("{name} breaks: {why}"),
        };
        write!(
            f,
            "check: {}; {}",
            said("consumer_invariant", &self.consumer_invariant),
            said("no_loss", &self.no_loss)
        )
    }
}

/// Reads the end state with `query` (one statement's rows, as text) and checks it.
pub fn end_state(
    query: &mut dyn FnMut(&str) -> Result<ResultSet, String>,
) -> Result<Check, String> {
    let text = |row: &[Option<String>], i: usize| row.get(i).cloned().flatten().unwrap_or_default();
    let int = |row: &[Option<String>], i: usize| -> Result<i64, String> {
        let v = text(row, i);
        v.parse()
            .map_err(|_| format!("the end state holds `{v}` where a number belongs"))
    };
    let flow = query("SELECT flow_id, seq, state, amount FROM flow ORDER BY flow_id")?
        .rows
        .iter()
        .map(|r| {
            Ok(FlowRow {
                flow_id: text(r, 0),
                seq: int(r, 1)?,
                state: text(r, 2),
                amount: int(r, 3)?,
            })
        })
        .collect::<Result<_, String>>()?;
    let outbox =
        query("SELECT event_id, flow_id, seq, body, accepted FROM outbox ORDER BY event_id")?
            .rows
            .iter()
            .map(|r| {
                Ok(OutboxRow {
                    event_id: text(r, 0),
                    flow_id: text(r, 1),
                    seq: int(r, 2)?,
                    body: text(r, 3),
                    accepted: int(r, 4)?,
                })
            })
            .collect::<Result<_, String>>()?;
    let inbox =
        query("SELECT event_id, flow_id, seq, state, reason, body FROM inbox ORDER BY event_id")?
            .rows
            .iter()
            .map(|r| {
                Ok(InboxRow {
                    event_id: text(r, 0),
                    flow_id: text(r, 1),
                    seq: int(r, 2)?,
                    state: text(r, 3),
                    reason: r.get(4).cloned().flatten(),
                    body: text(r, 5),
                    arrival: 0,
                })
            })
            .collect::<Result<_, String>>()?;
    let projection =
        query("SELECT flow_id, last_seq, state, held FROM projection ORDER BY flow_id")?
            .rows
            .iter()
            .map(|r| {
                Ok(ProjectionRow {
                    flow_id: text(r, 0),
                    last_seq: int(r, 1)?,
                    state: text(r, 2),
                    held: int(r, 3)?,
                })
            })
            .collect::<Result<_, String>>()?;
    // In written order: the invariant reads a flow's effects as a sequence.
    let effect = query("SELECT event_id, flow_id, seq, kind, held FROM effect ORDER BY id")?
        .rows
        .iter()
        .map(|r| {
            Ok(EffectRow {
                event_id: text(r, 0),
                flow_id: text(r, 1),
                seq: int(r, 2)?,
                kind: text(r, 3),
                held: int(r, 4)?,
            })
        })
        .collect::<Result<_, String>>()?;
    let snapshot = Snapshot {
        producer: ProducerTables { flow, outbox },
        consumer: ConsumerTables {
            support_v2: false,
            inbox,
            projection,
            effect,
        },
    };
    let consumer = invariant::check(&snapshot);
    Ok(Check {
        consumer_invariant: (!consumer.holds).then(|| consumer.violations.join("; ")),
        no_loss: invariant::loss(&snapshot),
    })
}
