//! The space-time diagram of a session, as SVG text: a lane per party (the producer's state and outbox, the
//! relay, the consumer's inbox, its apply with projection and effect log), time running down, one row per step.
//! A relay is an arrow from the outbox lane to the inbox lane styled by its receipt; an apply shows its result
//! and the effects it committed; a crash is a red cut naming the boundary and what rolled back; a restart, a
//! line; the first step after which the invariant fails is marked.
//!
//! One renderer for the page (a window of rows, styled by the page's CSS), the exported file (every row, its
//! styles inline, no script) and the golden file the tests hold it to. Marks carry `data-kind` (`relay`,
//! `apply`, `crash`, `restart`, `violation`) and every row `data-step` (the step's index).

use crate::json::clip;
pub use crate::lang::gloss;
use crate::lang::Lang;
use crate::playground::{Entry, Playground};
use crate::protocol::{ApplyResult, FlowStop, Outcome};
use crate::trace::Step;
use std::fmt::Write as _;
use style::file_style;
use text::emit;

mod cuts;
mod style;
mod text;

use cuts::{describe_power, ends_processes, power_cut, restart, rolled_back};

pub const WIDTH: usize = 460;
pub const HEADER: usize = 44;
pub const ROW: usize = 42;
/// The lanes' x positions: producer, relay, inbox, apply.
const LANES: [usize; 4] = [64, 172, 280, 352];

/// What to draw.
pub struct Diagram<'a> {
    pub entries: &'a [Entry],
    /// Steps at or after this index are the future of a time travel: drawn dimmed.
    pub pos: usize,
    pub broke_at: Option<usize>,
    /// The process restarted after the last step's crash (the page's Restart); between steps a crash is always
    /// followed by a restart.
    pub restarted: bool,
    pub lang: Lang,
}

impl<'a> Diagram<'a> {
    /// The playground's session as it stands: every step, the position, the break, a restart after the last.
    pub fn of(pg: &'a Playground, lang: Lang) -> Diagram<'a> {
        Diagram {
            entries: &pg.entries,
            pos: pg.pos,
            broke_at: pg.broke_at,
            restarted: pg.down.is_none(),
            lang,
        }
    }
}

/// How to draw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// For the page: rows `from..to` only (the rest is empty space of the right height), classes styled by the
    /// page's CSS, rows focusable.
    Page { from: usize, to: usize },
    /// A standalone file: every row, styles inline, no script, light or dark.
    File { dark: bool },
}

/// The height of a diagram of `rows` rows.
pub fn height(rows: usize) -> usize {
    HEADER + rows * ROW + 8
}

/// The row a vertical offset falls in.
pub fn row_at(y: usize) -> usize {
    y.saturating_sub(HEADER) / ROW
}

fn w(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// The flow a step is about, if any (a `receive` names it inside its event).
fn step_flow(step: &Step) -> Option<&str> {
    match step {
        Step::Receive { event, .. } => event.get("flow_id").and_then(|v| v.as_str()),
        _ => step.flow(),
    }
}

/// Colour classes for flows, in the order they first appear. Borrowed from the entries: a window far down a
/// long session looks at every step above it without copying a string.
struct Flows<'a>(Vec<&'a str>);

