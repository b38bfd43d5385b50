//! The level's panel as the reader sees it: the list, the claim and the bet, the moves, the hint, the verdict,
//! the proof, and the progress's file.

use super::{Act, Answer, Ctx, Game};
use crate::ui::hints::Reply;
use crate::ui::i18n::{t, tf, Lang};
use outbox_core::checker::{describe, Action, Move, Property};
use outbox_core::diagram::gloss;
use outbox_core::levels::{Bet, Progress};
use outbox_core::protocol::Boundary;
use outbox_core::trace::Step;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

pub fn panel(ctx: &Ctx, g: &Game) -> Html {
    let lang = ctx.model.lang;
    let words = if lang == Lang::Zh {
        &g.level.zh
    } else {
        &g.level.en
    };
    let (progress, kept) = super::store::load();
    let heading = match g.number {
        Some(n) => ctx.tf("number", &[&n.to_string(), &g.level.section]),
        None => ctx.tf("challenge_title", &[&g.level.section]),
    };
    html! {
        <>
            { list(ctx, g, &progress) }
            <h2 id="level-h"><span class="level-number">{ heading }</span>{ " " }{ &words.title }</h2>
            <p class="claim" data-testid="level-claim"><strong>{ ctx.t("claim") }{ ": " }</strong>{ &words.claim }</p>
            if let Some(goal) = &words.goal {
                <p class="goal" data-testid="level-goal"><strong>{ ctx.t("goal") }{ ": " }</strong>{ goal }</p>
            }
            { bet(ctx, g, words) }
            { moves(ctx, g) }
            { hint(ctx, g) }
            { win(ctx, g, words) }
            { proof(ctx, g) }
            { super::share::progress_file(ctx, kept, g.said.clone()) }
            if !ctx.embed {
                { super::share::embed_code(ctx, g) }
            }
        </>
    }
}

/// The levels, each with whether it is solved and its best count.
fn list(ctx: &Ctx, g: &Game, progress: &Progress) -> Html {
    let lang = ctx.model.lang;
    html! {
        <nav class="level-list" data-testid="level-list" aria-label={ctx.t("list")}>
            if !ctx.embed {
                <a href={format!("./?lang={}", lang.address())} class="leave" data-testid="level-leave">{ ctx.t("leave") }</a>
            }
            <ol>
            { for g.list.iter().enumerate().map(|(i, (id, title))| {
                let record = progress.levels.get(id).cloned().unwrap_or_default();
                let current = g.number == Some(i + 1);
                let mark = if record.solved { "✓ " } else { "" };
                let best = record.best.map(|b| format!(" · {}", ctx.tf("best", &[&b.to_string()])));
                html! {
                    <li>
                        <a data-testid={format!("level-{id}")} data-solved={record.solved.to_string()}
                            href={ctx.level_href(i + 1)} aria-current={current.then_some("page")}
                            title={title.clone()} lang={(lang == Lang::Zh).then_some("en")}>
                            { format!("{mark}{}", i + 1) }
                            if record.solved { <span class="sr-only">{ format!(" {}", ctx.t("solved")) }</span> }
                            { best.unwrap_or_default() }
                        </a>
                    </li>
                }
            }) }
            </ol>
        </nav>
    }
}

/// The bet, asked before the first move, then quoted.
fn bet(ctx: &Ctx, g: &Game, words: &outbox_core::levels::Words) -> Html {
    let on = |b: Option<Bet>| {
        let id = g.level.id.clone();
        ctx.on(move |_| {
            // A bet placed is kept with the progress; "it breaks" alone asks which property first.
            if let Some(b) = b {
                super::store::update(|p| p.record_bet(&id, b));
            }
            Act::Bet(b)
        })
    };
    match g.bet {
        Some(b) => html! { <p class="bet made" data-testid="level-bet">{ bet_words(ctx, b) }</p> },
        None => html! {
            <div class="bet" role="group" aria-label={ctx.t("bet.ask")}>
                <p>{ ctx.t("bet.ask") }</p>
                <div class="buttons">
                    <button data-testid="level-bet-hold" onclick={on(Some(Bet::Hold))}>{ &words.bet_hold }</button>
                    <button data-testid="level-bet-break" onclick={on(None)} aria-pressed={g.choosing.to_string()}>{ &words.bet_break }</button>
                    <button data-testid="level-bet-skip" onclick={on(Some(Bet::Skip))}>{ ctx.t("bet.skip") }</button>
                </div>
                if g.choosing {
                    <p>{ ctx.t("bet.which") }</p>
                    <div class="buttons">
                        { for [Property::ConsumerInvariant, Property::NoLoss, Property::Completion].into_iter().map(|p| html! {
                            <button data-testid={format!("level-bet-{}", p.name())} onclick={on(Some(Bet::Break(p)))}
                                translate="no">{ p.name() }</button>
                        }) }
                    </div>
                }
            </div>
        },
    }
}

