//! What the level answers the reader: the hint, a dead end said unasked, the verdict once a move broke a
//! property, and the proof or answer of *I give up*.

use super::labels::{bet_words, move_label};
use super::{Act, Answer, Ctx, Game};
use crate::ui::hints::Reply;
use outbox_core::checker::describe;
use outbox_core::levels::Bet;
use yew::prelude::*;

/// The hint at the reader's position, as far as it has been revealed.
pub(super) fn hint(ctx: &Ctx, g: &Game) -> Html {
    let Some(h) = g
        .hint
        .as_ref()
        .filter(|h| h.history == g.at.history && h.stage > 0)
    else {
        return html! {};
    };
    if g.dead_end().is_some() {
        // Said already, in the dead end's own words.
        return html! {};
    }
    let lang = ctx.model.lang;
    let (stage, text, next) = match &h.answer {
        Answer::Searching => (0, ctx.t("hint.searching"), None),
        Answer::Withheld => (0, ctx.t("hint.first_move"), None),
        Answer::Failed(e) => (
            0,
            ctx.tf("hint.failed", &[&crate::ui::i18n::message(lang, e)]),
            None,
        ),
        Answer::Found(Reply::Safe { states, .. }) => {
            (1, ctx.tf("hint.safe", &[&states.to_string()]), None)
        }
        Answer::Found(Reply::Break {
            property,
            next,
            moves,
            ..
        }) => {
            let mut text = ctx.tf("hint.1", &[&ctx.property(*property)]);
            if h.stage >= 2 {
                text.push(' ');
                let kind = ctx.t(&format!("kind.{}", next.kind()));
                text.push_str(&ctx.tf("hint.2", &[&moves.to_string(), &kind]));
            }
            let named = describe(&next.step(&g.level.config));
            if h.stage >= 3 {
                text.push(' ');
                text.push_str(&ctx.tf("hint.3", &[&move_label(ctx, g, *next).1]));
            }
            (h.stage, text, (h.stage >= 3).then_some((*next, named)))
        }
    };
    let make = next.as_ref().map(|&(m, _)| ctx.on(move |_| Act::Make(m)));
    html! {
        <div class="hint" aria-live="polite">
            <p data-testid="level-hint-text" data-stage={stage.to_string()}
                data-move={next.as_ref().map(|(_, named)| named.clone())}>{ text }</p>
            if let Some(onclick) = make {
                <button data-testid="level-hint-do" {onclick}>{ ctx.t("hint.do") }</button>
            }
        </div>
    }
}

/// The reader's position can no longer break the level within its bounds: said as soon as the page's look ahead
/// knows, with the two ways back.
pub(super) fn dead_end(ctx: &Ctx, g: &Game) -> Html {
    let Some(states) = g.dead_end() else {
        return html! {};
    };
    let made = g.at.history.len();
    let back = |n: usize| ctx.on(move |_| Act::Back(n));
    html! {
        <div class="level-deadend" role="status" data-testid="level-deadend" data-states={states.to_string()}>
            <p>{ ctx.tf("deadend", &[&states.to_string()]) }</p>
            <div class="buttons">
                <button data-testid="level-deadend-undo" onclick={back(made.saturating_sub(1))}>{ ctx.t("undo") }</button>
                <button data-testid="level-deadend-restart" onclick={back(0)}>{ ctx.t("restart") }</button>
            </div>
        </div>
    }
}

