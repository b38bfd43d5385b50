//! A break-it level (issue 56, `?level=N`): the level's claim and the reader's bet, the moves the checker offers
//! where the reader stands (one trace step each), the referee after each move, hints searched off the main
//! thread from the reader's position, the proof on the unbreakable level, and the reader's progress. The player
//! below shows the tables and the diagram of the reader's history; its own buttons stand aside.
//! None of this is in the page's first load: the levels and their words are fetched as a level opens, and this
//! code is in the rest of a split module.

pub mod fetch;
mod share;
pub mod store;
mod view;
mod words;

pub use words::Words;

use crate::ui::hints::{Hinter, Reply};
use crate::ui::i18n::Lang;
use crate::ui::state::{Act, Action};
use crate::ui::Ctx as PageCtx;
use outbox_core::checker::{Move, Play};
use outbox_core::levels::{Bet, Level};
use outbox_core::playground::Command;
use outbox_core::protocol::Boundary;

use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// What the panel's parts need.
#[derive(Clone)]
pub struct Ctx {
    pub model: PageCtx,
    pub game: Shared,
    pub words: Words,
    pub redraw: UseForceUpdateHandle,
    pub embed: bool,
}

impl Ctx {
    pub fn t(&self, key: &str) -> String {
        self.words.t(self.model.lang, key)
    }

    pub fn tf(&self, key: &str, args: &[&str]) -> String {
        self.words.tf(self.model.lang, key, args)
    }
}

/// What a search answered, or that it is still searching.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Searching,
    Found(Reply),
    Failed(String),
}

/// A hint asked for at one position: how much of it has been revealed (1–3).
pub struct Asked {
    pub history: Vec<Move>,
    pub stage: u8,
    pub answer: Answer,
}

/// A level being played.
pub struct Game {
    pub level: Level,
    /// 1-based, among the levels; none for a challenge.
    pub number: Option<usize>,
    /// Every level's id and English title, in order (the list's entries).
    pub list: Vec<(String, String)>,
    pub play: Play,
    /// The search from the start: the par, or the proof.
    pub start: Answer,
    pub hint: Option<Asked>,
    /// The exit chosen for the next move.
    pub armed: Option<Boundary>,
    pub bet: Option<Bet>,
    /// The reader said it breaks and is choosing the property.
    pub choosing: bool,
    pub gave_up: bool,
    /// A move the page refused, said until the next move.
    pub error: Option<String>,
    /// What the last progress import did (imported, or why not).
    pub said: Option<(bool, String)>,
    /// The embed code *Copy embed code* wrote, and whether its height was measured.
    pub embed_code: Option<(String, bool)>,
    hinter: Option<Hinter>,
}

/// Why the panel shows no game.
#[derive(Clone, PartialEq)]
enum Status {
    Opening,
    /// The levels could not be fetched or read.
    Failed(String),
    /// The address names no level, or a challenge link that cannot be opened: said as it is.
    Refused(String),
    Ready,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// `level=` as the address wrote it: a number, an id, or `challenge` (the level is in the fragment).
    pub id: AttrValue,
    pub embed: bool,
}

type Shared = Rc<RefCell<Option<Game>>>;