impl<'a> Flows<'a> {
    fn class(&mut self, flow: &'a str) -> &'static str {
        let i = match self.0.iter().position(|f| *f == flow) {
            Some(i) => i,
            None => {
                self.0.push(flow);
                self.0.len() - 1
            }
        };
        ["f0", "f1", "f2", "f3"][i % 4]
    }
}

/// The event id a relay or receive step carried.
fn carried(entry: &Entry) -> Option<String> {
    match &entry.step {
        Step::Receive { event, .. } => Some(
            event
                .get("event_id")
                .and_then(|v| v.as_str())
                .map_or_else(|| "?".to_owned(), |s| clip(s, 12)),
        ),
        _ => entry.report.relayed.clone(),
    }
}

/// The step as a short command line (the event log, the diagram's rows): `relay A3`, `apply A`, `advance A2 confirmed`.
pub fn describe(step: &Step) -> String {
    match step {
        Step::Advance(w) => format!("advance {} {} (schema {})", w.event_id, w.kind, w.schema),
        Step::UnsafeDualWrite(w) => format!("unsafe_dual_write {}", w.event_id),
        Step::Relay { event_id, .. } => {
            format!("relay {}", event_id.as_deref().unwrap_or("(next)"))
        }
        Step::Receive { event, .. } => {
            format!("receive {}", crate::json::short_json(event))
        }
        Step::Apply { flow, .. } => format!("apply {flow}"),
        Step::ProcessAll { .. } => "process_all".into(),
        Step::SetSupportV2 { on } => format!("set_support_v2 {on}"),
        Step::InjectFault { target } => format!("inject_fault {}", target.name()),
        Step::ClearFault { target } => format!("clear_fault {}", target.name()),
        Step::SetSynchronous { .. } | Step::Checkpoint | Step::PowerCut { .. } => {
            describe_power(step)
        }
    }
}

/// The apply lane's two lines for a step that ran the consumer's apply, if it did.
fn apply_lines(lang: Lang, entry: &Entry) -> Option<(String, String)> {
    let r = &entry.report;
    let applied = if r.effects.is_empty() {
        None
    } else {
        let ids: Vec<&str> = r.effects.iter().map(|e| e.event_id.as_str()).collect();
        // The new last_seq: one number for one flow, `A:2 B:1` when the drain applied several.
        let one = r.effects.iter().all(|e| e.flow_id == r.effects[0].flow_id);
        let mut last = String::new();
        for e in &r.effects {
            if one {
                last = e.seq.to_string();
            } else {
                if !last.is_empty() {
                    last.push(' ');
                }
                let _ = write!(last, "{}:{}", e.flow_id, e.seq);
            }
        }
        Some((
            format!("{} {}", w(lang, "applied", "applied"), ids.join(", ")),
            format!("last_seq {last}"),
        ))
    };
    let stop = |s: FlowStop| match s {
        FlowStop::Idle => "idle".to_owned(),
        FlowStop::Gap => "gap".to_owned(),
        FlowStop::Blocked(reason) => format!("blocked: {reason}"),
        FlowStop::Limit => "limit".to_owned(),
        FlowStop::RuleError => "rule_error".to_owned(),
    };
    match (&entry.step, r.result) {
        (Step::Apply { flow, .. }, Outcome::Apply(a)) => Some(match a {
            ApplyResult::Applied => applied.unwrap_or_else(|| ("applied".into(), flow.clone())),
            ApplyResult::Gap => (format!("{flow}: gap"), w(lang, "waits", "等待").into()),
            ApplyResult::Idle => (format!("{flow}: idle"), String::new()),
            ApplyResult::Blocked(reason) => (format!("{flow}: blocked"), reason.to_string()),
            ApplyResult::RuleError => (format!("{flow}: rule_error"), String::new()),
        }),
        // An SQL error (a rejecting trigger), a crash: the apply's answer all the same.
        (Step::Apply { flow, .. }, _) => {
            Some((format!("{flow}: {}", r.result.head()), String::new()))
        }
        (Step::ProcessAll { .. }, _) => {
            let stops = r
                .flows
                .iter()
                .flatten()
                .filter(|(_, s)| **s != FlowStop::Idle)
                .map(|(f, s)| format!("{f}: {}", stop(*s)))
                .collect::<Vec<_>>()
                .join(", ");
            let result = r.result.head();
            Some(match applied {
                Some((first, second)) if stops.is_empty() => (first, second),
                None if !matches!(r.result, Outcome::ProcessAll { .. }) => {
                    ("process_all".into(), result.into())
                }
                Some((first, _)) => (first, stops),
                None if stops.is_empty() => ("process_all".into(), "idle".into()),
                None => ("process_all".into(), stops),
            })
        }
        // The dedupe-only control applies on receive.
        _ => applied,
    }
}

/// The lanes' names alone, on the panel's colour: the page keeps them in view above the rows as they scroll
/// (the diagram's own, under them, are the same words in the same places).
pub fn lanes(lang: Lang) -> String {
    let mut s = String::with_capacity(640);
    emit(
        &mut s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="lanes" aria-hidden="true" viewBox="0 0 # #" width="#" height="#"><rect class="bg" width="#" height="#"/>"##,
        &[WIDTH, HEADER, WIDTH, HEADER, WIDTH, HEADER],
        &[],
    );
    for (&x, (name, sub)) in LANES.iter().zip(lane_names(lang)) {
        emit(
            &mut s,
            r##"<text class="head" x="#" y="16" text-anchor="middle">$</text><text class="sub" x="#" y="30" text-anchor="middle">$</text>"##,
            &[x, x],
            &[name, sub],
        );
    }
    s.push_str("</svg>");
    s
}

/// Each lane's name and what it holds.
fn lane_names(lang: Lang) -> [(&'static str, &'static str); 4] {
    [
        (
            w(lang, "producer", "生产端"),
            w(lang, "state + outbox", "状态 + outbox"),
        ),
        (w(lang, "relay", "relay"), ""),
        (w(lang, "inbox", "inbox"), ""),
        (
            w(lang, "apply", "应用"),
            w(lang, "projection + effect", "projection + 执行记录"),
        ),
    ]
}

/// The SVG of `d`, drawn as `style` says.
pub fn svg(d: &Diagram<'_>, style: Style) -> String {
    let lang = d.lang;
    let n = d.entries.len();
    let (from, to, file) = match style {
        Style::Page { from, to } => (from.min(n), to.min(n), None),
        Style::File { dark } => (0, n, Some(dark)),
    };
    let h = height(n);
    let mut s = String::with_capacity(256 + (to - from) * 600);
    emit(
        &mut s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="diagram" data-testid="diagram" viewBox="0 0 # #" width="#" height="#" role="$" aria-label="$" lang="$">"##,
        &[WIDTH, h, WIDTH, h],
        &[
            // In the page its rows are buttons, which an image may not hold.
            if file.is_some() { "img" } else { "group" },
            w(lang, "Space-time diagram of the session", "会话的时空图"),
            lang.tag(),
        ],
    );
    if let Some(dark) = file {
        s.push_str(&file_style(dark));
    }
    // Lanes and their names.
    for (&x, (name, sub)) in LANES.iter().zip(lane_names(lang)) {
        emit(
            &mut s,
            r##"<line class="lane" x1="#" y1="#" x2="#" y2="#"/><text class="head" x="#" y="16" text-anchor="middle">$</text><text class="sub" x="#" y="30" text-anchor="middle">$</text>"##,
            &[x, HEADER - 6, x, h - 4, x, x],
            &[name, sub],
        );
    }
    let mut flows = Flows(Vec::new());
    // Colours follow first appearance over the whole session, so a window draws a flow as the file does.
    for e in &d.entries[..from] {
        if let Some(f) = step_flow(&e.step) {
            flows.class(f);
        }
    }
    for i in from..to {
        row(&mut s, d, i, &mut flows, file.is_none());
    }
    s.push_str("</svg>");
    s
}

fn row<'a>(s: &mut String, d: &Diagram<'a>, i: usize, flows: &mut Flows<'a>, page: bool) {
    let lang = d.lang;
    let entries: &'a [Entry] = d.entries;
    let entry = &entries[i];
    let r = &entry.report;
    let top = HEADER + i * ROW;
    let y = top + ROW / 2;
    let class = if i + 1 == d.pos {
        "row now"
    } else if i >= d.pos {
        "row later"
    } else {
        "row"
    };
    let what = describe(&entry.step);
    let result = r.summary();
    emit(s, r##"<g class="$" data-step="#""##, &[i], &[class]);
    if page {
        // Named by its <title>, which holds the step and its result (an aria-label would have to repeat every
        // visible label of the row, WCAG 2.5.3).
        s.push_str(r#" tabindex="0" role="button""#);
    }
    emit(
        s,
        r##"><title>#. $ → $</title><rect class="band" x="0" y="#" width="#" height="#"/><text class="num" x="6" y="#">#</text>"##,
        &[i + 1, top, WIDTH, ROW, y + 4, i + 1],
        &[&what, &result],
    );
    // A restart before this step: the previous one crashed, or the power came back.
    if i > 0 && ends_processes(&d.entries[i - 1]) {
        restart(s, i, top + 2, lang);
    }
    let fc = step_flow(&entry.step).map_or("f0", |f| flows.class(f));
    let [xp, xr, xi, xa] = LANES;
    match &entry.step {
        Step::Advance(x) | Step::UnsafeDualWrite(x) => {
            let ok = r.result == Outcome::COMMITTED;
            emit(
                s,
                r##"<circle class="dot $$" cx="#" cy="#" r="5"/><text x="#" y="#">$ $</text>"##,
                &[xp, y, xp + 9, y + 4],
                &[
                    fc,
                    if ok { "" } else { " off" },
                    &clip(&x.event_id, 8),
                    &clip(&gloss(lang, &x.kind), 16),
                ],
            );
            if !ok && r.result != Outcome::Crashed {
                emit(
                    s,
                    r##"<text class="why" x="#" y="#">$</text>"##,
                    &[xp + 9, y + 15],
                    &[&result],
                );
            }
        }
        Step::Relay { .. } | Step::Receive { .. } => match (carried(entry), r.result) {
            (Some(id), Outcome::Received(receipt)) => {
                let x1 = if matches!(entry.step, Step::Receive { .. }) {
                    xr
                } else {
                    xp
                };
                let receipt = receipt.name();
                emit(
                    s,
                    r##"<g data-kind="relay" data-result="$"><line class="msg $ $" x1="#" y1="#" x2="#" y2="#"/><path class="head $ $" d="M# # l-8 -6 v12 z"/><text class="lbl" x="#" y="#" text-anchor="middle">$ $</text></g>"##,
                    &[x1, y - 8, xi - 7, y + 8, xi, y + 8, xr, y - 9],
                    &[receipt, fc, receipt, fc, receipt, &id, receipt],
                );
            }
            (id, result) => {
                // A crash says its own words on the cut below.
                let word = if result == Outcome::Crashed {
                    String::new()
                } else {
                    clip(&r.summary(), 22)
                };
                emit(
                    s,
                    r##"<text class="why" x="#" y="#" text-anchor="middle">$ $</text>"##,
                    &[xr, y + 4],
                    &[&id.unwrap_or_default(), &word],
                );
            }
        },
        Step::SetSupportV2 { .. }
        | Step::InjectFault { .. }
        | Step::ClearFault { .. }
        | Step::SetSynchronous { .. }
        | Step::Checkpoint => {
            emit(
                s,
                r##"<text class="why" x="#" y="#">$</text>"##,
                &[xi + 6, y + 4],
                &[&clip(&what, 34)],
            );
        }
        Step::PowerCut { databases } => power_cut(s, lang, databases, r.lost_rows, top),
        Step::Apply { .. } | Step::ProcessAll { .. } => {}
    }
    if let Some((first, second)) = apply_lines(lang, entry) {
        let applied = !r.effects.is_empty();
        let head = r.result.head();
        emit(
            s,
            r##"<g data-kind="apply" data-result="$">"##,
            &[],
            &[head],
        );
        if applied {
            emit(
                s,
                r##"<line class="msg $" x1="#" y1="#" x2="#" y2="#"/>"##,
                &[xi, top + 13, xa - 6, top + 13],
                &[fc],
            );
        }
        // A crash says its own words on the cut (they would stand over these).
        let (first, second) = if r.result == Outcome::Crashed {
            (String::new(), String::new())
        } else {
            (clip(&first, 16), clip(&second, 16))
        };
        emit(
            s,
            r##"<rect class="box $ $" x="#" y="#" width="10" height="10"/><text x="#" y="#">$</text><text class="why" x="#" y="#">$</text></g>"##,
            &[xa - 5, top + 8, xa + 9, top + 17, xa + 9, top + 29],
            &[if applied { fc } else { "" }, head, &first, &second],
        );
    }
    if r.result == Outcome::Crashed {
        let (first, second, boundary) = match r.boundary {
            Some(b) => (
                format!("✗ {} {}. {b}", w(lang, "crash at", "退出于"), b.number()),
                rolled_back(lang, b),
                b.name(),
            ),
            None => (
                w(lang, "✗ crash: no outbox row", "✗ 退出：没有 outbox 行").to_owned(),
                w(
                    lang,
                    "the state change was committed alone",
                    "状态更新已单独提交",
                ),
                "",
            ),
        };
        let bottom = top + ROW - 3;
        emit(
            s,
            r##"<g data-kind="crash" data-boundary="$"><line class="cut" x1="30" y1="#" x2="#" y2="#"/><text class="bad" x="#" y="#" text-anchor="end">$</text><text class="why" x="#" y="#" text-anchor="end">$</text></g>"##,
            &[
                bottom,
                WIDTH - 4,
                bottom,
                WIDTH - 4,
                top + 14,
                WIDTH - 4,
                top + 27,
            ],
            &[boundary, &first, second],
        );
        // The reader restarted after the last step: the restart precedes the step to come.
        if i + 1 == d.entries.len() && d.restarted {
            restart(s, i + 1, top + ROW, lang);
        }
    }
    // The power came back after the last step: the processes restart by themselves.
    if i + 1 == d.entries.len() && matches!(entry.step, Step::PowerCut { .. }) {
        restart(s, i + 1, top + ROW, lang);
    }
    if d.broke_at == Some(i) {
        emit(
            s,
            r##"<g data-kind="violation"><circle class="violation" cx="#" cy="#" r="11"/><text class="bad" x="#" y="#" text-anchor="end">$</text></g>"##,
            &[xa, top + 13, WIDTH - 4, top + 40],
            &[w(lang, "✗ invariant broken", "✗ 不变量被破坏")],
        );
    }
    s.push_str("</g>");
}
