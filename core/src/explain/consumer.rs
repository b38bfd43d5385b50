//! The consumer's faults: which invariant clause broke first, and the paragraph that says why.

use super::*;

pub(super) fn consumer_text(r: &Replay, trace: &Trace, at: usize, lang: Lang) -> Explanation {
    let c = &r.after.consumer;
    let mut steps = vec![at];
    let text = match fault(c) {
        Some(Fault::Twice(j)) => {
            let (ev, b) = (&c.effect[j].event_id, r.writers[j]);
            let first = c.effect.iter().position(|e| e.event_id == *ev);
            let a = r.writers[first.unwrap_or(j)];
            steps.push(a);
            twice(r, trace, ev, a, b, lang)
        }
        Some(Fault::Order(j, place, prev)) => order(r, trace, j, place, prev, lang),
        Some(Fault::Unmarked(j, row)) => unmarked(r, trace, j, row, lang),
        Some(Fault::Projection(flow)) => projection_text(r, trace, at, flow, lang),
        None => {
            let message = invariant::check(&r.after).violations.join("; ");
            reported(r, trace, at, "consumer_invariant", &message, lang)
        }
    };
    done(Some(at), steps, text)
}

/// The first clause of the consumer's invariant the tables break, in the order a reader follows it.
enum Fault<'a> {
    /// Effect row `j` repeats an event that already has an effect.
    Twice(usize),
    /// Effect row `j` is its flow's effect number `place`, but not seq `place`, or not the legal successor of
    /// the state before it.
    Order(usize, i64, &'a str),
    /// Effect row `j`'s inbox row is in this state (`None`: the inbox lacks it), not `applied`.
    Unmarked(usize, Option<&'a str>),
    /// The flow's projection disagrees with its effects.
    Projection(&'a str),
}

fn fault(c: &ConsumerTables) -> Option<Fault<'_>> {
    for (j, e) in c.effect.iter().enumerate() {
        if c.effect[..j].iter().any(|d| d.event_id == e.event_id) {
            return Some(Fault::Twice(j));
        }
    }
    // Inserted, not collected (see invariant.rs): the page keeps one B-tree of `&str`.
    let mut flows = BTreeSet::new();
    for e in &c.effect {
        flows.insert(e.flow_id.as_str());
    }
    for p in &c.projection {
        flows.insert(p.flow_id.as_str());
    }
    for flow in flows {
        let (mut place, mut state) = (0, "new");
        for (j, e) in c.effect.iter().enumerate() {
            if e.flow_id != flow {
                continue;
            }
            place += 1;
            if e.seq != place || next_kind(state) != Some(e.kind.as_str()) {
                return Some(Fault::Order(j, place, state));
            }
            match c.inbox.iter().find(|r| r.event_id == e.event_id) {
                Some(r) if r.state == "applied" => {}
                other => return Some(Fault::Unmarked(j, other.map(|r| r.state.as_str()))),
            }
            state = &e.kind;
        }
        if projection(c, flow) != (place, state) {
            return Some(Fault::Projection(flow));
        }
    }
    // An `applied` row without its effect: no history reaches it (every consumer writes the effect first or in
    // the same transaction); the invariant's own words say it.
    None
}

/// An effect out of sequence (applied seq N while last_seq was M), or an illegal transition.
fn order(r: &Replay, trace: &Trace, j: usize, place: i64, prev: &str, lang: Lang) -> String {
    let e = &r.after.consumer.effect[j];
    let w = r.writers[j];
    let (n, what, ev, f, seq) = (w + 1, r.what(trace, w), &e.event_id, &e.flow_id, e.seq);
    let (k, state, m) = (gloss(lang, &e.kind), gloss(lang, prev), place - 1);
    if seq == place {
        return say!(
            lang,
            "Step {n} ({what}) applied {ev} ({k}) as seq {seq} of flow {f}, which was {state}: {k} does not follow {state} (new → reserved → confirmed → released). The strict consumer checks the transition before it applies: it marks {ev} blocked (invalid_transition), and the flow waits.",
            "第 {n} 步（{what}）把 {ev} 作为流程 {f} 的 seq {seq} 应用了，即 {k}；而流程 {f} 当时的状态是 {state}，不能直接变为 {k}：合法的顺序只有 new → reserved → confirmed → released。严格消费端在应用之前先检查状态迁移：它会把 {ev} 标为 blocked（invalid_transition），流程停下等待。"
        );
    }
    let next = id_at(&r.after, f, m + 1);
    let mut missing = Vec::new();
    for s in m + 1..seq {
        missing.push(id_at(&r.after, f, s));
    }
    let list = list(lang, &missing);
    // What the strict consumer would find at last_seq + 1 decides its answer.
    let inbox = &r.after.consumer.inbox;
    let waiting = inbox.iter().find(|i| i.flow_id == *f && i.seq == m + 1);
    let (gone, end) = match (missing.is_empty(), waiting.map(|i| i.state.as_str())) {
        (true, _) => (
            say!(
                lang,
                "seq {seq} was already behind it",
                "seq {seq} 早已过去"
            ),
            say!(
                lang,
                "it never takes {ev} here.",
                "在这里它根本不会取 {ev}。"
            ),
        ),
        (false, state) => (
            say!(lang, "{list} had not been applied", "{list} 还没有被应用"),
            match state {
                Some("pending") => say!(
                    lang,
                    "here it applies {next} first.",
                    "在这里它会先应用 {next}。"
                ),
                Some("blocked") => say!(
                    lang,
                    "here it answers blocked, as {next} is, and waits.",
                    "在这里它会因为 {next} 被阻塞而回答 blocked 并等待。"
                ),
                _ => say!(
                    lang,
                    "here it answers gap and waits.",
                    "在这里它会回答 gap 并等待。"
                ),
            },
        ),
    };
    // The dedupe-only control applies on receive: the step that broke it delivered the event.
    if matches!(trace.steps[w], Step::Relay { .. } | Step::Receive { .. }) {
        say!(
            lang,
            "Step {n} ({what}) applied {ev} ({k}, seq {seq}) on arrival, while flow {f} was at last_seq {m} ({state}): {gone}. The strict consumer stores an arriving event as pending and applies only last_seq + 1 ({next}): {end}",
            "第 {n} 步（{what}）在收件时就应用了 seq {seq} 的 {ev}，即 {k}；而流程 {f} 当时还在 last_seq {m}，状态 {state}：{gone}。严格消费端把到达的事件先存为 pending，只应用 last_seq + 1（{next}）：{end}"
        )
    } else {
        say!(
            lang,
            "Step {n} ({what}) applied {ev} ({k}, seq {seq}) while flow {f} was at last_seq {m} ({state}): {gone}. The strict consumer applies only last_seq + 1 ({next}): {end}",
            "第 {n} 步（{what}）应用了 seq {seq} 的 {ev}，即 {k}；而流程 {f} 当时还在 last_seq {m}，状态 {state}：{gone}。严格消费端只应用 last_seq + 1（{next}）：{end}"
        )
    }
}

/// The same event applied twice: both steps, and the dedupe that a correct consumer does. (The effect table's
/// unique event id refuses a second effect today; the invariant still checks for one, and so does this.)
fn twice(r: &Replay, trace: &Trace, ev: &str, a: usize, b: usize, lang: Lang) -> String {
    let (na, nb, wa, wb) = (a + 1, b + 1, r.what(trace, a), r.what(trace, b));
    let crash = match r.reports[a].boundary {
        Some(x) => say!(lang, " and then crashed at {x}", "，随后进程在 {x} 退出"),
        None => String::new(),
    };
    say!(
        lang,
        "{ev} took effect twice: step {na} ({wa}) wrote its first effect{crash}, and step {nb} ({wb}) applied it again. A correct consumer's inbox dedupes by event id and marks the row applied in the same transaction as the effect, so a second attempt finds {ev} applied and does nothing.",
        "{ev} 生效了两次：第 {na} 步（{wa}）写下了它的第一条 effect{crash}，第 {nb} 步（{wb}）又应用了它一次。正确的消费端由 inbox 按事件 ID 查重，并在写 effect 的同一个事务里把这一行标为 applied，所以第二次尝试会发现 {ev} 已是 applied，什么也不做。"
    )
}

/// An effect whose inbox row is not `applied` (the effect outside the transaction, and a crash).
fn unmarked(r: &Replay, trace: &Trace, j: usize, row: Option<&str>, lang: Lang) -> String {
    let e = &r.after.consumer.effect[j];
    let w = r.writers[j];
    let (n, what, ev, f, k) = (
        w + 1,
        r.what(trace, w),
        &e.event_id,
        &e.flow_id,
        gloss(lang, &e.kind),
    );
    let (m, ps) = projection(&r.after.consumer, f);
    let ps = gloss(lang, ps);
    let row_text = match row {
        Some(s) => say!(
            lang,
            "its inbox row is still {s}",
            "它的 inbox 行却仍是 {s}"
        ),
        None => say!(lang, "the inbox does not hold it", "inbox 里却没有它"),
    };
    let text = match (r.reports[w].result, r.reports[w].boundary) {
        (Outcome::Crashed, Some(b)) => say!(
            lang,
            "Step {n} ({what}) crashed at {b}: the effect of {ev} ({k}) survived the exit, so it was written outside the apply transaction, while the projection change and the applied mark rolled back. Now {ev} has an effect but {row_text}, and flow {f} is still at last_seq {m} ({ps}).",
            "第 {n} 步（{what}）在 {b} 退出：{ev} 的 effect 已经记下 {k}，并且在退出后仍然存在，可见它是在应用事务之外写下的，而 projection 的修改和 applied 标记都回滚了。于是 {ev} 已经有了 effect，{row_text}，流程 {f} 也还停在 last_seq {m}，状态 {ps}。"
        ),
        _ => say!(
            lang,
            "Step {n} ({what}) wrote an effect for {ev} ({k}), but {row_text}.",
            "第 {n} 步（{what}）为 {ev} 写下了 effect，记下的是 {k}；{row_text}。"
        ),
    };
    text + space(lang)
        + &say!(
            lang,
            "A correct consumer commits the projection, the effect and the applied mark in one transaction, so an exit leaves all three or none.",
            "正确的消费端把 projection、effect 和 applied 标记放在同一个事务里提交，进程退出时三者要么都在，要么都不在。"
        )
}

/// A projection that disagrees with the effects: moved past a blocked event, or out of step with the log.
fn projection_text(r: &Replay, trace: &Trace, at: usize, f: &str, lang: Lang) -> String {
    let (n, what, c) = (at + 1, r.what(trace, at), &r.after.consumer);
    let (m1, ps) = projection(c, f);
    let ps = gloss(lang, ps);
    let last = c.effect.iter().rfind(|e| e.flow_id == f);
    // A blocked row the projection has passed. (Every seq up to the flow's effect count is an applied row: the
    // checks before this one hold, and the inbox keeps one row a seq.)
    let skipped = c
        .inbox
        .iter()
        .find(|row| row.flow_id == f && row.seq <= m1 && row.state == "blocked");
    if let Some(row) = skipped {
        let (ev, reason) = (&row.event_id, row.reason.as_deref().unwrap_or("blocked"));
        // From just below the event: a `process_all` may have applied earlier events in the same step.
        let m0 = row.seq - 1;
        return say!(
            lang,
            "Step {n} ({what}) marked {ev} blocked ({reason}), yet in the same step moved flow {f}'s last_seq from {m0} to {m1}, still {ps}: the projection now says {ev} was applied, no effect backs it, and {ev} will never be applied. A correct consumer leaves {ev} blocked at last_seq + 1 and the flow waits until it can be applied; it never moves past a blocked event.",
            "第 {n} 步（{what}）把 {ev} 标为 blocked（{reason}），却在同一步里把流程 {f} 的 last_seq 从 {m0} 挪到了 {m1}，状态仍是 {ps}：projection 声称 {ev} 已经应用，却没有任何 effect 支撑，而 {ev} 再也不会被应用。正确的消费端让 {ev} 以 blocked 留在 last_seq + 1，流程停下等待，直到它能被应用；它从不越过被阻塞的事件。"
        );
    }
    let has = match last {
        Some(e) => {
            let (ev, s, k) = (&e.event_id, e.seq, gloss(lang, &e.kind));
            say!(
                lang,
                "its last effect is {ev} ({k}, seq {s})",
                "它最后一条 effect 是 seq {s} 的 {ev}，即 {k}"
            )
        }
        None => say!(lang, "it has no effect", "它没有任何 effect"),
    };
    say!(
        lang,
        "After step {n} ({what}) flow {f}'s projection says last_seq {m1} ({ps}), but {has}. A correct consumer changes the projection only in the transaction that writes the effect, so the two always agree.",
        "第 {n} 步（{what}）之后，流程 {f} 的 projection 写着 last_seq {m1}，状态 {ps}，但{has}。正确的消费端只在写 effect 的同一个事务里修改 projection，所以两者总是一致。"
    )
}
