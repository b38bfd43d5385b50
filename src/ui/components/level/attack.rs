//! The code under attack, beside the moves: each block of statements the level's processes run, the lines the
//! last move ran lit, and where an exit cut them.

use super::{Ctx, Game};
use outbox_core::checker::Action;
use yew::prelude::*;

/// The code under attack, beside the moves: each block of statements the level's processes run, the lines the
/// last move ran lit, and the line after which its process exited marked.
pub(super) fn code(ctx: &Ctx, g: &Game) -> Html {
    use outbox_core::levels::code::{Kind, Ran};
    let model = &ctx.model;
    // The player has loaded the reader's history (it does so after each move): its last step is the last move.
    let shown = g.prelude() + g.at.history.len();
    let last = g.at.history.last().copied();
    let ran = match last {
        Some(m) if model.entries.len() == shown && model.pos == shown => {
            g.code.ran(&m, &model.entries[shown - 1].report.sql)
        }
        _ => Ran::default(),
    };
    let config = &g.level.config;
    // The block the level attacks opens first; the others are a click away.
    let attacked = if config.producer == outbox_core::protocol::WriteMode::UnsafeDualWrite {
        Kind::UnsafeProduce
    } else if config.consumer == outbox_core::protocol::Ordering::Rule {
        Kind::Rule
    } else if g.code.block(Kind::Apply).is_none() || config.power_cuts > 0 {
        Kind::Relay
    } else {
        Kind::Apply
    };
    let exit = match last {
        Some(m) => m
            .crash
            .map(|b| format!("{}. {}", b.number(), b.name()))
            .or_else(|| {
                matches!(m.action, Action::UnsafeDualWrite(_)).then(|| ctx.t("code.exit_unsafe"))
            }),
        None => None,
    };
    html! {
        <section class="level-code" data-testid="level-code" aria-labelledby="level-code-h">
            <h3 id="level-code-h">{ ctx.t("code") }</h3>
            <p class="note">{ ctx.t("code.note") }</p>
            { for g.code.blocks.iter().map(|b| {
                let lit = ran.kind == Some(b.kind);
                html! {
                    <details class="block" data-kind={b.kind.name()} open={lit || (ran.kind.is_none() && b.kind == attacked)}>
                        <summary>{ ctx.t(&format!("code.{}", b.kind.name())) }</summary>
                        <ol>
                        { for b.lines.iter().enumerate().map(|(i, l)| {
                            let r = lit && ran.lines.contains(&i);
                            let cut = lit && ran.cut == Some(i);
                            html! {
                                <li data-testid="level-code-line" data-ran={r.to_string()} data-cut={cut.to_string()}
                                    class={classes!(l.db.name(), r.then_some("ran"), cut.then_some("cut"))}>
                                    <span class="db" translate="no">{ l.db.name() }</span>
                                    <code translate="no">{ &l.sql }</code>
                                    if cut {
                                        <span class="tag">{ ctx.tf("code.cut", &[exit.as_deref().unwrap_or_default()]) }</span>
                                    }
                                </li>
                            }
                        }) }
                        </ol>
                    </details>
                }
            }) }
        </section>
    }
}