fn bet_words(ctx: &Ctx, b: Bet) -> String {
    match b {
        Bet::Hold => ctx.t("bet.made.hold"),
        Bet::Break(p) => ctx.tf("bet.made.break", &[p.name()]),
        Bet::Skip => ctx.t("bet.made.skip"),
    }
}

/// The moves offered where the reader stands, the count beside the par, and the controls of the game.
fn moves(ctx: &Ctx, g: &Game) -> Html {
    let lang = ctx.model.lang;
    let offered = &g.at.offered;
    let mut exits: Vec<Boundary> = offered.iter().filter_map(|m| m.crash).collect();
    exits.sort_by_key(|b| b.number());
    exits.dedup();
    let armed = g.armed.filter(|b| exits.contains(b));
    let made = g.at.history.len();
    let on_exit = ctx.on(|e: Event| {
        let v = e.target_unchecked_into::<HtmlSelectElement>().value();
        Act::Arm(Boundary::from_name(&v))
    });
    let back = |n: usize| ctx.on(move |_| Act::Back(n));
    let on_hint = ctx.on(|_| Act::Hint);
    let give_up = ctx.on(|_| Act::GiveUp);
    let par = match (&g.start, g.level.unbreakable) {
        (_, true) => None,
        (Answer::Found(Reply::Break { moves, .. }), _) => {
            Some(ctx.tf("par", &[&moves.to_string()]))
        }
        (Answer::Searching, _) => Some(ctx.t("par.searching")),
        _ => None,
    };
    html! {
        <div class="level-play">
            <p class="count">
                { ctx.tf("moves", &[""]).trim_end() }{ " " }<strong data-testid="level-moves">{ made }</strong>
                if let Some(par) = par { { " · " }<span data-testid="level-par">{ par }</span> }
            </p>
            if !offered.is_empty() {
                <p class="note">{ ctx.t("your_moves") }</p>
                if !exits.is_empty() {
                    <label class="crash">{ ctx.t("exit") }
                        <select data-testid="crash-select" onchange={on_exit}>
                            <option value="" selected={armed.is_none()}>{ ctx.t("exit.none") }</option>
                            { for exits.iter().map(|b| html! {
                                <option value={b.name()} selected={armed == Some(*b)}>
                                    { format!("{}. {} — {}", b.number(), b.name(), t(lang, &format!("boundary.{}", b.name()))) }
                                </option>
                            }) }
                        </select>
                    </label>
                }
                <div class="buttons moves" role="group" aria-label={ctx.t("your_moves")}>
                    { for offered.iter().filter(|m| m.crash == armed).map(|m| move_button(ctx, g, *m)) }
                </div>
            }
            if let Some(e) = &g.error {
                <p class="error" role="alert">{ crate::ui::i18n::message(lang, e) }</p>
            }
            <div class="buttons">
                <button data-testid="level-undo" onclick={back(made.saturating_sub(1))} disabled={made == 0}>{ ctx.t("undo") }</button>
                <button data-testid="level-restart" onclick={back(0)} disabled={made == 0}>{ ctx.t("restart") }</button>
                <button data-testid="level-hint" onclick={on_hint} disabled={g.at.broken.is_some()}>{ ctx.t("hint") }</button>
                <button data-testid="level-giveup" onclick={give_up}>{ ctx.t("giveup") }</button>
            </div>
        </div>
    }
}

