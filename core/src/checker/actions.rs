//! CHECKER.md's actions: what may happen next in a state, each one TRACE.md step, with or without a crash.

use super::config::{Config, Ev};
use super::state::State;
use crate::protocol::{Boundary, Role, WriteMode};
use crate::trace::Step;

/// One action of CHECKER.md's list, on a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Produce the flow's next event.
    Advance(Ev),
    /// The same, the article's unsafe way (a process exit after the state commit).
    UnsafeDualWrite(Ev),
    /// Relay an unaccepted outbox row.
    Relay(Ev),
    /// Relay a row already accepted: the network repeats a message.
    Resend(Ev),
    /// One apply attempt on a flow.
    Apply(u8),
    /// Both databases sync (under `normal`): their images become their rows.
    Checkpoint,
    /// The power goes out where these databases run (1 the producer, 2 the consumer, 3 both).
    PowerCut(u8),
}

/// An action and the boundary at which its process exits, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub action: Action,
    pub crash: Option<Boundary>,
}

impl Move {
    pub fn step(&self, config: &Config) -> Step {
        let step = match self.action {
            Action::Advance(ev) => config.advance(ev),
            Action::UnsafeDualWrite(ev) => config.advance(ev).into_unsafe_dual_write(),
            Action::Relay(ev) | Action::Resend(ev) => Step::relay(Some(ev.id())),
            Action::Apply(flow) => Step::apply(super::config::FLOW_IDS[flow as usize]),
            Action::Checkpoint => Step::Checkpoint,
            Action::PowerCut(mask) => Step::PowerCut {
                databases: [Role::Producer, Role::Consumer]
                    .into_iter()
                    .zip([1, 2])
                    .filter(|(_, bit)| mask & bit != 0)
                    .map(|(role, _)| role)
                    .collect(),
            },
        };
        step.with_crash_at(self.crash)
    }

    /// Two bytes: the action and its event or flow, then the exit's boundary (1–10, 0 for none). A search
    /// shared by workers sends moves this way.
    pub fn code(&self) -> [u8; 2] {
        let (kind, of) = match self.action {
            Action::Advance(ev) => (0, ev.index()),
            Action::UnsafeDualWrite(ev) => (1, ev.index()),
            Action::Relay(ev) => (2, ev.index()),
            Action::Resend(ev) => (3, ev.index()),
            Action::Apply(flow) => (4, flow),
            Action::Checkpoint => (5, 0),
            Action::PowerCut(mask) => (6, mask),
        };
        [kind << 4 | of, self.crash.map_or(0, |b| b.number() as u8)]
    }

    /// The move [`Move::code`] wrote.
    pub fn from_code(code: [u8; 2]) -> Option<Move> {
        let of = code[0] & 0xf;
        let ev = (of < 9).then(|| Ev::from_index(of));
        let action = match code[0] >> 4 {
            0 => Action::Advance(ev?),
            1 => Action::UnsafeDualWrite(ev?),
            2 => Action::Relay(ev?),
            3 => Action::Resend(ev?),
            4 if of < 3 => Action::Apply(of),
            // A checkpoint and a cut have no exit of their own.
            5 if of == 0 && code[1] == 0 => Action::Checkpoint,
            6 if (1..=3).contains(&of) && code[1] == 0 => Action::PowerCut(of),
            _ => return None,
        };
        let crash = match code[1] {
            0 => None,
            n => Some(*Boundary::ALL.get(usize::from(n) - 1)?),
        };
        Some(Move { action, crash })
    }

    /// What the move spends: `(resends, crashes)` (a power cut's budget is [`State::cut`]'s).
    pub(super) fn cost(&self) -> (u8, u8) {
        match (self.action, self.crash) {
            (Action::Resend(_), _) => (1, 0),
            (Action::UnsafeDualWrite(_), _) | (_, Some(_)) => (0, 1),
            _ => (0, 0),
        }
    }
}

/// The actions from `s`, in CHECKER.md's order, without their crash variants.
pub fn actions(config: &Config, s: &State) -> Vec<Action> {
    let mut out = Vec::new();
    for flow in 0..config.flows {
        let seq = s.flow_seq(flow);
        if seq < config.events {
            let ev = Ev { flow, seq: seq + 1 };
            out.push(Action::Advance(ev));
            if config.producer == WriteMode::UnsafeDualWrite && s.crashes_used < config.crashes {
                out.push(Action::UnsafeDualWrite(ev));
            }
        }
    }
    out.extend(
        s.outbox
            .iter()
            .filter(|(_, a)| !a)
            .map(|(ev, _)| Action::Relay(*ev)),
    );
    if s.resends_used < config.resends {
        out.extend(
            s.outbox
                .iter()
                .filter(|(_, a)| *a)
                .map(|(ev, _)| Action::Resend(*ev)),
        );
    }
    // By flow id, once each: the rows may be kept in arrival order (A1, B1, A2), not grouped by flow.
    out.extend(
        (0..config.flows)
            .filter(|&flow| s.inbox.iter().any(|r| r.ev.flow == flow))
            .map(Action::Apply),
    );
    // CHECKER.md, "Power cuts": a checkpoint that would sync something, then the cuts the budget allows.
    if s.unsynced() {
        out.push(Action::Checkpoint);
    }
    if s.power_cuts_used < config.power_cuts {
        out.extend([1, 2, 3].map(Action::PowerCut));
    }
    out
}