#[component]
pub fn LevelPanel(props: &Props) -> Html {
    let Some(model) = use_context::<PageCtx>() else {
        return html! {};
    };
    let game: Shared = use_mut_ref(|| None);
    let words = use_state(Words::default);
    let status = use_state(|| Status::Opening);
    let redraw = use_force_update();
    {
        let (model, game, words, status, redraw) = (
            model.clone(),
            game.clone(),
            words.clone(),
            status.clone(),
            redraw.clone(),
        );
        let id = props.id.to_string();
        let lang = model.lang;
        use_effect_with((), move |_| {
            // The panel's styles come with the levels, not in the first load's stylesheet.
            fetch::stylesheet("levels.css");
            // Play and the search are in the rest of a split module; the levels are fetched beside the page.
            crate::ui::split::when_loaded(move || {
                fetch::text("levels.json", move |fetched| {
                    let opened = fetched.and_then(|text| {
                        let bundle = outbox_core::levels::read_bundle(&text)?;
                        let w = Words::new(Rc::new(bundle.words.clone()));
                        Ok((open(&id, bundle, &w, lang), w))
                    });
                    match opened {
                        Ok((Ok(g), w)) => {
                            words.set(w);
                            *game.borrow_mut() = Some(g);
                            start(&game, &model, &redraw);
                            status.set(Status::Ready);
                        }
                        Ok((Err(e), w)) => {
                            words.set(w);
                            status.set(Status::Refused(e));
                        }
                        Err(e) => status.set(Status::Failed(e)),
                    }
                });
            });
            || ()
        });
    }
    {
        // Time travel in the diagram (a click on a step) takes the moves after it back, as *Undo* does: the
        // level's game and the player's tables stand at the same step.
        let (game, model, redraw) = (game.clone(), model.clone(), redraw.clone());
        use_effect_with(model.pos, move |&pos| {
            let back = game.borrow().as_ref().and_then(|g| {
                let at = g.prelude() + g.play.history().len();
                (pos < at).then(|| pos.saturating_sub(g.prelude()))
            });
            if let Some(n) = back {
                take_back(&game, &model, &redraw, n);
            }
        });
    }
    let lang = model.lang;
    let content = match &*status {
        Status::Opening => {
            html! { <p class="note" data-testid="level-loading">{ crate::ui::i18n::t(lang, "title") }{ " …" }</p> }
        }
        Status::Failed(e) => {
            let text = if words.is_empty() {
                e.to_string()
            } else {
                words.tf(lang, "failed", &[&crate::ui::i18n::message(lang, e)])
            };
            html! { <p class="error" role="alert" data-testid="level-error">{ text }</p> }
        }
        Status::Refused(e) => html! {
            <p class="error" role="alert" data-testid="level-error">{ crate::ui::i18n::message(lang, e) }</p>
        },
        Status::Ready => {
            let ctx = Ctx {
                model: model.clone(),
                game: game.clone(),
                words: (*words).clone(),
                redraw: redraw.clone(),
                embed: props.embed,
            };
            view::panel(&ctx)
        }
    };
    html! {
        <section class="level" aria-labelledby="level-h" data-testid="level">
            { content }
        </section>
    }
}

/// The game `id` names (a number, an id, or `challenge` for the link's level), or why there is none.
fn open(
    id: &str,
    bundle: outbox_core::levels::Bundle,
    words: &Words,
    lang: Lang,
) -> Result<Game, String> {
    let list: Vec<(String, String)> = bundle
        .levels
        .iter()
        .map(|l| (l.id.clone(), l.en.title.clone()))
        .collect();
    let count = bundle.levels.len();
    let (number, level) = if id == "challenge" {
        let hash = web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default();
        (None, outbox_core::levels::from_link(&hash)?)
    } else {
        let found = bundle
            .levels
            .into_iter()
            .enumerate()
            .find(|(i, l)| l.id == id || id.parse::<usize>() == Ok(i + 1));
        match found {
            Some((i, level)) => (Some(i + 1), level),
            None => {
                return Err(words.tf(lang, "unknown", &[id, &count.to_string()]));
            }
        }
    };
    let play = Play::new(level.config.clone())?;
    Ok(Game {
        level,
        number,
        list,
        play,
        start: Answer::Searching,
        hint: None,
        armed: None,
        bet: None,
        choosing: false,
        gave_up: false,
        error: None,
        said: None,
        embed_code: None,
        hinter: None,
    })
}

