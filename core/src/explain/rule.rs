//! For a rule consumer: what the rule answered where the history is blamed, and what the strict rule would have
//! answered on the same `waiting` rows.

use super::*;
use crate::protocol::rule::{self, Act, Rule, RuleEffect, WaitingRow};
use crate::protocol::Location;

/// `(A2, apply)`, `no row`, or what it returned that the engine cannot carry out.
fn answer_words(
    answer: &Result<Option<(usize, Act)>, String>,
    rows: &[WaitingRow],
    lang: Lang,
) -> String {
    match answer {
        Ok(Some((i, act))) => {
            let act = match act {
                Act::Apply => "apply",
                Act::Block => "block",
                Act::Skip => "skip",
            };
            let id = &rows[*i].event_id;
            say!(lang, "({id}, {act})", "（{id}, {act}）")
        }
        Ok(None) if rows.is_empty() => say!(lang, "no row (idle)", "没有行（idle）"),
        Ok(None) => say!(lang, "no row (gap)", "没有行（gap）"),
        Err(_) => say!(
            lang,
            "something the engine cannot carry out (rule_error)",
            "引擎无法执行的回答（rule_error）"
        ),
    }
}

/// The sentence for flow `flow` after the first `upto` steps of `trace`, when its consumer is a rule.
pub(super) fn rule_note(trace: &Trace, upto: usize, flow: &str, lang: Lang) -> Option<String> {
    let mine = trace.consumer.rule.as_ref()?;
    let mut session = Session::create(&Location::memory(), trace.consumer.clone()).ok()?;
    for step in trace.steps.get(..upto)? {
        session.step(step);
    }
    let rows = session.waiting(flow).ok()?;
    let strict = Rule::new(rule::STRICT, RuleEffect::Inside).ok()?;
    let (said, would) = (
        answer_words(&rule::answer(mine, &rows), &rows, lang),
        answer_words(&rule::answer(&strict, &rows), &rows, lang),
    );
    let snapshot = session.snapshot().ok()?;
    let (last, state) = projection(&snapshot.consumer, flow);
    let state = gloss(lang, state);
    Some(say!(
        lang,
        "Your rule answered {said} there, with flow {flow} at last_seq {last} ({state}); the strict rule would have answered {would}.",
        "你的规则在这里回答了{said}，当时流程 {flow} 的 last_seq 是 {last}、状态是 {state}；严格规则会回答{would}。"
    ))
}

/// The explanation with the rule's sentence after it: at the blamed step when it is an `apply`, or at the end
/// of the history for `rule_answers` (the flow named in the checker's message).
pub(super) fn with_rule(
    trace: &Trace,
    mut x: Explanation,
    message: Option<&str>,
    lang: Lang,
) -> Explanation {
    if trace.consumer.rule.is_none() {
        return x;
    }
    let note = match (
        message.and_then(|m| m.strip_prefix("apply ")),
        x.step.map(|i| &trace.steps[i]),
    ) {
        (Some(rest), _) => rest
            .split_once(':')
            .and_then(|(flow, _)| rule_note(trace, trace.steps.len(), flow, lang)),
        (None, Some(Step::Apply { flow, .. })) => {
            x.step.and_then(|i| rule_note(trace, i, flow, lang))
        }
        _ => None,
    };
    if let Some(note) = note {
        x.text.push(' ');
        x.text.push_str(&note);
    }
    x
}
