//! Runs moves on one pair of databases for a search: enter a state, run one TRACE.md step on real SQLite, read
//! back the state it leads to, and judge a new state's properties.

use super::actions::{actions, Action, Move};
use super::config::Config;
use super::properties::{self, Property, Violation};
use super::rows;
use super::state::State;
use crate::protocol::Boundary;
use crate::protocol::Location;
use crate::trace::{Session, StepReport};

/// Runs moves on one pair of databases: enter a state, run a step, read the state it leads to.
pub(super) struct Runner {
    config: Config,
    session: Session,
    /// The state the moves start from.
    entered: State,
    /// What the databases hold after the last move, when it changed a row (else they hold `entered`).
    moved: Option<State>,
    /// Every event's body (see [`Config::bodies`]).
    bodies: Vec<String>,
}

impl Runner {
    pub(super) fn new(config: &Config) -> Result<Runner, String> {
        let mut session = Session::create(&Location::memory(), config.setup())?;
        session.set_quick_restart(true);
        session.track_changes()?;
        Ok(Runner {
            config: config.clone(),
            session,
            // Fresh databases hold no rows.
            entered: State::initial(config),
            moved: None,
            bodies: config.bodies(),
        })
    }

    /// Puts `s`'s rows into the databases: each move from `s` starts from them.
    fn enter(&mut self, s: &State) -> Result<(), String> {
        let now = self.moved.take().unwrap_or_else(|| self.entered.clone());
        self.restore(&now, s)?;
        self.entered = s.clone();
        Ok(())
    }

    /// Makes the databases, holding `from`'s rows, hold `to`'s. Each database's writes are one transaction, so
    /// one may commit and the other fail: then what they hold is read back as `moved`, and the next move starts
    /// from the truth rather than from a state they no longer hold (a game's runner outlives an error).
    fn restore(&mut self, from: &State, to: &State) -> Result<(), String> {
        let result = rows::restore(self.session.system_mut(), from, to, &self.bodies);
        if result.is_err() {
            let mut held = from.clone();
            let all = crate::protocol::db::tables::ALL;
            if rows::read(self.session.system_mut(), &self.config, all, &mut held).is_ok() {
                self.moved = Some(held);
            }
        }
        result
    }

    /// From the entered state, runs `m`; returns the state it leads to and the step's report. Only the tables
    /// the step's commits changed are read back.
    fn run(&mut self, m: Move) -> Result<(State, StepReport), String> {
        if let Some(now) = self.moved.take() {
            let entered = self.entered.clone();
            self.restore(&now, &entered)?;
        }
        let report = self.session.step(&m.step(&self.config));
        let (r, c) = m.cost();
        let mut after = self.entered.clone();
        after.resends_used += r;
        after.crashes_used += c;
        let changed = self.session.take_changed_tables();
        if changed != 0 {
            rows::read(self.session.system_mut(), &self.config, changed, &mut after)?;
            self.moved = Some(after.clone());
        }
        Ok((after, report))
    }

    /// Every move from `s`, in order, with the state each leads to.
    pub(super) fn expand(&mut self, s: &State) -> Result<Vec<(Move, State)>, String> {
        self.enter(s)?;
        let mut out = Vec::new();
        for action in actions(&self.config, s) {
            let m = Move {
                action,
                crash: None,
            };
            // A checkpoint and a cut change what the disks hold, which the state keeps beside the rows: they
            // are worked out on the state, and the counterexample's replay runs them on SQLite
            // (`Counterexample::replay` checks it reaches the same rows).
            match action {
                Action::Checkpoint => {
                    out.push((m, s.checkpointed()));
                    continue;
                }
                Action::PowerCut(mask) => {
                    out.push((m, s.cut(mask)));
                    continue;
                }
                _ => {}
            }
            let (after, report) = self.run(m)?;
            out.push((m, after));
            let crashable = matches!(
                action,
                Action::Advance(_) | Action::Relay(_) | Action::Apply(_)
            );
            if crashable && s.crashes_used < self.config.crashes {
                // Each boundary the step crossed, once, in the order of the ten.
                let passed = Boundary::ALL
                    .into_iter()
                    .filter(|b| report.passed.contains(b));
                for b in passed {
                    let m = Move {
                        action,
                        crash: Some(b),
                    };
                    let (after, _) = self.run(m)?;
                    out.push((m, after));
                }
            }
        }
        Ok(out)
    }

