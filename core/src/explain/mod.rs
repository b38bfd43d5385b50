//! Why a history broke, in words: the first step after which the invariant (or a checker property) fails, and a
//! paragraph, in English or Chinese, naming the steps that matter and what a correct implementation would have
//! done there. Every sentence is derived from a replay — the steps, their reports, and the committed tables
//! after each step, compared with those before it — never canned per experiment.

use crate::checker::Property;
use crate::lang::{gloss, Lang};
use crate::protocol::system::ConsumerTables;
use crate::protocol::Location;
use crate::protocol::{invariant, next_kind, Outcome, Snapshot};
use crate::trace::{Session, Step, StepReport, Trace};
use std::collections::BTreeSet;

/// The English or the Chinese sentence, both formatted from the names in scope.
macro_rules! say {
    ($lang:expr, $en:literal, $zh:literal) => {
        match $lang {
            Lang::En => format!($en),
            Lang::Zh => format!($zh),
        }
    };
}

mod consumer;
mod progress;
mod rule;

use crate::protocol::invariant::lost;
use consumer::consumer_text;
use progress::{loss, stalled};

/// Why a history broke, for a reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Index (0-based) of the first step after which the property fails, if a step is to blame.
    pub step: Option<usize>,
    /// 0-based indexes of the steps the text names, in order.
    pub steps: Vec<usize>,
    pub text: String,
}

/// Why the player's badge turned red on this trace's history — the consumer's invariant, else `no_loss` —
/// `Ok(None)` when both hold after every step.
pub fn explain(trace: &Trace, lang: Lang) -> Result<Option<Explanation>, String> {
    let x = match explain_plain(trace, lang)? {
        Some(x) => Some(x),
        None => {
            let r = replay(trace, |s| lost(s).is_some())?;
            r.at.and_then(|at| loss(&r, trace, at, lang))
        }
    };
    Ok(x.map(|x| rule::with_rule(trace, x, None, lang)))
}

fn explain_plain(trace: &Trace, lang: Lang) -> Result<Option<Explanation>, String> {
    let r = replay(trace, |s| !invariant::check(s).holds)?;
    Ok(r.at.map(|at| consumer_text(&r, trace, at, lang)))
}

/// The first thing wrong with the consumer's tables after step `at`, in words (for a rule consumer, with what
/// the rule answered there and what the strict rule would have).
pub fn explain_property(
    trace: &Trace,
    property: Property,
    message: &str,
    lang: Lang,
) -> Result<Option<Explanation>, String> {
    let rule_message = (property == Property::RuleAnswers).then_some(message);
    Ok(explain_checked(trace, property, message, lang)?
        .map(|x| rule::with_rule(trace, x, rule_message, lang)))
}

fn explain_checked(
    trace: &Trace,
    property: Property,
    message: &str,
    lang: Lang,
) -> Result<Option<Explanation>, String> {
    let r = match property {
        // What the rule returned is the checker's message, said at the last step below.
        Property::RuleAnswers => replay(trace, |_| false)?,
        Property::ConsumerInvariant => match explain_plain(trace, lang)? {
            Some(x) => return Ok(Some(x)),
            None => replay(trace, |_| false)?,
        },
        Property::NoLoss => {
            let r = replay(trace, |s| lost(s).is_some())?;
            if let Some(x) = r.at.and_then(|at| loss(&r, trace, at, lang)) {
                return Ok(Some(x));
            }
            r
        }
        Property::Completion => {
            let r = replay(trace, |_| false)?;
            if let Some(x) = stalled(&r, trace, lang) {
                return Ok(Some(x));
            }
            r
        }
    };
    // The replay does not show what the checker saw: say what it reported, at the last step.
    let Some(last) = trace.steps.len().checked_sub(1) else {
        return Ok(None);
    };
    let text = reported(&r, trace, last, property.name(), message, lang);
    Ok(Some(done(Some(last), vec![last], text)))
}

/// A replay up to the first step after which `broken` holds of the committed tables.
struct Replay {
    reports: Vec<StepReport>,
    /// The committed tables after step `at`; after the last step run when nothing broke.
    after: Snapshot,
    at: Option<usize>,
    /// For each effect row, in written order, the step that wrote it (the effect log only grows).
    writers: Vec<usize>,
    /// For each inbox row, the step that stored it.
    arrived: Vec<(String, usize)>,
}

impl Replay {
    /// Step `i` in a few words: `relay A3`, `apply A`, `receive A1`, `process_all`.
    fn what(&self, trace: &Trace, i: usize) -> String {
        let step = &trace.steps[i];
        let op = step.op();
        match step {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => format!("{op} {}", w.event_id),
            Step::Apply { flow, .. } => format!("apply {flow}"),
            Step::Relay { .. } => match &self.reports[i].relayed {
                Some(id) => format!("relay {id}"),
                None => "relay".into(),
            },
            Step::Receive { event, .. } => match event.get("event_id").and_then(|v| v.as_str()) {
                Some(id) => format!("receive {id}"),
                None => "receive".into(),
            },
            _ => op.name().into(),
        }
    }
}

