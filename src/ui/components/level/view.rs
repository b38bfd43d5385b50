//! The level's panel as the reader sees it: the list, the claim and the bet, the moves, the hint, the verdict,
//! the proof, and the progress's file.

use super::labels::{bet_words, move_label};
use super::{attack, verdict, Act, Answer, Ctx, Game};
use crate::ui::hints::Reply;
use crate::ui::i18n::{t, Lang};
use outbox_core::checker::{describe, Action, Move, Property};
use outbox_core::levels::{Bet, Progress};
use outbox_core::protocol::Boundary;
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
            { bet(ctx, g, words, &progress) }
            <div class="level-board">
                <div class="level-side">
                    { moves(ctx, g) }
                    { verdict::dead_end(ctx, g) }
                    { verdict::hint(ctx, g) }
                    { verdict::win(ctx, g, words) }
                    { verdict::proof(ctx, g) }
                </div>
                { attack::code(ctx, g) }
            </div>
            { super::share::progress_file(ctx, kept, g.said.clone()) }
            if !ctx.embed {
                { super::share::embed_code(ctx, g) }
            }
        </>
    }
}

/// The levels, each with its name, whether it is solved and its best count; and the reader's bets, counted.
fn list(ctx: &Ctx, g: &Game, progress: &Progress) -> Html {
    let lang = ctx.model.lang;
    let truth: Vec<_> = g.list.iter().map(|e| (e.id.clone(), e.breaks)).collect();
    let (right, placed) = progress.bets(&truth);
    html! {
        <nav class="level-list" data-testid="level-list" aria-label={ctx.t("list")}>
            if !ctx.embed {
                <a href={format!("./?lang={}", lang.address())} class="leave" data-testid="level-leave">{ ctx.t("leave") }</a>
            }
            <ol>
            { for g.list.iter().enumerate().map(|(i, e)| {
                let record = progress.levels.get(&e.id).cloned().unwrap_or_default();
                let current = g.number == Some(i + 1);
                let title = &e.title[usize::from(lang == Lang::Zh)];
                // The mark and the best count have their place whether or not they are there yet, so that solving
                // a level moves nothing.
                let best = record.best.map(|b| ctx.tf("best", &[&b.to_string()]));
                html! {
                    <li>
                        <a data-testid={format!("level-{}", e.id)} data-solved={record.solved.to_string()}
                            href={ctx.level_href(i + 1)} aria-current={current.then_some("page")}>
                            <span class="mark" aria-hidden="true">{ if record.solved { "✓" } else { "" } }</span>
                            <span class="n">{ i + 1 }</span>
                            <span class="name">{ title }</span>
                            if record.solved { <span class="sr-only">{ format!(" {}", ctx.t("solved")) }</span> }
                            <span class="best">{ best.map(|b| format!(" · {b}")).unwrap_or_default() }</span>
                        </a>
                    </li>
                }
            }) }
            </ol>
            <p class="note" data-testid="bets-right" data-right={right.to_string()} data-total={placed.to_string()}>
                { if placed == 0 { ctx.t("bets.none") } else { ctx.tf("bets", &[&right.to_string(), &placed.to_string()]) } }
            </p>
        </nav>
    }
}

/// The bet, asked before the first move, then quoted; not asked once the reader has seen the answer (here, or in
/// an earlier visit: the progress kept says so), when it would be no bet.
fn bet(ctx: &Ctx, g: &Game, words: &outbox_core::levels::Words, progress: &Progress) -> Html {
    let seen = progress
        .levels
        .get(&g.level.id)
        .is_some_and(|r| r.revealed || r.solved);
    if g.bet.is_none() && (g.gave_up || seen) {
        return html! { <p class="bet made" data-testid="level-bet" data-bet="closed">{ ctx.t("bet.closed") }</p> };
    }
    let on = |b: Bet| {
        let id = g.level.id.clone();
        ctx.on(move |_| {
            // A bet placed is kept with the progress: "it breaks" alone is one, a property named narrows it.
            super::store::update(|p| p.record_bet(&id, b));
            Act::Bet(b)
        })
    };
    let which = html! {
        <>
            <p>{ ctx.t("bet.which") }</p>
            <div class="buttons">
                { for [Property::ConsumerInvariant, Property::NoLoss, Property::Completion].into_iter().map(|p| html! {
                    <button data-testid={format!("level-bet-{}", p.name())} data-property={p.name()}
                        aria-pressed={(g.bet == Some(Bet::Break(p))).to_string()}
                        onclick={on(Bet::Break(p))}>{ ctx.property(p) }</button>
                }) }
            </div>
        </>
    };
    match g.bet {
        Some(b) => html! {
            <div class="bet made">
                <p data-testid="level-bet" data-bet={b.name()}>{ bet_words(ctx, b) }</p>
                if g.choosing { { which } }
            </div>
        },
        None => html! {
            <div class="bet" role="group" aria-label={ctx.t("bet.ask")}>
                <p>{ ctx.t("bet.ask") }</p>
                <div class="buttons">
                    <button data-testid="level-bet-hold" onclick={on(Bet::Hold)}>{ &words.bet_hold }</button>
                    <button data-testid="level-bet-break" onclick={on(Bet::Breaks)}>{ &words.bet_break }</button>
                    <button data-testid="level-bet-skip" onclick={on(Bet::Skip)}>{ ctx.t("bet.skip") }</button>
                </div>
            </div>
        },
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
            { setup(ctx, g) }
            <p class="count">
                <span class="made">{ ctx.tf("moves", &[""]).trim_end() }{ " " }<strong data-testid="level-moves">{ made }</strong></span>
                if let Some(par) = par { { " " }<span class="par">{ "· " }<span data-testid="level-par">{ par }</span></span> }
                { budget(ctx, g) }
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
            { last_move(ctx, g) }
            <div class="buttons">
                <button data-testid="level-undo" onclick={back(made.saturating_sub(1))} disabled={made == 0}>{ ctx.t("undo") }</button>
                <button data-testid="level-restart" onclick={back(0)} disabled={made == 0}>{ ctx.t("restart") }</button>
                <button data-testid="level-hint" onclick={on_hint} disabled={g.at.broken.is_some()}>{ ctx.t("hint") }</button>
                <button data-testid="level-giveup" onclick={give_up}>{ ctx.t("giveup") }</button>
            </div>
        </div>
    }
}

