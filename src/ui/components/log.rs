//! What happened and why: the status bar (latest result, invariant badge, crash banner), the event log with a
//! one-line reason per step, and the SQL each database ran in the latest action.

use crate::ui::i18n::{message, t, tf, Lang};
use crate::ui::state::Act;
use crate::ui::state::Notice;
use crate::ui::Ctx;
use outbox_core::diagram::gloss;
use outbox_core::playground::Command;
use outbox_core::protocol::{ApplyResult, Ordering, Outcome, Role};
use outbox_core::trace::{Op, StepReport};
use yew::prelude::*;

/// The result word as the page shows it: `crashed at apply.after_effect`, `blocked: unsupported_schema` (the
/// words TRACE.md names stay; what is not one of them is in the reader's language).
pub fn result_label(lang: Lang, report: &StepReport) -> String {
    match (report.result, report.boundary) {
        (Outcome::Crashed, Some(b)) if lang == Lang::Zh => format!("crashed（进程在 {b} 退出）"),
        (Outcome::Crashed, Some(b)) => format!("crashed at {b}"),
        (result, _) => match result.blocked() {
            Some(reason) => format!("blocked: {reason}"),
            None => result.head().to_owned(),
        },
    }
}

/// The one-line reason for a result, in the words of the consumer that gave it (dedupe-only applies on arrival,
/// so its `accepted` is not strict's pending row, and its `idle` has nothing left to apply).
pub fn reason(lang: Lang, ordering: Ordering, report: &StepReport) -> String {
    let own = match (ordering, report.result) {
        (Ordering::DedupeOnly, Outcome::ACCEPTED) => Some("result.accepted.dedupe_only"),
        (Ordering::DedupeOnly, Outcome::Apply(ApplyResult::Idle)) => {
            Some("result.idle.dedupe_only")
        }
        _ => None,
    };
    let mut text = match report.result {
        _ if own.is_some() => t(lang, own.unwrap_or_default()),
        Outcome::Apply(ApplyResult::Blocked(r)) => tf(lang, "result.blocked", &[r.name()]),
        Outcome::SqlError => tf(
            lang,
            "result.sql_error",
            &[report.message.as_deref().unwrap_or("")],
        ),
        Outcome::Apply(ApplyResult::RuleError) => tf(
            lang,
            "result.rule_error",
            &[&message(lang, report.message.as_deref().unwrap_or(""))],
        ),
        Outcome::Ok if matches!(report.op, Op::PowerCut | Op::Checkpoint) => {
            power_reason(lang, report)
        }
        result => t(lang, &format!("result.{}", result.head())),
    };
    if report.result == Outcome::Rejected {
        if let Some(m) = &report.message {
            text = format!("{text}: {}", message(lang, m));
        }
    }
    if let Some(flows) = &report.flows {
        let parts: Vec<String> = flows.iter().map(|(f, r)| format!("{f}: {r}")).collect();
        if !parts.is_empty() {
            text = format!("{text} ({})", parts.join(", "));
        }
    }
    if report.crash.is_some() {
        text = format!("{text}; {}", t(lang, "result.not_reached"));
    }
    text
}

pub use outbox_core::diagram::describe;

/// Histories that break later than this are not explained in the page (each step of the replay reads both
/// databases back); `experiments replay --explain` explains any.
const EXPLAIN_STEPS: usize = 2000;

/// Histories longer than this are not compared with the consumer switched from in the page.
const COMPARE_STEPS: usize = 200;

#[derive(Properties, PartialEq)]
pub struct StatusProps {
    /// Whether the view shows the session (the player, its diagram, its log): then the latest step, the invariant
    /// and the crash banner; without it (an embed of the experiments or the checker alone) only what the page
    /// has to say, the notices and a replay's progress.
    pub session: bool,
}

