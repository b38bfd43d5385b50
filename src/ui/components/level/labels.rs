//! What a bet and a move are called, where the reader sees them: the moves' buttons, the bet, the hint and the
//! verdict say them in the same words.

use super::{Ctx, Game};
use crate::ui::i18n::{t, tf};
use outbox_core::checker::{describe, Action, Move};
use outbox_core::diagram::gloss;
use outbox_core::levels::Bet;
use outbox_core::trace::Step;

/// The reader's bet, in words.
pub(super) fn bet_words(ctx: &Ctx, b: Bet) -> String {
    match b {
        Bet::Hold => ctx.t("bet.made.hold"),
        Bet::Breaks => ctx.t("bet.made.breaks"),
        Bet::Break(p) => ctx.tf("bet.made.break", &[&ctx.property(p)]),
        Bet::Skip => ctx.t("bet.made.skip"),
    }
}

/// A move's test hook and its words, as its button says it (the hint says the next move in the same words).
pub(super) fn move_label(ctx: &Ctx, g: &Game, m: Move) -> (String, String) {
    let lang = ctx.model.lang;
    let config = &g.level.config;
    let step = m.step(config);
    let (testid, label) = match (m.action, &step) {
        (Action::Advance(_), Step::Advance(w)) => {
            let flow = w.event_id.trim_end_matches(|c: char| c.is_ascii_digit());
            (
                format!("advance-{flow}"),
                format!(
                    "{} ({} {})",
                    tf(lang, "btn.advance", &[flow]),
                    w.event_id,
                    gloss(lang, &w.kind)
                ),
            )
        }
        (Action::UnsafeDualWrite(_), Step::UnsafeDualWrite(w)) => {
            let flow = w.event_id.trim_end_matches(|c: char| c.is_ascii_digit());
            (
                format!("unsafe-{flow}"),
                ctx.tf("move.unsafe", &[flow, &w.event_id]),
            )
        }
        (Action::Relay(ev), _) => (
            format!("relay-{}", ev.id()),
            ctx.tf("move.relay", &[ev.id()]),
        ),
        (Action::Resend(ev), _) => (
            format!("resend-{}", ev.id()),
            ctx.tf("move.resend", &[ev.id()]),
        ),
        (Action::Apply(_), Step::Apply { flow, .. }) => {
            (format!("apply-{flow}"), tf(lang, "btn.apply", &[flow]))
        }
        (Action::Checkpoint, _) => ("checkpoint".into(), t(lang, "btn.checkpoint")),
        (Action::PowerCut(mask), _) => {
            let who = match mask {
                1 => "producer",
                2 => "consumer",
                _ => "both",
            };
            (
                format!("power-cut-{who}"),
                ctx.t(&format!("move.power.{who}")),
            )
        }
        _ => (String::new(), describe(&step)),
    };
    let label = match m.crash {
        Some(b) => ctx.tf(
            "move.exit",
            &[&label, &format!("{}. {}", b.number(), b.name())],
        ),
        None => label,
    };
    (testid, label)
}