/// What the last move did, in one line under the moves (on a phone the tables are a screen below): its words,
/// its result, and why, as the event log says it.
fn last_move(ctx: &Ctx, g: &Game) -> Html {
    use crate::ui::components::log::{reason, result_label};
    let model = &ctx.model;
    let shown = g.prelude() + g.at.history.len();
    let (Some(m), true) = (
        g.at.history.last(),
        model.entries.len() == shown && model.pos == shown,
    ) else {
        return html! {};
    };
    let report = &model.entries[shown - 1].report;
    let lang = ctx.model.lang;
    html! {
        <p class="last-move" data-testid="level-last" aria-live="polite">
            <strong>{ ctx.t("last") }{ " " }</strong>{ move_label(ctx, g, *m).1 }{ " → " }
            <span translate="no">{ result_label(lang, report) }</span>
            <span class="why">{ format!(" — {}", reason(lang, model.ordering(), report)) }</span>
        </p>
    }
}

/// What the level sets up before the reader's first move, said above the moves: events produced in schema 2, and
/// `synchronous = NORMAL` on a power level.
fn setup(ctx: &Ctx, g: &Game) -> Html {
    let config = &g.level.config;
    let mut said = Vec::new();
    if !config.schema2.is_empty() {
        said.push(ctx.tf("setup.schema2", &[&config.schema2.join(", ")]));
    }
    if config.synchronous == outbox_core::protocol::Synchronous::Normal {
        said.push(ctx.t("setup.normal"));
    }
    if said.is_empty() {
        return html! {};
    }
    html! {
        <p class="note setup" data-testid="level-setup"><strong>{ ctx.t("setup") }{ " " }</strong>{ said.join(" ") }</p>
    }
}

/// What is left of the level's budgets (exits, resends, power cuts), said instead of controls vanishing.
fn budget(ctx: &Ctx, g: &Game) -> Html {
    let config = &g.level.config;
    let used = |f: &dyn Fn(&Move) -> bool| g.at.history.iter().filter(|m| f(m)).count();
    let exits = used(&|m| m.crash.is_some() || matches!(m.action, Action::UnsafeDualWrite(_)));
    let resends = used(&|m| matches!(m.action, Action::Resend(_)));
    let cuts = used(&|m| matches!(m.action, Action::PowerCut(_)));
    let parts: Vec<(&str, usize, usize)> = [
        ("exits", config.crashes, exits),
        ("resends", config.resends, resends),
        ("power_cuts", config.power_cuts, cuts),
    ]
    .into_iter()
    .filter(|(_, total, _)| *total > 0)
    .map(|(what, total, used)| (what, usize::from(total), used))
    .collect();
    if parts.is_empty() {
        return html! {};
    }
    html! {
        <span class="budget" data-testid="level-budget">
            { for parts.into_iter().map(|(what, total, used)| {
                let left = total.saturating_sub(used);
                html! {
                    // The space before a part is where the line may break; none inside it.
                    <>{ " " }<span data-budget={what} data-left={left.to_string()}>
                        { "· " }{ ctx.tf(&format!("budget.{what}"), &[&left.to_string(), &total.to_string()]) }
                    </span></>
                }
            }) }
        </span>
    }
}

/// A move's button, with the test hook the player's own button for it has (`advance-A`, `apply-A`, …).
fn move_button(ctx: &Ctx, g: &Game, m: Move) -> Html {
    let step = m.step(&g.level.config);
    let (testid, label) = move_label(ctx, g, m);
    let onclick = ctx.on(move |_| Act::Make(m));
    // A move that changes nothing here is offered saying so, not left to be found by clicking.
    let idle = g.at.idle.contains(&m);
    let label = if idle {
        format!("{label} — {}", ctx.t("move.idle"))
    } else {
        label
    };
    html! {
        <button data-testid={testid} data-move={describe(&step)} data-idle={idle.to_string()}
            class={classes!(idle.then_some("idle"))} {onclick}>{ label }</button>
    }
}