/// Replays `trace` on fresh databases, up to the first step after which `broken` holds of the tables.
fn replay(trace: &Trace, broken: fn(&Snapshot) -> bool) -> Result<Replay, String> {
    let mut session = Session::create(&Location::memory(), trace.consumer.clone())?;
    let mut prev = session.snapshot()?;
    let mut r = Replay {
        reports: Vec::new(),
        after: session.snapshot()?,
        at: None,
        writers: Vec::new(),
        arrived: Vec::new(),
    };
    for (i, step) in trace.steps.iter().enumerate() {
        r.reports.push(session.step(step));
        let now = session.snapshot()?;
        r.writers.resize(now.consumer.effect.len(), i);
        for row in &now.consumer.inbox {
            let old = &prev.consumer.inbox;
            if old
                .binary_search_by(|o| o.event_id.cmp(&row.event_id))
                .is_err()
            {
                r.arrived.push((row.event_id.clone(), i));
            }
        }
        if broken(&now) {
            r.at = Some(i);
            r.after = now;
            return Ok(r);
        }
        prev = now;
    }
    r.after = prev;
    Ok(r)
}

/// What breaks the invariant in the consumer's tables, checked in the order a reader follows it.
/// The violation as the checker (or the invariant) worded it, when the replay cannot say more.
fn reported(r: &Replay, trace: &Trace, at: usize, p: &str, message: &str, lang: Lang) -> String {
    let (n, what) = (at + 1, r.what(trace, at));
    say!(
        lang,
        "After step {n} ({what}) {p} no longer holds: {message}.",
        "第 {n} 步（{what}）之后，{p} 不再成立：{message}。"
    )
}

fn done(step: Option<usize>, mut steps: Vec<usize>, text: String) -> Explanation {
    steps.sort_unstable();
    steps.dedup();
    Explanation { step, steps, text }
}

/// A flow's `last_seq` and state (`0`, `new` without a projection row).
fn projection<'a>(c: &'a ConsumerTables, flow: &str) -> (i64, &'a str) {
    c.projection
        .iter()
        .find(|p| p.flow_id == flow)
        .map_or((0, "new"), |p| (p.last_seq, p.state.as_str()))
}

/// The id of the event at `seq` of `flow`, as the inbox or the outbox knows it; else `seq N`.
fn id_at(s: &Snapshot, flow: &str, seq: i64) -> String {
    let inbox = s
        .consumer
        .inbox
        .iter()
        .map(|r| (&r.flow_id, r.seq, &r.event_id));
    let outbox = s
        .producer
        .outbox
        .iter()
        .map(|r| (&r.flow_id, r.seq, &r.event_id));
    match inbox
        .chain(outbox)
        .find(|(f, s, _)| *f == flow && *s == seq)
    {
        Some((_, _, id)) => id.clone(),
        None => format!("seq {seq}"),
    }
}

/// `A1`, `A1 and A2`, `A1, A2 and A3`; `A1、A2 和 A3`.
fn list(lang: Lang, items: &[String]) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(match (lang, i + 1 == items.len()) {
                (Lang::En, true) => " and ",
                (Lang::En, false) => ", ",
                (Lang::Zh, true) => " 和 ",
                (Lang::Zh, false) => "、",
            });
        }
        out.push_str(item);
    }
    out
}

/// What separates two sentences: a space in English, nothing in Chinese.
fn space(lang: Lang) -> &'static str {
    match lang {
        Lang::En => " ",
        Lang::Zh => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The effect table's unique event id refuses a second effect, so no trace shows one: the tables are edited
    /// here as a consumer without that constraint would have left them, A1 applied again by step 4.
    #[test]
    fn an_event_with_two_effects_names_both_steps() {
        let trace = crate::trace::parse(
            r#"{"format":"outbox-playground-trace/1","steps":[
            {"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":1,"payload":{"amount":3}},
            {"op":"relay"},{"op":"apply","flow":"A"},{"op":"apply","flow":"A"}]}"#,
        )
        .unwrap();
        let mut r = replay(&trace, |_| false).unwrap();
        let again = r.after.consumer.effect[0].clone();
        r.after.consumer.effect.push(again);
        r.writers.push(3);
        let en = consumer_text(&r, &trace, 3, Lang::En);
        assert_eq!((en.step, en.steps.as_slice()), (Some(3), &[2, 3][..]));
        assert!(
            en.text.starts_with("A1 took effect twice: step 3 (apply A) wrote its first effect, and step 4 (apply A) applied it again.")
                && en.text.contains("dedupes by event id"),
            "{}",
            en.text
        );
        let zh = consumer_text(&r, &trace, 3, Lang::Zh);
        assert_eq!(zh.steps, en.steps);
        assert!(
            zh.text.contains("第 3 步（apply A）")
                && zh.text.contains("第 4 步（apply A）又应用了它一次"),
            "{}",
            zh.text
        );
    }
}
