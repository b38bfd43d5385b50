//! The invariant of §9, checked on committed tables: for every flow, the applied records are a legal, contiguous
//! prefix `1..last_seq` of the events the consumer accepted, no event leaves more than one effect, and the
//! projection agrees with the last effect.

use super::system::{FlowRow, Snapshot};
use super::{held_after, next_kind};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Invariant {
    pub holds: bool,
    pub violations: Vec<String>,
}

/// What `no_loss` finds lost: a committed transition without its outbox row, or an acknowledged event the
/// inbox lacks.
pub enum Loss<'a> {
    Unsent(&'a FlowRow, usize),
    Dropped(&'a str),
}

pub fn lost(s: &Snapshot) -> Option<Loss<'_>> {
    let p = &s.producer;
    for f in &p.flow {
        let rows = p.outbox.iter().filter(|o| o.flow_id == f.flow_id).count();
        if rows as i64 != f.seq {
            return Some(Loss::Unsent(f, rows));
        }
    }
    p.outbox
        .iter()
        .find(|o| o.accepted == 1 && !s.consumer.inbox.iter().any(|r| r.event_id == o.event_id))
        .map(|o| Loss::Dropped(&o.event_id))
}

/// The player's badge: the consumer's invariant and `no_loss` beside it, as the checker checks both.
pub fn check_with_loss(snapshot: &Snapshot) -> Invariant {
    let mut i = check(snapshot);
    if let Some(lost) = loss(snapshot) {
        i.holds = false;
        i.violations.push(format!("no_loss: {lost}"));
    }
    i
}

/// What `no_loss` finds lost, in words.
pub fn loss(snapshot: &Snapshot) -> Option<String> {
    Some(match lost(snapshot)? {
        Loss::Unsent(f, rows) => format!(
            "flow {} committed seq {} but the outbox holds {rows} of its events",
            f.flow_id, f.seq
        ),
        Loss::Dropped(ev) => format!("{ev} is marked accepted but the inbox does not hold it"),
    })
}

pub fn check(snapshot: &Snapshot) -> Invariant {
    let consumer = &snapshot.consumer;
    let mut violations = Vec::new();

    let mut seen = BTreeSet::new();
    for e in &consumer.effect {
        if !seen.insert(e.event_id.as_str()) {
            violations.push(format!("event {} has more than one effect", e.event_id));
        }
    }

    // Built by inserting, not collected: `collect` into a B-tree sorts first, which would put one more sort
    // routine in the page for each of these types.
    let mut flows: BTreeSet<&str> = BTreeSet::new();
    for id in consumer.effect.iter().map(|e| e.flow_id.as_str()) {
        flows.insert(id);
    }
    for id in consumer.projection.iter().map(|p| p.flow_id.as_str()) {
        flows.insert(id);
    }
    let mut inbox = BTreeMap::new();
    for r in &consumer.inbox {
        inbox.insert(r.event_id.as_str(), r);
    }

    for flow in flows {
        let effects: Vec<_> = consumer
            .effect
            .iter()
            .filter(|e| e.flow_id == flow)
            .collect();
        let mut state = "new";
        for (i, e) in effects.iter().enumerate() {
            let want_seq = i as i64 + 1;
            if e.seq != want_seq {
                violations.push(format!(
                    "flow {flow}: effect #{} is seq {} ({}), but the contiguous prefix needs seq {want_seq} there",
                    i + 1,
                    e.seq,
                    e.kind
                ));
                break;
            }
            if next_kind(state) != Some(e.kind.as_str()) {
                violations.push(format!(
                    "flow {flow}: effect #{} is {} after {state}, not a legal step",
                    i + 1,
                    e.kind
                ));
                break;
            }
            if e.held != held_after(&e.kind) {
                violations.push(format!(
                    "flow {flow}: effect #{} ({}) records held={}",
                    i + 1,
                    e.kind,
                    e.held
                ));
                break;
            }
            match inbox.get(e.event_id.as_str()) {
                // The effect and the applied mark commit together (§5): an effect whose row is not applied, or
                // whose kind is not the stored event's, was not written by a whole apply.
                Some(row)
                    if row.flow_id == e.flow_id && row.seq == e.seq && row.state != "applied" =>
                {
                    violations.push(format!(
                        "flow {flow}: effect for {} exists but its inbox row is {}",
                        e.event_id, row.state
                    ));
                    break;
                }
                Some(row)
                    if row.flow_id == e.flow_id
                        && row.seq == e.seq
                        && !row.body.is_empty()
                        && body_kind(&row.body).as_deref() != Some(e.kind.as_str()) =>
                {
                    violations.push(format!(
                        "flow {flow}: effect for {} is {}, but the event says otherwise",
                        e.event_id, e.kind
                    ));
                    break;
                }
                Some(row) if row.flow_id == e.flow_id && row.seq == e.seq => {}
                _ => {
                    violations.push(format!(
                        "flow {flow}: effect for {} matches no accepted event at seq {}",
                        e.event_id, e.seq
                    ));
                    break;
                }
            }
            state = e.kind.as_str();
        }
        let projection = consumer.projection.iter().find(|p| p.flow_id == flow);
        match (projection, effects.last()) {
            (Some(p), Some(last)) => {
                if p.last_seq != last.seq || p.state != last.kind || p.held != last.held {
                    violations.push(format!(
                        "flow {flow}: projection {}/last_seq={}/held={} disagrees with the last effect {} (seq {}, held {})",
                        p.state, p.last_seq, p.held, last.kind, last.seq, last.held
                    ));
                } else if p.last_seq != effects.len() as i64 {
                    violations.push(match effects.len() {
                        1 => format!(
                            "flow {flow}: last_seq={} but 1 effect was written",
                            p.last_seq
                        ),
                        n => format!(
                            "flow {flow}: last_seq={} but {n} effects were written",
                            p.last_seq
                        ),
                    });
                } else if p.held != held_after(&p.state) {
                    violations.push(format!("flow {flow}: held={} in state {}", p.held, p.state));
                }
            }
            (Some(p), None) => violations.push(format!(
                "flow {flow}: projection at last_seq={} but no effect was written",
                p.last_seq
            )),
            (None, Some(_)) => violations.push(format!(
                "flow {flow}: effects were written but there is no projection row"
            )),
            (None, None) => {}
        }
        // Every applied inbox row of the flow must have left its effect.
        for row in consumer
            .inbox
            .iter()
            .filter(|r| r.flow_id == flow && r.state == "applied")
        {
            if !effects.iter().any(|e| e.event_id == row.event_id) {
                violations.push(format!(
                    "flow {flow}: inbox row {} is marked applied but left no effect",
                    row.event_id
                ));
            }
        }
    }
    // Applied inbox rows of flows that have neither projection nor effect.
    for row in consumer.inbox.iter().filter(|r| r.state == "applied") {
        if !consumer.effect.iter().any(|e| e.flow_id == row.flow_id)
            && !consumer.projection.iter().any(|p| p.flow_id == row.flow_id)
        {
            violations.push(format!(
                "flow {}: inbox row {} is marked applied but left no effect",
                row.flow_id, row.event_id
            ));
        }
    }
    Invariant {
        holds: violations.is_empty(),
        violations,
    }
}

