//! The producer's and the relay's faults (`no_loss`) and a flow left stalled (`completion`).

use super::*;
use crate::protocol::invariant::{lost, Loss};
use crate::protocol::Synchronous;

pub(super) fn loss(r: &Replay, trace: &Trace, at: usize, lang: Lang) -> Option<Explanation> {
    let (n, what) = (at + 1, r.what(trace, at));
    let text = match lost(&r.after)? {
        Loss::Unsent(row, rows) => {
            let (f, seq, state) = (&row.flow_id, row.seq, gloss(lang, &row.state));
            let fix = say!(
                lang,
                "A correct producer commits the state change and its outbox row in one transaction, so an exit leaves both or neither.",
                "正确的生产端把状态变化和它的 outbox 行放在同一个事务里提交，进程退出时两者要么都在，要么都不在。"
            );
            let step = &trace.steps[at];
            // Only the unsafe dual write's exit commits a state alone: a write is the step that lost its event.
            match step.write() {
                Some(w) => {
                    let ev = &w.event_id;
                    say!(
                        lang,
                        "Step {n} ({what}) committed flow {f}'s change to {state} (seq {seq}) on its own, and the process exited before it wrote {ev} to the outbox: the state moved, but no event will ever tell the consumer. {fix}",
                        "第 {n} 步（{what}）单独提交了流程 {f} 的状态变化，变为 seq {seq} 的 {state}，随后进程在写 outbox 之前退出，{ev} 没有写进 outbox：状态已经变了，却再也不会有事件通知消费端。{fix}"
                    )
                }
                _ => say!(
                    lang,
                    "After step {n} ({what}) flow {f} has committed seq {seq} ({state}), but the outbox holds {rows} of its events: a transition without its event. {fix}",
                    "第 {n} 步（{what}）之后，流程 {f} 已提交到 seq {seq}，状态 {state}，outbox 里却只有它的 {rows} 条事件：状态迁移没有对应的事件。{fix}"
                ),
            }
        }
        // A relay marks a row accepted only after its receive committed: an accepted row the inbox lacks first
        // appears at a power cut of the consumer's disk.
        Loss::Dropped(ev) => return Some(power_loss(r, trace, at, ev, lang)),
    };
    Some(done(Some(at), vec![at], text))
}

/// `completion` in the final state: a flow that stops short of its last produced seq with its next event not
/// blocked.
pub(super) fn stalled(r: &Replay, trace: &Trace, lang: Lang) -> Option<Explanation> {
    let last = trace.steps.len().checked_sub(1)?;
    let c = &r.after.consumer;
    let (row, m, ps, total) = r.after.producer.flow.iter().find_map(|p| {
        let (m, ps) = projection(c, &p.flow_id);
        let next = c
            .inbox
            .iter()
            .find(|i| i.flow_id == p.flow_id && i.seq == m + 1);
        let stuck = m < p.seq && next.is_none_or(|i| i.state != "blocked");
        stuck.then_some((p, m, ps, p.seq))
    })?;
    let (f, nl, ps) = (&row.flow_id, last + 1, gloss(lang, ps));
    let ev = id_at(&r.after, f, m + 1);
    let mut steps = vec![last];
    let head = say!(
        lang,
        "After step {nl}, the last, nothing is left to do, yet flow {f} stops at last_seq {m} ({ps}), short of seq {total}:",
        "第 {nl} 步（最后一步）之后已经无事可做，流程 {f} 却停在 last_seq {m}，状态 {ps}，还没到 seq {total}："
    );
    let text = match c.inbox.iter().find(|i| i.event_id == ev) {
        Some(i) => {
            let state = &i.state;
            let a = r.arrived.iter().find(|(id, _)| *id == ev).map_or(0, |x| x.1);
            let na = a + 1;
            steps.push(a);
            // The last attempt to apply the flow, and what it answered.
            let tried = (a..=last).rev().find(|&k| match &trace.steps[k] {
                Step::Apply { flow, .. } => flow == f,
                step => matches!(step, Step::ProcessAll { .. }),
            });
            let tried = match tried {
                Some(k) => {
                    steps.push(k);
                    let (nk, what, rep) = (k + 1, r.what(trace, k), &r.reports[k]);
                    let answer = match rep.flows.as_ref().and_then(|fl| fl.get(f.as_str())) {
                        Some(stop) => stop.to_string(),
                        None => rep.summary(),
                    };
                    say!(
                        lang,
                        "step {nk} ({what}) answered {answer} and left it there.",
                        "第 {nk} 步（{what}）对它回答了 {answer}，没有动它。"
                    )
                }
                None => say!(lang, "no step tried to apply it.", "之后没有任何一步尝试应用它。"),
            };
            say!(
                lang,
                "{head} its next event {ev} has been in the inbox since step {na} and is still {state}, and {tried} A correct consumer applies last_seq + 1 whenever the inbox holds it, or marks it blocked with a reason; a flow stops only when it is complete or blocked.",
                "{head}它的下一条事件 {ev} 从第 {na} 步起就在 inbox 里，至今仍是 {state}；{tried}正确的消费端只要 inbox 里有 last_seq + 1 就应用它，或者带着原因把它标为 blocked；流程只会在完成或 blocked 时停下。"
            )
        }
        None => say!(
            lang,
            "{head} its next event {ev} is not in the inbox, so nothing will ever apply it. A correct relay sends every produced event, and sends it again until the inbox holds it.",
            "{head}它的下一条事件 {ev} 不在 inbox 里，所以永远不会被应用。正确的 relay 会发送每一条已生产的事件，并且一直重发，直到 inbox 收下它。"
        ),
    };
    Some(done(Some(last), steps, text))
}

