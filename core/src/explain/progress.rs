//! The producer's and the relay's faults (`no_loss`) and a flow left stalled (`completion`).

use super::*;

/// What `no_loss` finds lost: a committed transition without its outbox row, or an acknowledged event the
/// inbox lacks.
pub(super) enum Loss<'a> {
    Unsent(&'a FlowRow, usize),
    Dropped(&'a str),
}

pub(super) fn lost(s: &Snapshot) -> Option<Loss<'_>> {
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
            match step.write() {
                Some(w) if r.reports[at].result == Outcome::Crashed => {
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
        Loss::Dropped(ev) => say!(
            lang,
            "Step {n} ({what}) left {ev} marked accepted in the outbox, but the inbox does not hold it: the message is acknowledged and lost. A correct relay marks a row accepted only after receive has committed it (accepted or duplicate).",
            "第 {n} 步（{what}）之后，outbox 里的 {ev} 被标为 accepted，inbox 里却没有它：消息已被确认，却丢了。正确的 relay 只在收件已经提交（accepted 或 duplicate）之后才把这一行标为 accepted。"
        ),
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