#[component]
pub fn StatusBar(props: &StatusProps) -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let last = model.last();
    let holds = model.invariant.holds;
    // Why it broke: the history up to the step that broke it, replayed once per break and language (not at
    // every step after it), and only when that history is short enough to replay within a frame or two.
    let why = {
        let model = model.clone();
        let at = model
            .broke_at
            .filter(|&i| props.session && i < EXPLAIN_STEPS && !holds);
        let key = (
            at,
            at.and_then(|i| model.entries.get(i))
                .map(|e| describe(&e.step)),
            model.ordering(),
            lang,
        );
        use_memo(key, move |_| {
            let at = at?;
            let mut trace = model.trace();
            trace.steps.truncate(at + 1);
            outbox_core::explain::explain(&trace, lang)
                .ok()
                .flatten()
                .map(|e| e.text)
        })
    };
    let dismiss = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::DismissNotice))
    };
    let notice = match &model.notice {
        Some(Notice::Restarted(_)) => Some(t(lang, "notice.restarted")),
        Some(Notice::CleanRestart) => Some(t(lang, "notice.clean_restart")),
        Some(Notice::PowerCut(mode, lost)) => Some(power_notice(lang, *mode, *lost)),
        Some(Notice::Error(e)) => Some(tf(lang, "notice.error", &[&message(lang, e)])),
        Some(Notice::StartedOver(n)) => Some(tf(lang, "notice.started_over", &[&n.to_string()])),
        Some(Notice::Switched { steps, dropped }) => {
            Some(switched_notice(lang, &model, *steps, *dropped))
        }
        None => None,
    };
    // The same history under the consumer switched from, replayed once per position and language, and only
    // while it is short enough to replay within a frame or two.
    let compared = {
        let model = model.clone();
        let key = (model.previous.clone(), model.pos, model.entries.len(), lang);
        use_memo(key, move |_| {
            // As many steps as the page replays at once (a longer replay is sliced; this one is not).
            if model.pos == 0 || model.pos > COMPARE_STEPS {
                return None;
            }
            let (setup, flows) = model.compare()?.ok()?;
            Some(compare_line(lang, &setup, &flows))
        })
    };
    let backwards = model.backwards();
    if !props.session && notice.is_none() && model.loading.is_none() {
        return html! {};
    }
    html! {
        <section class="status">
            if props.session {
                <p class="latest" aria-live="polite">
                    if let Some(entry) = last {
                        <code translate="no">{ describe(&entry.step) }</code>{ " → " }
                        <strong translate="no" class={classes!("result", entry.report.result.head())}
                            data-testid="step-result">{ result_label(lang, &entry.report) }</strong>
                        <span class="why">{ format!(" — {}", reason(lang, model.ordering(), &entry.report)) }</span>
                    } else {
                        <strong data-testid="step-result"></strong>
                        if !model.locked { <span class="why">{ t(lang, "log.empty") }</span> }
                    }
                </p>
                <div class={classes!("invariant", if holds { "ok" } else { "bad" })} data-testid="invariant"
                    data-holds={holds.to_string()} role="status" aria-live="polite">
                    if holds && model.pos == 0 {
                        { t(lang, "invariant.nothing_yet") }
                    } else if holds {
                        { "✓ " }{ t(lang, "invariant.holds") }
                    } else {
                        <strong>{ "✗ " }{ t(lang, "invariant.broken") }</strong>
                        <ul>{ for model.invariant.violations.iter().map(|v| html! { <li>{ message(lang, v) }</li> }) }</ul>
                        { for backwards.iter().map(|b| html! { <>
                            <p class="backwards" data-testid="backwards">{ tf(lang, "backwards", &[
                                &b.consumer.flow_id, &gloss(lang, &b.producer_state), &gloss(lang, &b.consumer.state),
                                &b.consumer.last_seq.to_string(), &b.consumer.held.to_string()]) }</p>
                            // The evidence beside the sentence, in view with it: the effect log as written.
                            <p class="backwards" data-testid="backwards-effects">{ tf(lang, "backwards.effects", &[
                                &b.consumer.flow_id,
                                &b.effects.iter().map(|(id, kind)| format!("{id} {}", gloss(lang, kind))).collect::<Vec<_>>().join(" → ")]) }</p>
                        </> }) }
                        if let Some(text) = &*why {
                            <p class="explain" data-testid="explain">{ text }</p>
                        }
                    }
                </div>
                if let Some(line) = &*compared {
                    <p class="compare" data-testid="compare">{ line }</p>
                }
                if let Some(boundary) = model.down {
                    <div class="down" role="alert" data-testid="down">
                        <strong>{ match boundary {
                            Some(b) => tf(lang, "down.title", &[&format!("{}. {b}", b.number())]),
                            None => t(lang, "down.unsafe"),
                        } }</strong>
                        <p>{ t(lang, "down.body") }</p>
                    </div>
                }
            }
            if let Some((done, total)) = model.loading {
                <p class="loading" role="status" aria-live="polite" data-testid="loading">
                    { tf(lang, "loading", &[&done.to_string(), &total.to_string()]) }
                    <progress max={total.to_string()} value={done.to_string()} />
                </p>
            }
            if let Some(text) = notice {
                <p class="notice" role="status">
                    <span data-testid="notice">{ text }</span>
                    <button class="icon dismiss" data-testid="notice-dismiss" aria-label={t(lang, "notice.dismiss")}
                        title={t(lang, "notice.dismiss")} onclick={dismiss}>{ "✕" }</button>
                </p>
            }
        </section>
    }
}

