//! A break-it level (issue 56, `?level=N`): the level's claim and the reader's bet, the moves the checker offers
//! where the reader stands (one trace step each), the referee after each move, hints searched off the main
//! thread from the reader's position, the proof on the unbreakable level, and the reader's progress. The player
//! below shows the tables and the diagram of the reader's history; its own buttons stand aside.
//! None of this is in the page's first load: the levels and their words are fetched as a level opens, and this
//! code is in the rest of a split module.

mod attack;
pub mod fetch;
mod game;
mod labels;
mod share;
pub mod store;
mod verdict;
mod view;
mod words;

pub use game::{Act, Entry, Game, Panel};
pub use words::Words;

use crate::ui::hints::{Hinter, Reply};
use crate::ui::i18n::Lang;
use crate::ui::state::{Act as _, Action};
use crate::ui::Ctx as PageCtx;
use outbox_core::checker::Play;
use outbox_core::levels::Level;
use outbox_core::playground::Command;
use std::rc::Rc;
use yew::prelude::*;

/// What the panel's parts need: the page, the game (read, and changed by dispatching an [`Act`]) and its words.
#[derive(Clone)]
pub struct Ctx {
    pub model: PageCtx,
    pub panel: UseReducerHandle<Panel>,
    pub words: Words,
    pub embed: bool,
}

impl Ctx {
    pub fn t(&self, key: &str) -> String {
        self.words.t(self.model.lang, key)
    }

    pub fn tf(&self, key: &str, args: &[&str]) -> String {
        self.words.tf(self.model.lang, key, args)
    }

    /// A level's address in this view and the page's language (`?embed&level=4&lang=zh`): a link between
    /// levels keeps both.
    pub fn level_href(&self, n: usize) -> String {
        let embed = if self.embed { "embed&" } else { "" };
        format!("?{embed}level={n}&lang={}", self.model.lang.address())
    }

    /// A property in the reader's words ("no committed event is lost"); the identifier stays in `data-`
    /// attributes and the CLI.
    pub fn property(&self, p: outbox_core::checker::Property) -> String {
        self.t(&format!("property.{}", p.name()))
    }

    /// A callback that dispatches the act `make` builds from its event.
    pub fn on<E: 'static>(&self, make: impl Fn(E) -> Act + 'static) -> Callback<E> {
        let panel = self.panel.clone();
        Callback::from(move |e| panel.dispatch(make(e)))
    }
}

/// What a search answered, or that it is still searching.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Searching,
    /// Not searched: on the unbreakable level the answer from the start is the proof, which a hint before the
    /// reader's first move would give away.
    Withheld,
    Found(Reply),
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// `level=` as the address wrote it: a number, an id, or `challenge` (the level is in the fragment).
    pub id: AttrValue,
    pub embed: bool,
}

