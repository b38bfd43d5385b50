//! The diagram's cuts and restarts: what a crash rolled back, a power cut, the restart after either.

use super::{emit, w, Entry, LANES, ROW, WIDTH};
use crate::lang::Lang;
use crate::protocol::{Boundary, Outcome, Role};
use crate::trace::Step;

/// What a crash at `boundary` rolled back (the boundary's transaction was open, or already committed).
pub(super) fn rolled_back(lang: Lang, boundary: Boundary) -> &'static str {
    use Boundary::*;
    match boundary {
        ProducerAfterState => w(lang, "rolled back: the state change", "已回滚：状态更新"),
        ProducerAfterOutbox => w(
            lang,
            "rolled back: state and outbox row",
            "已回滚：状态与 outbox 行",
        ),
        ReceiveAfterInsert => w(lang, "rolled back: the inbox row", "已回滚：inbox 行"),
        RelayAfterMark => w(lang, "rolled back: accepted=1", "已回滚：accepted=1"),
        ApplyAfterProjection | ApplyAfterEffect => w(
            lang,
            "rolled back: projection, effect, applied",
            "已回滚：projection、执行记录与 applied 标记",
        ),
        ReceiveAfterCommit => w(lang, "committed; the ack was lost", "已提交；确认未返回"),
        ProducerAfterCommit | RelayAfterMarkCommit | ApplyAfterCommit => {
            w(lang, "committed; nothing rolled back", "已提交；没有回滚")
        }
    }
}

#[cold]
#[inline(never)]
pub(super) fn describe_power(step: &Step) -> String {
    match step {
        Step::SetSynchronous { mode } => format!("set_synchronous {mode}"),
        Step::PowerCut { databases } => {
            let names: Vec<&str> = databases.iter().map(|d| d.name()).collect();
            format!("power_cut {}", names.join(" "))
        }
        _ => "checkpoint".into(),
    }
}

/// Whether the step ended every process: a crash, or a power cut (the processes restart when it returns).
pub(super) fn ends_processes(e: &Entry) -> bool {
    e.report.result == Outcome::Crashed || matches!(e.step, Step::PowerCut { .. })
}

/// A power cut: a dashed cut across the lanes of the databases that lost power, and what they lost.
#[cold]
#[inline(never)]
pub(super) fn power_cut(s: &mut String, lang: Lang, databases: &[Role], lost: usize, top: usize) {
    let names: Vec<&str> = databases.iter().map(|d| d.name()).collect();
    let (x1, x2) = match (
        databases.contains(&Role::Producer),
        databases.contains(&Role::Consumer),
    ) {
        (true, false) => (30, LANES[1] - 20),
        (false, true) => (LANES[1] + 20, WIDTH - 4),
        _ => (30, WIDTH - 4),
    };
    let lost_text = match (lost, lang) {
        (0, _) => w(
            lang,
            "nothing lost: every commit was synced",
            "没有丢失：每次提交都已同步",
        )
        .to_owned(),
        (1, Lang::En) => "lost 1 unsynced row".to_owned(),
        (n, Lang::En) => format!("lost {n} unsynced rows"),
        (n, Lang::Zh) => format!("丢失 {n} 行未同步的写入"),
    };
    let bottom = top + ROW - 3;
    emit(
        s,
        r##"<g data-kind="power_cut" data-databases="$" data-lost="#"><line class="cut power" x1="#" y1="#" x2="#" y2="#"/><text class="bad" x="#" y="#">$</text><text class="why" x="#" y="#">$</text></g>"##,
        // Its words on the left, where a cut row has nothing else: the right holds a violation's mark.
        &[
            lost,
            x1,
            bottom,
            x2,
            bottom,
            LANES[0] + 10,
            top + 14,
            LANES[0] + 10,
            top + 27,
        ],
        &[
            &names.join(" "),
            w(lang, "⚡ power cut", "⚡ 断电"),
            &lost_text,
        ],
    );
}

pub(super) fn restart(s: &mut String, i: usize, y: usize, lang: Lang) {
    emit(
        s,
        r##"<g data-kind="restart" data-step="#"><line class="restart" x1="4" y1="#" x2="#" y2="#"/><text class="ok rs" x="6" y="#">$</text></g>"##,
        &[i, y, WIDTH - 4, y, y + 10],
        &[w(lang, "↻ restart", "↻ 重启")],
    );
}
