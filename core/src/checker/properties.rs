//! The three properties of CHECKER.md, checked on each state when it is first generated, in this order.

use super::config::{Config, Ev, FLOW_IDS};
use super::state::{State, INBOX_STATES, STATES};
use crate::protocol::next_kind;

words! {
    /// Which property a state breaks.
    pub enum Property {
        /// RULE.md: for a rule consumer, checked before the three of CHECKER.md.
        RuleAnswers = "rule_answers",
        ConsumerInvariant = "consumer_invariant",
        NoLoss = "no_loss",
        Completion = "completion",
    }
}

/// A broken property and what, in the state's rows, breaks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub property: Property,
    pub message: String,
}

fn violation(property: Property, message: String) -> Option<Violation> {
    Some(Violation { property, message })
}

fn inbox_state(s: &State, ev: Ev) -> Option<&'static str> {
    s.inbox
        .iter()
        .find(|r| r.ev == ev)
        .map(|r| INBOX_STATES[r.state as usize])
}

/// 1. For every flow with an effect or a projection row: its effects, in written order, are exactly
///    `1..last_seq`, each the legal successor of the one before, each with an `applied` inbox row, and the
///    projection's state is the last effect's kind. No event has two effects; every applied row has one.
pub fn consumer_invariant(s: &State) -> Option<Violation> {
    let v = |m: String| violation(Property::ConsumerInvariant, m);
    // Bit sets of event indexes and flows (at most nine events, three flows).
    let mut seen = 0u16;
    for ev in &s.effects {
        let bit = 1 << ev.index();
        if seen & bit != 0 {
            return v(format!("event {} has two effects", ev.id()));
        }
        seen |= bit;
    }
    let with_rows = s
        .effects
        .iter()
        .map(|e| e.flow)
        .chain(s.projection.iter().map(|p| p.flow))
        .fold(0u8, |set, flow| set | 1 << flow);
    for flow in (0..3u8).filter(|f| with_rows & 1 << f != 0) {
        let name = FLOW_IDS[flow as usize];
        let (last_seq, state) = s.last_seq(flow);
        let effects: Vec<Ev> = s
            .effects
            .iter()
            .copied()
            .filter(|e| e.flow == flow)
            .collect();
        if effects.len() != usize::from(last_seq) {
            return v(format!(
                "flow {name} has {} effect(s) but last_seq {last_seq}",
                effects.len()
            ));
        }
        let mut previous = "new";
        for (i, ev) in effects.iter().enumerate() {
            if usize::from(ev.seq) != i + 1 {
                return v(format!(
                    "flow {name}'s effect number {} is {} (seq {}), not seq {}",
                    i + 1,
                    ev.id(),
                    ev.seq,
                    i + 1
                ));
            }
            if next_kind(previous) != Some(ev.kind()) {
                return v(format!(
                    "flow {name}'s effect {} ({}) does not follow {previous}",
                    ev.id(),
                    ev.kind()
                ));
            }
            if inbox_state(s, *ev) != Some("applied") {
                return v(format!(
                    "effect {} has no applied inbox row (the inbox holds it as {})",
                    ev.id(),
                    inbox_state(s, *ev).unwrap_or("nothing")
                ));
            }
            previous = ev.kind();
        }
        if STATES[state as usize] != previous {
            return v(format!(
                "flow {name}'s projection is {} but its last effect is {previous}",
                STATES[state as usize]
            ));
        }
    }
    for r in &s.inbox {
        if INBOX_STATES[r.state as usize] == "applied" && seen & 1 << r.ev.index() == 0 {
            return v(format!(
                "inbox row {} is applied but has no effect",
                r.ev.id()
            ));
        }
    }
    None
}

/// 2. Every committed transition has its outbox row, and every row marked accepted is in the inbox.
pub fn no_loss(config: &Config, s: &State) -> Option<Violation> {
    let v = |m: String| violation(Property::NoLoss, m);
    for flow in 0..config.flows {
        let seq = s.flow_seq(flow);
        let rows = s.outbox.iter().filter(|(e, _)| e.flow == flow).count();
        if rows != usize::from(seq) {
            return v(format!(
                "flow {} committed seq {seq} but the outbox holds {rows} of its events",
                FLOW_IDS[flow as usize]
            ));
        }
    }
    for (ev, accepted) in &s.outbox {
        if *accepted && inbox_state(s, *ev).is_none() {
            return v(format!(
                "{} is marked accepted but the inbox does not hold it",
                ev.id()
            ));
        }
    }
    None
}

/// Whether the producer has nothing left to do: every flow produced in full, nothing unacknowledged. (The
/// third condition of quiescence, that no apply changes anything, needs SQLite: the search tests it.)
pub fn producer_done(config: &Config, s: &State) -> bool {
    (0..config.flows).all(|f| s.flow_seq(f) == config.events) && s.outbox.iter().all(|(_, a)| *a)
}

/// 3. In a quiescent state, every flow has `last_seq = events`, or its inbox row at `last_seq + 1` is blocked.
pub fn completion(config: &Config, s: &State) -> Option<Violation> {
    for flow in 0..config.flows {
        let (last_seq, _) = s.last_seq(flow);
        if last_seq >= config.events {
            continue;
        }
        let next = Ev {
            flow,
            seq: last_seq + 1,
        };
        match inbox_state(s, next) {
            Some("blocked") => {}
            other => {
                return violation(
                    Property::Completion,
                    format!(
                        "nothing is left to do, yet flow {} stops at last_seq {last_seq} and its next event {} is {}",
                        FLOW_IDS[flow as usize],
                        next.id(),
                        other.map_or("not in the inbox".to_owned(), |st| format!("{st}, not blocked"))
                    ),
                );
            }
        }
    }
    None
}