    /// The state `m` leads to from `s`, when the checker offers `m` there (a reader's move, a hint's history);
    /// a move it does not offer is refused, naming it.
    pub(super) fn follow(&mut self, s: &State, m: Move) -> Result<State, String> {
        self.expand(s)?
            .into_iter()
            .find(|(offered, _)| *offered == m)
            .map(|(_, after)| after)
            .ok_or_else(|| {
                format!(
                    "`{}` is not a move here",
                    super::describe(&m.step(&self.config))
                )
            })
    }

    /// Whether `s` is quiescent (CHECKER.md): produced in full, nothing unacknowledged, and no flow's apply
    /// changes a row.
    fn quiescent(&mut self, s: &State) -> Result<bool, String> {
        if !properties::producer_done(&self.config, s) {
            return Ok(false);
        }
        let mut entered = false;
        for action in actions(&self.config, s) {
            if let Action::Apply(_) = action {
                if !entered {
                    self.enter(s)?;
                    entered = true;
                }
                let m = Move {
                    action,
                    crash: None,
                };
                let (after, _) = self.run(m)?;
                if !after.same_rows(s) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// RULE.md's `rule_answers`, for a rule consumer: at every flow `apply` is offered to, the rule's answer is
    /// one the engine can carry out.
    fn rule_answers(&mut self, s: &State) -> Result<Option<Violation>, String> {
        if self.config.rule.is_none() {
            return Ok(None);
        }
        let Some(rule) = &self.config.rule else {
            return Ok(None);
        };
        for action in actions(&self.config, s) {
            if let Action::Apply(flow) = action {
                let name = super::config::FLOW_IDS[flow as usize];
                // `waiting` from the state's rows, as the consumer builds it from the same rows in SQLite.
                if let Err(message) =
                    crate::protocol::rule::answer(rule, &s.waiting(&self.config, flow))
                {
                    return Ok(Some(Violation {
                        property: Property::RuleAnswers,
                        message: format!("apply {name}: {message}"),
                    }));
                }
            }
        }
        Ok(None)
    }

    /// The properties of a newly generated state, in CHECKER.md's order; `Ok(true)` when it is quiescent.
    pub(super) fn judge(&mut self, s: &State) -> Result<(Option<Violation>, bool), String> {
        if let Some(v) = self.rule_answers(s)? {
            return Ok((Some(v), false));
        }
        if let Some(v) =
            properties::consumer_invariant(s).or_else(|| properties::no_loss(&self.config, s))
        {
            return Ok((Some(v), false));
        }
        let quiescent = self.quiescent(s)?;
        let v = if quiescent {
            properties::completion(&self.config, s)
        } else {
            None
        };
        Ok((v, quiescent))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FaultTarget;

    /// The rows the databases hold, read whole.
    fn held(r: &mut Runner) -> State {
        let mut s = State::initial(&r.config);
        let all = crate::protocol::db::tables::ALL;
        rows::read(r.session.system_mut(), &r.config, all, &mut s).unwrap();
        s
    }

    /// A restore whose consumer half fails (a trigger refuses the effect) after its producer half committed:
    /// the runner reads back what the databases hold, and the next state it enters is exactly that state.
    #[test]
    fn a_restore_that_fails_halfway_leaves_the_runner_knowing_what_is_held() {
        let config = Config {
            flows: 1,
            events: 1,
            resends: 0,
            crashes: 0,
            ..Config::default()
        };
        let mut r = Runner::new(&config).unwrap();
        let start = State::initial(&config);
        let after = |r: &mut Runner, s: &State, kind: &str| {
            let moves = r.expand(s).unwrap();
            moves.into_iter().find(|(m, _)| m.kind() == kind).unwrap().1
        };
        let produced = after(&mut r, &start, "advance");
        let relayed = after(&mut r, &produced, "relay");
        let applied = after(&mut r, &relayed, "apply");
        assert_eq!(
            applied.effects.len(),
            1,
            "advance, relay, apply: one effect"
        );
        r.enter(&start).unwrap();
        r.session
            .system_mut()
            .inject_fault(FaultTarget::EffectInsert)
            .unwrap();
        assert!(r.enter(&applied).is_err(), "the trigger refuses the effect");
        r.session
            .system_mut()
            .clear_fault(FaultTarget::EffectInsert)
            .unwrap();
        r.enter(&produced).unwrap();
        assert!(held(&mut r).same_rows(&produced));
    }
}