fn body_kind(body: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()?
        .get("kind")?
        .as_str()
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::system::{
        ConsumerTables, EffectRow, InboxRow, ProducerTables, ProjectionRow,
    };

    fn snapshot(inbox_state: &str, effect_kind: &str, held: i64) -> Snapshot {
        let body = r#"{"event_id":"A1","flow_id":"A","kind":"reserved","payload":{"amount":3},"schema":1,"seq":1}"#;
        Snapshot {
            producer: ProducerTables {
                flow: vec![],
                outbox: vec![],
            },
            consumer: ConsumerTables {
                support_v2: false,
                inbox: vec![InboxRow {
                    event_id: "A1".into(),
                    flow_id: "A".into(),
                    seq: 1,
                    body: body.into(),
                    state: inbox_state.into(),
                    reason: None,
                    arrival: 1,
                }],
                projection: vec![ProjectionRow {
                    flow_id: "A".into(),
                    last_seq: 1,
                    state: effect_kind.into(),
                    held,
                }],
                effect: vec![EffectRow {
                    event_id: "A1".into(),
                    flow_id: "A".into(),
                    seq: 1,
                    kind: effect_kind.into(),
                    held,
                }],
            },
        }
    }

    #[test]
    fn a_whole_apply_holds() {
        assert!(check(&snapshot("applied", "reserved", 3)).holds);
    }

    #[test]
    fn an_effect_without_its_applied_mark_is_a_violation() {
        let got = check(&snapshot("pending", "reserved", 3));
        assert!(!got.holds);
        assert!(
            got.violations[0].contains("inbox row is pending"),
            "{:?}",
            got.violations
        );
    }

    #[test]
    fn a_wrong_held_is_a_violation() {
        assert!(!check(&snapshot("applied", "reserved", 0)).holds);
    }

    #[test]
    fn an_effect_of_another_kind_than_its_event_is_a_violation() {
        let mut s = snapshot("applied", "reserved", 3);
        s.consumer.inbox[0].body = s.consumer.inbox[0].body.replace("reserved", "confirmed");
        let got = check(&s);
        assert_eq!(
            got.violations,
            ["flow A: effect for A1 is reserved, but the event says otherwise"]
        );
    }

    #[test]
    fn an_effect_at_another_seq_than_its_event_is_a_violation() {
        let mut s = snapshot("applied", "reserved", 3);
        s.consumer.inbox[0].seq = 2;
        let got = check(&s);
        assert_eq!(
            got.violations,
            ["flow A: effect for A1 matches no accepted event at seq 1"]
        );
    }

    #[test]
    fn a_projection_that_disagrees_in_one_field_is_a_violation() {
        for (state, held) in [("confirmed", 3), ("reserved", 0)] {
            let mut s = snapshot("applied", "reserved", 3);
            s.consumer.projection[0].state = state.into();
            s.consumer.projection[0].held = held;
            let got = check(&s);
            assert_eq!(
                got.violations,
                [format!("flow A: projection {state}/last_seq=1/held={held} disagrees with the last effect reserved (seq 1, held 3)")]
            );
        }
    }

    #[test]
    fn an_applied_row_without_its_effect_is_named_once() {
        // Flow A whole; B1 applied with neither effect nor projection of B.
        let mut s = snapshot("applied", "reserved", 3);
        let mut b1 = s.consumer.inbox[0].clone();
        (b1.event_id, b1.flow_id) = ("B1".into(), "B".into());
        s.consumer.inbox.push(b1.clone());
        assert_eq!(
            check(&s).violations,
            ["flow B: inbox row B1 is marked applied but left no effect"]
        );
        // Pending, B1 is only waiting.
        s.consumer.inbox[1].state = "pending".into();
        assert!(check(&s).holds);
        // A's effect without A's projection: the one thing wrong is the missing projection.
        let mut s = snapshot("applied", "reserved", 3);
        s.consumer.projection.clear();
        assert_eq!(
            check(&s).violations,
            ["flow A: effects were written but there is no projection row"]
        );
    }
}
