//! The explorer's matrix: the strict consumer passes every run; the dedupe-only control fails some.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::explorer::{self, orders, plans};
use outbox_core::protocol::Location;
use outbox_core::protocol::{Boundary, Ordering, Outcome};

#[test]
fn orders_are_the_six_permutations_or_the_thirty_six_with_a_resend() {
    let six = orders(false);
    assert_eq!(six.len(), 6);
    let labels: Vec<String> = six.iter().map(|o| explorer::order_label(o)).collect();
    assert_eq!(
        labels,
        ["123", "132", "213", "231", "312", "321"],
        "the table's rows, in order"
    );
    let extended = orders(true);
    assert_eq!(extended.len(), 36, "3 choices of resend × 4!/2! orders");
    assert!(extended.iter().all(|o| o.len() == 4));
}

#[test]
fn strict_passes_every_run_and_every_boundary_fires_somewhere() {
    let plans = plans(&[Ordering::Strict], false).unwrap();
    for b in Boundary::ALL {
        assert!(plans.iter().any(|p| p.boundary == b), "{b} never reachable");
    }
    for order in orders(false) {
        assert!(
            plans.iter().any(|p| p.order == order),
            "{order:?} never run"
        );
    }
    for plan in &plans {
        let outcome = explorer::run(plan);
        assert!(outcome.ok, "{plan:?}: {:?}", outcome.problem);
    }
    println!("strict: {} runs", plans.len());
}

#[test]
fn dedupe_only_fails_with_a_violation_where_arrival_is_out_of_order() {
    let plans = plans(&[Ordering::DedupeOnly], false).unwrap();
    assert!(
        plans.iter().all(|p| !matches!(
            p.boundary,
            Boundary::ApplyAfterProjection
                | Boundary::ApplyAfterEffect
                | Boundary::ApplyAfterCommit
        )),
        "dedupe-only never applies"
    );
    let outcomes: Vec<_> = plans.iter().map(|p| (p, explorer::run(p))).collect();
    let failed: Vec<_> = outcomes.iter().filter(|(_, o)| !o.ok).collect();
    assert!(!failed.is_empty());
    // In order and without a lost delivery the control looks fine — which is why it gets written.
    assert!(outcomes
        .iter()
        .any(|(p, o)| o.ok && explorer::order_label(&p.order) == "123"));
    assert!(failed.iter().any(|(_, o)| o
        .problem
        .as_deref()
        .unwrap_or("")
        .contains("contiguous prefix")));
    // The problem shown is the first violation at the first step that broke the invariant, not a later one.
    let mut checked = 0;
    for (p, o) in &failed {
        let trace = p.trace();
        let mut session =
            outbox_core::trace::Session::create(&Location::memory(), trace.consumer.clone())
                .unwrap();
        let first = trace.steps.iter().find_map(|s| {
            session.step(s);
            session
                .check_invariant()
                .unwrap()
                .violations
                .into_iter()
                .next()
        });
        if let Some(first) = first {
            assert_eq!(o.problem.as_ref(), Some(&first), "{p:?}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn a_plan_is_a_replayable_trace() {
    let plan = plans(&[Ordering::Strict], false).unwrap().remove(0);
    let text = plan.trace().to_json_pretty().unwrap();
    let doc = outbox_core::trace::replay_text(&text).unwrap();
    assert!(doc.invariant.holds);
    assert!(doc.steps.iter().any(|s| s.result == Outcome::Crashed));
}

#[test]
fn a_reused_runner_gives_what_fresh_databases_give() {
    // The runner empties one pair of databases between runs; nothing may leak from one run to the next.
    let plans = plans(&[Ordering::Strict, Ordering::DedupeOnly], false).unwrap();
    let mut runner = explorer::Runner::default();
    for plan in &plans {
        assert_eq!(runner.run(plan), explorer::run(plan), "{plan:?}");
    }
}

#[test]
fn the_planner_learns_one_consumer_and_order_per_slice() {
    // The page builds the plans a slice at a time: one clean run per (consumer, order), never all at once.
    let orderings = [Ordering::Strict, Ordering::DedupeOnly];
    let mut planner = explorer::Planner::new(&orderings, false);
    let mut slices = 1;
    while !planner.step_once().unwrap() {
        slices += 1;
    }
    assert_eq!(slices, orderings.len() * explorer::orders(false).len());
    let first_dedupe = planner
        .plans
        .iter()
        .position(|p| p.ordering == Ordering::DedupeOnly)
        .unwrap();
    assert!(planner.plans[..first_dedupe]
        .iter()
        .all(|p| p.ordering == Ordering::Strict));
    assert!(planner.plans[first_dedupe..]
        .iter()
        .all(|p| p.ordering == Ordering::DedupeOnly));
    assert_eq!(
        planner.step_once(),
        Ok(true),
        "a finished planner stays finished"
    );
    assert_eq!(planner.plans.len(), plans(&orderings, false).unwrap().len());
}

/// The reader's rule in the explorer: the strict rule passes every run strict passes, at the same boundaries;
/// the queue that follows arrival order fails where arrival is out of order.
#[test]
fn the_strict_rule_passes_like_strict_and_the_arrival_queue_fails() {
    use outbox_core::rule::{self, Rule, RuleEffect};
    let strict = plans(&[Ordering::Strict], false).unwrap();
    for (sql, passes) in [(rule::STRICT, true), (rule::ARRIVAL_ORDER, false)] {
        let rule = Rule::new(sql, RuleEffect::Inside).unwrap();
        let mut planner = explorer::Planner::new(&[Ordering::Rule], false).with_rule(Some(rule));
        while !planner.step_once().unwrap() {}
        let ruled = planner.plans;
        let failed = ruled.iter().filter(|p| !explorer::run(p).ok).count();
        if passes {
            assert_eq!(ruled.len(), strict.len(), "the same boundaries fire");
            assert_eq!(failed, 0);
        } else {
            assert!(failed > 0, "{sql}");
        }
    }
}

/// A run whose exit never happens proves nothing about recovery: an apply boundary on a producer's step is
/// reported as never fired, not passed.
#[test]
fn a_boundary_that_never_fires_fails_the_run() {
    let mut plan = plans(&[Ordering::Strict], false).unwrap().remove(0);
    plan.crash_step = 0; // the first advance
    plan.boundary = Boundary::ApplyAfterCommit;
    let outcome = explorer::run(&plan);
    assert!(!outcome.ok);
    assert_eq!(
        outcome.problem.as_deref(),
        Some("apply.after_commit never fired")
    );
}