/// The referee's verdict once a move broke a property.
pub(super) fn win(ctx: &Ctx, g: &Game, words: &outbox_core::levels::Words) -> Html {
    let Some(v) = &g.at.broken else {
        return html! {};
    };
    let lang = ctx.model.lang;
    let moves = g.at.history.len();
    // The trace's step, with the level's own setup before the first move: kept for the diagram, not said.
    let step = g.prelude() + moves;
    let explained =
        outbox_core::explain::explain_property(&g.at.trace, v.property, &v.message, lang)
            .ok()
            .flatten();
    let ours = v.property == g.level.property;
    let count = match g.par() {
        Some(par) if par == moves => ctx.tf("win.par", &[&moves.to_string()]),
        Some(par) => ctx.tf("win.longer", &[&moves.to_string(), &par.to_string()]),
        None => String::new(),
    };
    let broke = ctx.property(v.property);
    let quote = match g.bet {
        Some(Bet::Hold) => Some(ctx.t("bet.wrong.hold")),
        Some(b @ Bet::Breaks) => Some(format!("{} {}", bet_words(ctx, b), ctx.t("bet.right"))),
        Some(Bet::Break(p)) if p == v.property => Some(format!(
            "{} {}",
            bet_words(ctx, Bet::Break(p)),
            ctx.t("bet.right")
        )),
        Some(Bet::Break(p)) => Some(ctx.tf("bet.wrong.break", &[&ctx.property(p), &broke])),
        _ => None,
    };
    let next = g
        .number
        .filter(|n| *n < g.list.len())
        .map(|n| ctx.level_href(n + 1));
    html! {
        <div class={classes!("level-win", (!ours).then_some("other"))} role="status" data-testid="level-win"
            data-property={v.property.name()} data-step={step.to_string()} data-moves={moves.to_string()}
            data-par={g.par().map(|p| p.to_string())}>
            <p class="verdict"><strong>{ ctx.tf("win", &[&broke, &moves.to_string()]) }</strong>{ " " }{ count }</p>
            if ours {
                <p>{ &words.win }</p>
            } else {
                <p class="error">{ ctx.tf("win.other", &[&broke]) }</p>
            }
            if let Some(e) = explained {
                <p class="explain" data-testid="level-explain" data-property={v.property.name()}><strong>{ &broke }</strong>{ ": " }{ e.text }</p>
            } else {
                <p class="why" lang="en">{ &v.message }</p>
            }
            if let Some(q) = quote {
                <p data-testid="level-bet-quote">{ q }</p>
            }
            if ours {
                <p class="lesson"><strong>{ ctx.t("lesson") }</strong>{ " " }{ &words.lesson }</p>
            }
            if let Some(href) = next {
                <a class="next" href={href} data-testid="level-next">{ ctx.t("next") }</a>
            }
        </div>
    }
}

/// *I give up*: what the checker found from the start, the proof when nothing breaks it.
pub(super) fn proof(ctx: &Ctx, g: &Game) -> Html {
    if !g.gave_up {
        return html! {};
    }
    let lang = ctx.model.lang;
    let (text, counts, quote) = match &g.start {
        Answer::Searching | Answer::Withheld => (ctx.t("proof.searching"), None, None),
        Answer::Failed(e) => (
            ctx.tf("hint.failed", &[&crate::ui::i18n::message(lang, e)]),
            None,
            None,
        ),
        Answer::Found(Reply::Safe {
            states,
            transitions,
        }) => (
            ctx.tf("proof", &[&states.to_string(), &transitions.to_string()]),
            Some((states.to_string(), transitions.to_string())),
            match g.bet {
                Some(Bet::Hold) => Some(ctx.t("bet.proof.hold")),
                Some(Bet::Break(_) | Bet::Breaks) => Some(ctx.t("bet.proof.break")),
                _ => None,
            },
        ),
        Answer::Found(Reply::Break { moves, .. }) => {
            (ctx.tf("proof.breaks", &[&moves.to_string()]), None, None)
        }
    };
    let proven = counts.is_some();
    let (states, transitions) = counts.unzip();
    html! {
        <div class="level-proof" role="status">
            if proven {
                <p data-testid="level-proof-bounds">{ bounds(ctx, &g.level.config) }</p>
            }
            <p data-testid="level-proof" data-states={states} data-transitions={transitions}>{ text }</p>
            if proven && g.level.unbreakable {
                <p class="why">{ ctx.t("proof.why") }{ " " }
                    <a data-testid="level-proof-link" href={crate::first_screen::ARTICLE_URL} target="_blank" rel="noopener"
                        lang="zh-Hans" hreflang="zh-Hans">{ ctx.tf("proof.link", &[&g.level.section]) }</a></p>
            }
            if let Some(q) = quote {
                <p data-testid="level-bet-quote">{ q }</p>
            }
        </div>
    }
}

/// The level's bounds in words: flows and events, resends, exits, power cuts.
fn bounds(ctx: &Ctx, config: &outbox_core::checker::Config) -> String {
    // "1 resend", "2 resends": a key's `.one` form for one.
    let counted = |key: &str, n: u8| {
        let key = if n == 1 {
            format!("{key}.one")
        } else {
            key.to_owned()
        };
        ctx.tf(&key, &[&n.to_string()])
    };
    let mut parts = vec![ctx.tf(
        "bounds.flows",
        &[
            &counted("bounds.flow", config.flows),
            &counted("bounds.event", config.events),
        ],
    )];
    for (key, n) in [
        ("bounds.resends", config.resends),
        ("bounds.exits", config.crashes),
        ("bounds.power_cuts", config.power_cuts),
    ] {
        if n > 0 {
            parts.push(counted(key, n));
        }
    }
    ctx.tf("bounds", &[&parts.join(ctx.t("bounds.and").as_str())])
}
