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
const TABLES: [&str; 5] = ["flow", "outbox", "inbox", "projection", "effect"];

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

type Query<'q> = dyn FnMut(&str) -> Result<ResultSet, String> + 'q;

/// Reads the end state with `query` (one statement's rows, as text) and checks it; `None` when the spec's
/// tables are not all the protocol's (a probe that names them all fails).
pub fn end_state(query: &mut Query<'_>) -> Result<Option<Check>, String> {
    if query(&format!("SELECT 1 FROM {} LIMIT 0", TABLES.join(", "))).is_err() {
        return Ok(None);
    }
    let flow = rows(
        query,
        "SELECT flow_id, seq, state, amount FROM flow ORDER BY flow_id",
        |r| {
            Ok(FlowRow {
                flow_id: text(r, 0),
                seq: int(r, 1)?,
                state: text(r, 2),
                amount: int(r, 3)?,
            })
        },
    )?;
    let outbox_sql = "SELECT event_id, flow_id, seq, body, accepted FROM outbox ORDER BY event_id";
    let outbox = rows(query, outbox_sql, |r| {
        Ok(OutboxRow {
            event_id: text(r, 0),
            flow_id: text(r, 1),
            seq: int(r, 2)?,
            body: text(r, 3),
            accepted: int(r, 4)?,
        })
    })?;
    let inbox_sql =
        "SELECT event_id, flow_id, seq, state, reason, body FROM inbox ORDER BY event_id";
    let inbox = rows(query, inbox_sql, |r| {
        Ok(InboxRow {
            event_id: text(r, 0),
            flow_id: text(r, 1),
            seq: int(r, 2)?,
            state: text(r, 3),
            reason: r.get(4).cloned().flatten(),
            body: text(r, 5),
            arrival: 0,
        })
    })?;
    let projection_sql = "SELECT flow_id, last_seq, state, held FROM projection ORDER BY flow_id";
    let projection = rows(query, projection_sql, |r| {
        Ok(ProjectionRow {
            flow_id: text(r, 0),
            last_seq: int(r, 1)?,
            state: text(r, 2),
            held: int(r, 3)?,
        })
    })?;
    // In written order: the invariant reads a flow's effects as a sequence.
    let effect_sql = "SELECT event_id, flow_id, seq, kind, held FROM effect ORDER BY id";
    let effect = rows(query, effect_sql, |r| {
        Ok(EffectRow {
            event_id: text(r, 0),
            flow_id: text(r, 1),
            seq: int(r, 2)?,
            kind: text(r, 3),
            held: int(r, 4)?,
        })
    })?;
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
    Ok(Some(Check {
        consumer_invariant: (!consumer.holds).then(|| consumer.violations.join("; ")),
        no_loss: invariant::loss(&snapshot),
    }))
}

/// `sql`'s rows, each read by `row`.
fn rows<T>(
    query: &mut Query<'_>,
    sql: &str,
    row: impl Fn(&[Option<String>]) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    query(sql)?.rows.iter().map(|r| row(r)).collect()
}

fn text(row: &[Option<String>], i: usize) -> String {
    row.get(i).cloned().flatten().unwrap_or_default()
}

fn int(row: &[Option<String>], i: usize) -> Result<i64, String> {
    let v = text(row, i);
    v.parse()
        .map_err(|_| format!("the end state holds `{v}` where a number belongs"))
}

/// A spec's own outbox checked at a permutation's end (its `committed` and `delivered` queries): `None` where a
/// property holds, else the rows that break it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutboxCheck {
    /// A row committed for delivery that was never delivered.
    pub loss: Option<String>,
    /// A row delivered more than once.
    pub duplicates: Option<String>,
    /// A stream's rows delivered out of their positions' order.
    pub order: Option<String>,
}

impl OutboxCheck {
    pub fn holds(&self) -> bool {
        self.loss.is_none() && self.duplicates.is_none() && self.order.is_none()
    }
}

impl std::fmt::Display for OutboxCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let said = |name: &str, v: &Option<String>| match v {
            None => format!("{name} holds"),
            Some(why) => format!("{name} breaks: {why}"),
        };
        write!(
            f,
            "check: {}; {}; {}",
            said("loss", &self.loss),
            said("duplicates", &self.duplicates),
            said("order", &self.order)
        )
    }
}

/// A stream and a position, as the declaration's queries answer them.
type Row = (String, i64);

/// Checks the end state by the spec's own declaration: `committed` and `delivered` read with `query`.
pub fn outbox(query: &mut Query<'_>, declared: &super::Outbox) -> Result<OutboxCheck, String> {
    let read = |query: &mut Query<'_>, what: &str, sql: &str| -> Result<Vec<Row>, String> {
        let set = query(sql).map_err(|e| format!("the `{what}` query failed: {e}"))?;
        if set.columns.len() != 2 {
            return Err(format!(
                "the `{what}` query must answer two columns, a stream and a position; it answered {}",
                set.columns.len()
            ));
        }
        set.rows
            .iter()
            .map(|r| {
                let position = text(r, 1);
                position.parse().map(|p| (text(r, 0), p)).map_err(|_| {
                    format!("the `{what}` query answered the position `{position}`, which is not a whole number")
                })
            })
            .collect()
    };
    let committed = read(query, "committed", &declared.committed)?;
    let delivered = read(query, "delivered", &declared.delivered)?;
    Ok(judge(&committed, &delivered))
}

/// Loss, duplicates and order, of rows committed and rows delivered (in delivery order).
pub fn judge(committed: &[Row], delivered: &[Row]) -> OutboxCheck {
    let shown = |(stream, position): &Row| format!("{stream}/{position}");
    let list = |rows: Vec<String>| (!rows.is_empty()).then(|| rows.join(", "));
    let mut lost: Vec<&Row> = committed
        .iter()
        .filter(|r| !delivered.contains(r))
        .collect();
    lost.sort();
    lost.dedup();
    let loss = list(
        lost.iter()
            .map(|r| format!("{} committed, never delivered", shown(r)))
            .collect(),
    );
    let mut seen: Vec<&Row> = Vec::new();
    let mut twice: Vec<(&Row, usize)> = Vec::new();
    for r in delivered {
        if seen.contains(&r) {
            if !twice.iter().any(|(t, _)| *t == r) {
                twice.push((r, delivered.iter().filter(|d| *d == r).count()));
            }
        } else {
            seen.push(r);
        }
    }
    let duplicates = list(
        twice
            .iter()
            .map(|(r, n)| format!("{} delivered {n} times", shown(r)))
            .collect(),
    );
    // Each stream's first deliveries, in delivery order, must climb.
    let mut highest: Vec<(&str, i64)> = Vec::new();
    let mut wrong = Vec::new();
    for (stream, position) in seen {
        match highest.iter_mut().find(|(s, _)| *s == stream.as_str()) {
            Some((_, top)) if *position < *top => {
                wrong.push(format!("stream {stream}: {position} delivered after {top}"))
            }
            Some((_, top)) => *top = *position,
            None => highest.push((stream.as_str(), *position)),
        }
    }
    OutboxCheck {
        loss,
        duplicates,
        order: list(wrong),
    }
}