#[component]
pub fn LevelPanel(props: &Props) -> Html {
    let Some(model) = use_context::<PageCtx>() else {
        return html! {};
    };
    let panel = use_reducer(|| Panel::Opening);
    let words = use_state(Words::default);
    // The level's worker: a resource, not state; started once the game is open.
    let hinter = use_mut_ref(|| None::<Hinter>);
    {
        let (panel, words) = (panel.clone(), words.clone());
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
                            panel.dispatch(Act::Opened(Box::new(g)));
                        }
                        Ok((Err(e), w)) => {
                            words.set(w);
                            panel.dispatch(Act::Refused(e));
                        }
                        Err(e) => panel.dispatch(Act::Failed(e)),
                    }
                });
            });
            || ()
        });
    }
    let game = match &*panel {
        Panel::Ready(g) => Some(g),
        _ => None,
    };
    // The effects read the game from the handle, which holds the state of the render they follow.
    let ready = |panel: &UseReducerHandle<Panel>| match &**panel {
        Panel::Ready(g) => Some(g.clone()),
        _ => None,
    };
    {
        // The game's first moments: the level's worker starts on the search from the start (the par, or the
        // proof), so that a reader's first hint finds it done.
        let (panel, hinter, model) = (panel.clone(), hinter.clone(), model.clone());
        use_effect_with(game.is_some(), move |&open| {
            let Some(g) = ready(&panel).filter(|_| open) else {
                return;
            };
            // The producer's column says how this level's producer writes.
            model.dispatch(Action::Producer(g.level.config.producer));
            match Hinter::start() {
                Ok(h) => {
                    let panel = panel.clone();
                    h.ask(&g.level.config, &[], move |reply| {
                        panel.dispatch(Act::Started(answer_of(reply)))
                    });
                    *hinter.borrow_mut() = Some(h);
                }
                Err(e) => panel.dispatch(Act::Started(Answer::Failed(e))),
            }
        });
    }
    {
        // A hint at a new position: the worker searches from there.
        let (panel, hinter) = (panel.clone(), hinter.clone());
        use_effect_with(game.and_then(|g| g.searching()), move |searching| {
            let (Some(history), Some(g)) = (searching.clone(), ready(&panel)) else {
                return;
            };
            match hinter.borrow().as_ref() {
                Some(h) => {
                    let asked = history.clone();
                    h.ask(&g.level.config, &history, move |reply| {
                        panel.dispatch(Act::Hinted(asked, answer_of(reply)))
                    });
                }
                // The worker did not start: its own failure, said again.
                None => panel.dispatch(Act::Hinted(
                    history,
                    match &g.start {
                        Answer::Failed(e) => Answer::Failed(e.clone()),
                        _ => Answer::Failed("the level's worker is not running".into()),
                    },
                )),
            }
        });
    }
    {
        // The player shows the reader's history, once per change of it; a break is circled on the diagram and
        // a win of the level's property kept.
        let (model, panel) = (model.clone(), panel.clone());
        use_effect_with(game.map(|g| g.moved), move |_| {
            let Some(g) = ready(&panel) else {
                return;
            };
            model.act(Command::Load(Box::new(g.at.trace.clone())));
            if let Some(v) = &g.at.broken {
                let moves = g.at.history.len();
                if v.property == g.level.property {
                    store::update(|p| p.record_win(&g.level.id, moves as u32));
                }
                model.dispatch(Action::MarkBroken((g.prelude() + moves).checked_sub(1)));
            }
        });
    }
    {
        // *I give up* answered: the reader has seen whether the level breaks, so the bet counts; and a proof that
        // confirms a bet that the unbreakable level holds solves it. The list says so.
        let panel = panel.clone();
        let answered = game.is_some_and(|g| g.answered());
        use_effect_with(
            (answered, game.is_some_and(|g| g.held_right())),
            move |&(answered, held)| {
                if let Some(g) = ready(&panel).filter(|_| answered) {
                    store::update(|p| {
                        p.record_revealed(&g.level.id);
                        if held {
                            p.record_solved(&g.level.id);
                        }
                    });
                    panel.dispatch(Act::Kept);
                }
            },
        );
    }
    {
        // The level is drawn (open, or refused) and its player shows the game's history: with the page's parts
        // drawn too, an embed's frame takes its height from then on, once, rather than at the level's opening and
        // again at its player's load.
        let settled = match &*panel {
            Panel::Opening => false,
            Panel::Ready(g) => {
                model.loading.is_none() && model.entries.len() == g.prelude() + g.at.history.len()
            }
            Panel::Failed(_) | Panel::Refused(_) => true,
        };
        use_effect_with(settled, |&settled| {
            if settled {
                crate::ui::level_view_drawn(2);
            }
        });
    }
    {
        // Time travel in the diagram (a click on a step) is one act: the game stands where the player does.
        let panel = panel.clone();
        use_effect_with(model.pos, move |&pos| panel.dispatch(Act::PlayerAt(pos)));
    }
    let lang = model.lang;
    let content = match &*panel {
        Panel::Opening => {
            html! { <p class="note" data-testid="level-loading">{ crate::ui::i18n::t(lang, "title") }{ " …" }</p> }
        }
        Panel::Failed(e) => {
            let text = if words.is_empty() {
                e.to_string()
            } else {
                words.tf(lang, "failed", &[&crate::ui::i18n::message(lang, e)])
            };
            html! { <p class="error" role="alert" data-testid="level-error">{ text }</p> }
        }
        Panel::Refused(e) => html! {
            <p class="error" role="alert" data-testid="level-error">{ crate::ui::i18n::message(lang, e) }</p>
        },
        Panel::Ready(g) => {
            let ctx = Ctx {
                model: model.clone(),
                panel: panel.clone(),
                words: (*words).clone(),
                embed: props.embed,
            };
            view::panel(&ctx, g)
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
    let list: Vec<Entry> = bundle
        .levels
        .iter()
        .map(|l| Entry {
            id: l.id.clone(),
            title: [l.en.title.clone(), l.zh.title.clone()],
            breaks: (!l.unbreakable).then_some(l.property),
        })
        .collect();
    let count = bundle.levels.len();
    let (number, level): (Option<usize>, Level) = if id == "challenge" {
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
    let code = outbox_core::levels::code::Code::of(&level.config)?;
    Ok(Game::new(level, number, list, play, code))
}

fn answer_of(reply: Result<Reply, String>) -> Answer {
    match reply {
        Ok(reply) => Answer::Found(reply),
        Err(e) => Answer::Failed(e),
    }
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