/// A move's button, with the test hook the player's own button for it has (`advance-A`, `apply-A`, …).
fn move_button(ctx: &Ctx, g: &Game, m: Move) -> Html {
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
                // The player's "⚡ Power cut…" with its menu's answer: "⚡ Power cut: the producer's".
                format!(
                    "{}: {}",
                    t(lang, "btn.power_cut").trim_end_matches('…'),
                    t(lang, &format!("power.{who}"))
                ),
            )
        }
        _ => (String::new(), describe(&step)),
    };
    let onclick = ctx.on(move |_| Act::Make(m));
    let label = match m.crash {
        Some(b) => format!("{label} ✗ {}", b.name()),
        None => label,
    };
    html! {
        <button data-testid={testid} data-move={describe(&step)} {onclick}>{ label }</button>
    }
}

/// The hint at the reader's position, as far as it has been revealed.
fn hint(ctx: &Ctx, g: &Game) -> Html {
    let Some(h) = g.hint.as_ref().filter(|h| h.history == g.at.history) else {
        return html! {};
    };
    let lang = ctx.model.lang;
    let (stage, text, next) = match &h.answer {
        Answer::Searching => (0, ctx.t("hint.searching"), None),
        Answer::Withheld => (0, ctx.t("hint.first_move"), None),
        Answer::Failed(e) => (
            0,
            ctx.tf("hint.failed", &[&crate::ui::i18n::message(lang, e)]),
            None,
        ),
        Answer::Found(Reply::Safe { states }) => {
            (1, ctx.tf("hint.safe", &[&states.to_string()]), None)
        }
        Answer::Found(Reply::Break {
            property,
            next,
            moves,
            ..
        }) => {
            let mut text = ctx.tf("hint.1", &[property.name()]);
            if h.stage >= 2 {
                text.push(' ');
                text.push_str(&ctx.tf("hint.2", &[&moves.to_string(), next.kind()]));
            }
            let named = describe(&next.step(&g.level.config));
            if h.stage >= 3 {
                text.push(' ');
                text.push_str(&ctx.tf("hint.3", &[&named]));
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

/// The referee's verdict once a move broke a property.
fn win(ctx: &Ctx, g: &Game, words: &outbox_core::levels::Words) -> Html {
    let Some(v) = &g.at.broken else {
        return html! {};
    };
    let lang = ctx.model.lang;
    let moves = g.at.history.len();
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
    let quote = match g.bet {
        Some(Bet::Hold) => Some(ctx.t("bet.wrong.hold")),
        Some(Bet::Break(p)) if p == v.property => Some(format!(
            "{} {}",
            bet_words(ctx, Bet::Break(p)),
            ctx.t("bet.right")
        )),
        Some(Bet::Break(p)) => Some(ctx.tf("bet.wrong.break", &[p.name(), v.property.name()])),
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
            <p class="verdict"><strong>{ ctx.tf("win", &[v.property.name(), &step.to_string()]) }</strong>{ " " }{ count }</p>
            if ours {
                <p>{ &words.win }</p>
            } else {
                <p class="error">{ ctx.tf("win.other", &[v.property.name()]) }</p>
            }
            if let Some(e) = explained {
                <p class="explain" data-testid="level-explain"><code translate="no">{ v.property.name() }</code>{ ": " }{ e.text }</p>
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
fn proof(ctx: &Ctx, g: &Game) -> Html {
    if !g.gave_up {
        return html! {};
    }
    let lang = ctx.model.lang;
    let (text, states, quote) = match &g.start {
        Answer::Searching | Answer::Withheld => (ctx.t("proof.searching"), None, None),
        Answer::Failed(e) => (
            ctx.tf("hint.failed", &[&crate::ui::i18n::message(lang, e)]),
            None,
            None,
        ),
        Answer::Found(Reply::Safe { states }) => (
            ctx.tf("proof", &[&states.to_string()]),
            Some(states.to_string()),
            match g.bet {
                Some(Bet::Hold) => Some(ctx.t("bet.proof.hold")),
                Some(Bet::Break(_)) => Some(ctx.t("bet.proof.break")),
                _ => None,
            },
        ),
        Answer::Found(Reply::Break { moves, .. }) => {
            (ctx.tf("proof.breaks", &[&moves.to_string()]), None, None)
        }
    };
    html! {
        <div class="level-proof" role="status">
            <p data-testid="level-proof" data-states={states}>{ text }</p>
            if let Some(q) = quote {
                <p data-testid="level-bet-quote">{ q }</p>
            }
        </div>
    }
}