#[component]
pub fn EventLog() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    // The newest first, and at most the last 200: a 10,000-step trace must not build 10,000 rows per render.
    let total = model.entries.len();
    html! {
        <section class="log" aria-labelledby="log-h">
            <h2 id="log-h">{ t(lang, "log.title") }</h2>
            if total == 0 && !model.locked {
                <p class="empty">{ t(lang, "log.empty") }</p>
            }
            <ol class="entries" reversed=true data-testid="event-log">
                // Keyed by position: a step adds one entry at the top, and Yew inserts one <li> instead of
                // rewriting every row below it.
                { for model.entries.iter().enumerate().rev().take(200).map(|(i, e)| html! {
                    <li key={i} value={(i + 1).to_string()} class={classes!("entry", e.report.result.head())}>
                        <code translate="no">{ describe(&e.step) }</code>{ " → " }
                        <strong translate="no">{ result_label(lang, &e.report) }</strong>
                        <span class="why">{ format!(" — {}", reason(lang, model.ordering(), &e.report)) }</span>
                    </li>
                }) }
            </ol>
        </section>
    }
}

#[component]
pub fn SqlPanel() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let rolled_back = rolled_back_lines(&model.sql);
    html! {
        <section class="sql" aria-labelledby="sql-h">
            <h2 id="sql-h">{ t(lang, "sql.title") }</h2>
            if model.sql.is_empty() {
                <p class="empty">{ t(lang, "sql.empty") }</p>
            }
            <ol class="statements" data-testid="sql">
                { for model.sql.iter().enumerate().map(|(i, line)| {
                    let gone = rolled_back.contains(&i);
                    html! {
                        <li class={classes!(line.db.name(), gone.then_some("rolled-back"), line.sql.starts_with("--").then_some("comment"))}>
                            <span class="db" translate="no">{ line.db.name() }</span>
                            <code translate="no">{ sql_line(lang, &line.sql) }</code>
                            if gone { <span class="tag">{ t(lang, "sql.rolled_back") }</span> }
                        </li>
                    }
                }) }
            </ol>
        </section>
    }
}