/// The game's first moments: the player shows the level's (empty) history, and the level's worker starts on
/// the search from the start (the par, or the proof), so a reader's first hint finds it done.
fn start(game: &Shared, model: &PageCtx, redraw: &UseForceUpdateHandle) {
    let trace = game.borrow().as_ref().map(|g| g.play.trace());
    if let Some(trace) = trace {
        model.act(Command::Load(Box::new(trace)));
    }
    let mut g = game.borrow_mut();
    let Some(g) = g.as_mut() else { return };
    match Hinter::start() {
        Ok(hinter) => {
            let (game, redraw) = (game.clone(), redraw.clone());
            hinter.ask(&g.level.config, &[], move |reply| {
                if let Some(g) = game.borrow_mut().as_mut() {
                    g.start = answer_of(reply);
                    // A hint asked at the start before the search was done is this answer.
                    if let Some(h) = g.hint.as_mut().filter(|h| h.history.is_empty()) {
                        h.answer = g.start.clone();
                    }
                }
                redraw.force_update();
            });
            g.hinter = Some(hinter);
        }
        Err(e) => g.start = Answer::Failed(e),
    }
}

fn answer_of(reply: Result<Reply, String>) -> Answer {
    match reply {
        Ok(reply) => Answer::Found(reply),
        Err(e) => Answer::Failed(e),
    }
}

impl Game {
    /// The par: the checker's shortest break from the start, once found.
    pub fn par(&self) -> Option<usize> {
        match &self.start {
            Answer::Found(Reply::Break { moves, .. }) => Some(*moves),
            _ => None,
        }
    }

    /// The steps the player's history starts with that are no move (`set_synchronous` on a power level).
    pub fn prelude(&self) -> usize {
        self.level.config.prelude().len()
    }
}

/// Makes move `m`, shows the history in the player, and on a break records the win.
pub fn make(ctx: &Ctx, m: Move) {
    let shown = change(ctx, |g| {
        g.error = None;
        g.gave_up = false;
        g.hint = None;
        if g.bet.is_none() {
            g.bet = Some(Bet::Skip);
        }
        match g.play.make(m) {
            Ok(broken) => {
                let moves = g.play.history().len();
                let step = broken.map(|v| {
                    if v.property == g.level.property {
                        store::update(|p| p.record_win(&g.level.id, moves as u32));
                    }
                    g.prelude() + moves - 1
                });
                Some((g.play.trace(), step))
            }
            Err(e) => {
                g.error = Some(e);
                None
            }
        }
    });
    if let Some((trace, step)) = shown.flatten() {
        ctx.model.act(Command::Load(Box::new(trace)));
        if step.is_some() {
            ctx.model.dispatch(Action::MarkBroken(step));
        }
    }
    ctx.redraw.force_update();
}

/// Runs `f` on the game, and lets go of it before anything is drawn again.
fn change<T>(ctx: &Ctx, f: impl FnOnce(&mut Game) -> T) -> Option<T> {
    let mut guard = ctx.game.borrow_mut();
    guard.as_mut().map(f)
}

/// Takes moves back to the first `n`.
pub fn back_to(ctx: &Ctx, n: usize) {
    take_back(&ctx.game, &ctx.model, &ctx.redraw, n);
}

fn take_back(game: &Shared, model: &PageCtx, redraw: &UseForceUpdateHandle, n: usize) {
    let trace = game.borrow_mut().as_mut().map(|g| {
        g.error = g.play.back_to(n).err();
        g.hint = None;
        g.gave_up = false;
        g.play.trace()
    });
    if let Some(trace) = trace {
        model.act(Command::Load(Box::new(trace)));
    }
    redraw.force_update();
}