/// An acknowledged event a power cut took from the consumer's disk: its receive had committed, but under
/// `synchronous` NORMAL or OFF the commit had not been synced when the power went.
#[cold]
#[inline(never)]
fn power_loss(r: &Replay, trace: &Trace, at: usize, ev: &str, lang: Lang) -> Explanation {
    let n = at + 1;
    let mode = trace.steps[..at]
        .iter()
        .rev()
        .find_map(|s| match s {
            Step::SetSynchronous { mode } => Some(*mode),
            _ => None,
        })
        .unwrap_or_default();
    let sync = mode.upper();
    let got = r.arrived.iter().find(|(id, _)| id == ev).map(|(_, i)| *i);
    let when = match (got, lang) {
        (Some(i), Lang::En) => format!(" at step {} ({})", i + 1, r.what(trace, i)),
        (Some(i), Lang::Zh) => format!("（第 {} 步，{}）", i + 1, r.what(trace, i)),
        (None, _) => String::new(),
    };
    let why = match mode {
        Synchronous::Off => say!(
            lang,
            "under synchronous={sync} SQLite never syncs, so nothing it committed was sure to be on disk",
            "在 synchronous={sync} 下 SQLite 从不同步，它提交的任何东西都不一定在磁盘上"
        ),
        _ => say!(
            lang,
            "under synchronous={sync} SQLite syncs its WAL only at a checkpoint, so a commit since the last checkpoint lived only in the operating system's memory",
            "在 synchronous={sync} 下 SQLite 只在检查点同步 WAL，上一个检查点之后的提交只在操作系统的内存里"
        ),
    };
    let text = say!(
        lang,
        "The consumer committed {ev} to its inbox{when} and answered accepted, and the producer marked it accepted = 1. Step {n} (power cut) then took away what the consumer's disk had not synced: {why}. The inbox no longer holds {ev}, the outbox says it was delivered, and no relay will send it again: acknowledged and lost. With synchronous=FULL (the protocol's setting) a commit is on disk before receive answers, and a power cut loses nothing that was acknowledged.",
        "消费端把 {ev} 提交进 inbox{when}并回答 accepted，生产端随即把它标为 accepted = 1。第 {n} 步（断电）拿走了消费端磁盘上尚未同步的内容：{why}。inbox 里不再有 {ev}，outbox 却说它已送达，relay 也不会再发：已确认却丢失。用 synchronous=FULL（协议的设置），提交在 receive 回答之前就已落盘，断电不会丢掉任何已确认的东西。"
    );
    let mut steps = vec![at];
    steps.extend(got);
    done(Some(at), steps, text)
}