/// Indices of statements that ran inside a transaction the process never committed: from its
/// `BEGIN IMMEDIATE` to the exit, in the database that was writing.
pub fn rolled_back_lines(lines: &[outbox_core::protocol::SqlLine]) -> Vec<usize> {
    let mut open: [Option<usize>; 2] = [None, None];
    let mut out = Vec::new();
    let slot = |db: Role| usize::from(db == Role::Consumer);
    for (i, line) in lines.iter().enumerate() {
        let s = slot(line.db);
        match line.sql.as_str() {
            "BEGIN IMMEDIATE" => open[s] = Some(i),
            "COMMIT" | "ROLLBACK" => open[s] = None,
            sql if sql.starts_with("-- process exits") => {
                for start in open.iter_mut() {
                    if let Some(from) = start.take() {
                        out.extend(from..i);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// What a power cut left, and why: under FULL nothing committed is lost; otherwise what the disks had not synced.
#[cold]
#[inline(never)]
fn power_reason(lang: Lang, report: &StepReport) -> String {
    match (report.op, report.lost_rows) {
        (Op::Checkpoint, _) => t(lang, "result.checkpoint"),
        (_, 0) => t(lang, "result.power_kept"),
        (_, n) => tf(lang, "result.power_lost", &[&n.to_string()]),
    }
}

#[cold]
#[inline(never)]
fn power_notice(lang: Lang, mode: outbox_core::protocol::Synchronous, lost: usize) -> String {
    use outbox_core::protocol::Synchronous;
    match (mode, lost) {
        (Synchronous::Full, _) => t(lang, "notice.power_full"),
        (_, 0) => tf(lang, "notice.power_kept", &[mode.name()]),
        (_, n) => tf(lang, "notice.power_lost", &[&n.to_string(), mode.name()]),
    }
}

/// What a consumer switch did: the same steps replayed, and the future dropped, if any.
#[cold]
#[inline(never)]
fn switched_notice(lang: Lang, model: &Ctx, steps: usize, dropped: usize) -> String {
    let consumer = t(lang, &format!("mode.{}", model.ordering().name()));
    let mut text = tf(lang, "notice.switched", &[&steps.to_string(), &consumer]);
    if dropped > 0 {
        text = format!(
            "{text} {}",
            tf(lang, "notice.switched_dropped", &[&dropped.to_string()])
        );
    }
    text
}

/// "with strict: A released · last_seq=3 · 3 effects": each flow's outcome under the consumer switched from.
#[cold]
#[inline(never)]
fn compare_line(
    lang: Lang,
    setup: &outbox_core::trace::ConsumerSetup,
    flows: &[outbox_core::playground::FlowOutcome],
) -> String {
    let consumer = t(lang, &format!("mode.short.{}", setup.ordering.name()));
    let parts: Vec<String> = flows
        .iter()
        .map(|f| {
            tf(
                lang,
                "compare.flow",
                &[
                    &f.flow_id,
                    &gloss(lang, &f.state),
                    &f.last_seq.to_string(),
                    &f.effects.to_string(),
                ],
            )
        })
        .collect();
    let outcome = if parts.is_empty() {
        t(lang, "compare.nothing")
    } else {
        parts.join("; ")
    };
    tf(lang, "compare", &[&consumer, &outcome])
}

/// A statement as it ran; a note between statements (`-- process exits at …`) in the reader's language. The
/// notes a crash and a restart write are matched here, so that the player's first load does without the
/// general translation of refusals, which the rule's notes take.
pub fn sql_line(lang: Lang, sql: &str) -> String {
    let Some(note) = sql.strip_prefix("-- ").filter(|_| lang == Lang::Zh) else {
        return sql.to_owned();
    };
    let zh = match note {
        "restart: the open transaction rolled back" => "重启：未提交的事务已回滚".to_owned(),
        "restart: SQLite rolled back the open transaction; reopened from what was committed" => {
            "重启：SQLite 回滚了未提交的事务；按已提交的内容重新打开".to_owned()
        }
        "process exits before the outbox write (os._exit in the article)" => {
            "进程在写 outbox 之前退出（文中的 os._exit）".to_owned()
        }
        "the effect is an outside call: step out of the transaction to make it" => {
            "执行记录是一次外部调用：走出事务去做它".to_owned()
        }
        _ => match note.strip_prefix("process exits at ") {
            Some(boundary) => format!("进程在 {boundary} 退出"),
            None => message(lang, note),
        },
    };
    format!("-- {zh}")
}