/// *Hint*: the next stage of the hint at this position, searching for it first if it is new.
pub fn hint(ctx: &Ctx) {
    change(ctx, |g| {
        let history = g.play.history();
        if let Some(h) = g.hint.as_mut().filter(|h| h.history == history) {
            if matches!(h.answer, Answer::Found(Reply::Break { .. })) {
                h.stage = (h.stage + 1).min(3);
            }
            return;
        }
        // Nothing breaks it from the start: then nothing does from any position after it, which the proof's
        // states already cover (the protocol's hint would otherwise be a whole proof again, 1.4 s in Chromium).
        let proven = matches!(g.start, Answer::Found(Reply::Safe { .. }));
        let answer = if history.is_empty() || proven {
            g.start.clone()
        } else if let Some(hinter) = &g.hinter {
            let (game, redraw) = (ctx.game.clone(), ctx.redraw.clone());
            let asked = history.clone();
            hinter.ask(&g.level.config, &history, move |reply| {
                if let Some(h) = game
                    .borrow_mut()
                    .as_mut()
                    .and_then(|g| g.hint.as_mut())
                    .filter(|h| h.history == asked)
                {
                    h.answer = answer_of(reply);
                }
                redraw.force_update();
            });
            Answer::Searching
        } else {
            match &g.start {
                Answer::Failed(e) => Answer::Failed(e.clone()),
                _ => Answer::Failed("the level's worker is not running".into()),
            }
        };
        g.hint = Some(Asked {
            history,
            stage: 1,
            answer,
        });
    });
    ctx.redraw.force_update();
}

/// The reader's bet: `None` is "it breaks", which asks which property next.
pub fn bet(ctx: &Ctx, bet: Option<Bet>) {
    change(ctx, |g| match bet {
        Some(bet) => {
            g.bet = Some(bet);
            g.choosing = false;
            store::update(|p| p.record_bet(&g.level.id, bet));
        }
        None => g.choosing = true,
    });
    ctx.redraw.force_update();
}

/// *Challenge someone to break this*: the page's rule as a level, carried whole in a link (`#level=…`), copied
/// and shown. The link's reader gets the bet, the referee, hints and the par as for the built-in levels.
#[component]
pub fn Challenge() -> Html {
    let Some(model) = use_context::<PageCtx>() else {
        return html! {};
    };
    let lang = model.lang;
    let made = use_state(|| None::<Result<(String, String), String>>);
    let onclick = {
        let model = model.clone();
        let made = made.clone();
        Callback::from(move |_| {
            let rule = match model.rule.check() {
                Ok(rule) => rule,
                Err(refusal) => {
                    let why = refusal.located(&model.rule.text);
                    return made.set(Some(Err(crate::ui::i18n::message(lang, &why))));
                }
            };
            let made = made.clone();
            fetch::text("levels.json", move |fetched| {
                let link = fetched.and_then(|text| {
                    let words = Words::new(Rc::new(outbox_core::levels::read_bundle(&text)?.words));
                    let level = outbox_core::levels::challenge(&rule, words.challenge());
                    // What the link's reader will be refused, refused here first.
                    outbox_core::levels::from_value(level.clone())?;
                    let base = super::share::page_base();
                    let url = format!("{base}#{}", outbox_core::levels::to_link(&level));
                    Ok((url, words.t(lang, "challenge.made")))
                });
                if let (Ok((url, _)), Some(w)) = (&link, web_sys::window()) {
                    let _ = w.navigator().clipboard().write_text(url);
                }
                made.set(Some(link.map_err(|e| crate::ui::i18n::message(lang, &e))));
            });
        })
    };
    html! {
        <div class="challenge">
            <button data-testid="level-challenge" {onclick}>{ crate::ui::i18n::t(lang, "rule.challenge") }</button>
            { match &*made {
                Some(Ok((url, said))) => html! {
                    <p class="note">{ said }{ " " }<a data-testid="level-challenge-link" href={url.clone()} target="_blank" rel="noopener">{ url.chars().take(60).collect::<String>() }{ "…" }</a></p>
                },
                Some(Err(e)) => html! { <p class="error" role="alert" data-testid="level-challenge-error">{ e }</p> },
                None => html! {},
            } }
        </div>
    }
}
