//! The page: header, controls, the three columns (producer, wire, consumer), the log and SQL panels.

use super::{
    check::Checker, consumer::ConsumerColumn, controls::Controls, diagram::DiagramPanel,
    explore::Explorer, library::Library, log::EventLog, log::SqlPanel, log::StatusBar,
    producer::ProducerColumn, rule::RuleEditor, share::Share, timeline::Timeline, wire::Wire,
};
use crate::ui::address::{Address, Panel};
use crate::ui::i18n::{t, tf};
use crate::ui::state::Act;
use crate::ui::state::{Action, Model};
use crate::ui::Ctx;
use outbox_core::playground::Command;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub initial: Rc<Model>,
    /// What the address asks for: the compact mode for an iframe (`?embed`: no page chrome), a preset, the
    /// panels to show.
    #[prop_or_default]
    pub address: Rc<Address>,
    /// The session a link carried, replayed once the page is up.
    #[prop_or_default]
    pub link_trace: Option<Rc<outbox_core::trace::Trace>>,
}

#[component]
pub fn Playground(props: &Props) -> Html {
    let initial = props.initial.clone();
    let model = use_reducer(move || (*initial).clone());
    let lang = model.lang;
    {
        let model = model.clone();
        let link_trace = props.link_trace.clone();
        let preset = props.address.preset;
        let step = props.address.step;
        use_effect_with((), move |_| {
            if let Some(trace) = link_trace {
                crate::ui::load_trace(model, (*trace).clone());
            } else if let Some(index) = preset {
                model.act(Command::OpenPreset { index, step });
            }
        });
    }
    {
        // <html lang> follows the page's language.
        use_effect_with(lang, move |lang| {
            if let Some(root) = crate::ui::root() {
                let _ = root.set_attribute("lang", lang.tag());
            }
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                doc.set_title(&t(*lang, "title"));
            }
        });
    }
    let switch_lang = {
        let model = model.clone();
        Callback::from(move |()| {
            let next = model.lang.other();
            if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten())
            {
                let _ = storage.set_item("lang", next.tag());
            }
            model.dispatch(Action::SetLang(next));
        })
    };
    {
        // Until the page draws its own header (`Part::Header`), the prerendered one's language button is the one
        // a reader sees: `www/page-start.js` hands its clicks to the page here (`outboxSwitchLang`), so that the
        // page and the header switch together.
        let switch_lang = switch_lang.clone();
        use_effect_with(lang, move |_| {
            let hook =
                wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || switch_lang.emit(()));
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = js_sys::Reflect::set(w, &"outboxSwitchLang".into(), hook.as_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = js_sys::Reflect::delete_property(w, &"outboxSwitchLang".into());
                }
                drop(hook);
            }
        });
    }
    {
        // Keyboard shortcuts, listed on the page; ignored while typing in a field.
        let model = model.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().and_then(|w| w.document()).map(|doc| {
                let cb = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(
                    move |e: web_sys::KeyboardEvent| {
                        // A level's moves are its own: the player's shortcuts would go around them.
                        if e.ctrl_key() || e.meta_key() || e.alt_key() || typing(&e) || model.locked
                        {
                            return;
                        }
                        let action = match e.key().as_str() {
                            "[" | "]" => {
                                e.prevent_default();
                                let to = if e.key() == "[" {
                                    model.pos.saturating_sub(1)
                                } else {
                                    model.pos + 1
                                };
                                crate::ui::seek(model.clone(), to);
                                None
                            }
                            "n" => Some(Command::DeliverNext),
                            "p" => Some(Command::ProcessAll),
                            _ => None,
                        };
                        if let Some(command) = action {
                            e.prevent_default();
                            model.act(command);
                        }
                    },
                );
                use wasm_bindgen::JsCast;
                let _ =
                    doc.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
                (doc, cb)
            });
            move || {
                if let Some((doc, cb)) = listener {
                    use wasm_bindgen::JsCast;
                    let _ = doc.remove_event_listener_with_callback(
                        "keydown",
                        cb.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }
    {
        // A link pasted into the address bar of an open page changes only the fragment: replay it too.
        let model = model.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
                    // A check link is the checker's to open, and it opens one as the page starts.
                    if crate::ui::checker::link_in_location().is_some() || challenge_in_location() {
                        if let Some(location) = web_sys::window().map(|w| w.location()) {
                            let _ = location.reload();
                        }
                        return;
                    }
                    match crate::ui::trace_from_location() {
                        Some(Ok(trace)) => crate::ui::load_trace(model.clone(), trace),
                        Some(Err(e)) => model.dispatch(Action::Error(e)),
                        None => {}
                    }
                });
                use wasm_bindgen::JsCast;
                let _ =
                    w.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
                (w, cb)
            });
            move || {
                if let Some((w, cb)) = listener {
                    use wasm_bindgen::JsCast;
                    let _ = w.remove_event_listener_with_callback(
                        "hashchange",
                        cb.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }
    let address = &props.address;
    let embed = address.embed;
    let show = |panel: Panel| address.shows(panel);
    let ignored = (!address.ignored.is_empty()).then(|| {
        tf(
            lang,
            "address.ignored",
            &[&address.ignored.join(", "), &Panel::NAMES.join(", ")],
        )
    });
    // On a phone the diagram is a tab beside the tables; wider, it sits beside or below them.
    let tab = use_state(|| false);
    // The page draws in parts, a task each, each shorter than one would be (`Part`): nothing at first (Yew's own
    // code runs for the first time, and the browser compiles each function on its first call), the controls,
    // the columns (producer, wire, consumer), below the prerendered header, which stands until then; once the
    // player (controls and columns) has painted, the databases open, in tasks of their own; then the page's own
    // header in the prerendered one's place, the diagram, the log and SQL, then the tools below them (the
    // experiments, then share, explorer and checker), which are out of view at first (a reader's action before
    // the databases are open opens them itself). Each part only adds below or beside what is drawn, or replaces
    // the header with an identical one (the diagram's column is sized by the grid, not by it), so nothing moves.
    // The tools' code is not in the first load of a split build: they wait for the rest of the module, asked
    // for once the player is interactive.
    let drawn = use_state(|| Part::Start);
    let columns_painted = use_memo((), |_| Meeting::default());
    {
        let drawn = drawn.clone();
        let model = model.clone();
        let columns_painted = columns_painted.clone();
        // A preset's or a link's history replays on databases of its own, opened by the page's first render.
        let replays = props.link_trace.is_some() || props.address.preset.is_some();
        use_effect_with(*drawn, move |&part| {
            // Yew draws each part at the end of its task; the next waits for the next task.
            let next = {
                let columns_painted = columns_painted.clone();
                move || {
                    if let Some(after) = part.next() {
                        crate::ui::yield_then(move || {
                            drawn.set(after);
                            // Asked for in the task that draws the columns, so it is that task's frame (Yew's
                            // effects may come a task later, after the browser has painted: `Meeting`).
                            if after == Part::Columns {
                                crate::ui::after_paint(move || columns_painted.arrive());
                            }
                        })
                    }
                }
            };
            match part {
                Part::Start | Part::Controls | Part::Header | Part::Diagram | Part::Library => {
                    next()
                }
                // The benchmark's "interactive" moment: the player (controls and columns) painted, its controls
                // answering (this render's effects run).
                Part::Columns => columns_painted.then(move || {
                    crate::ui::mark("playground-ready");
                    crate::ui::split::prefetch();
                    if replays {
                        return next();
                    }
                    crate::ui::warm_up_then(move || {
                        if let Err(e) = model.open() {
                            model.dispatch(Action::Error(tf(model.lang, "sqlite.failed", &[&e])));
                        }
                        crate::ui::mark("playground-databases-open");
                        next();
                    });
                }),
                // What the first load is made of (`scripts/split-wasm.mjs` profiles the page up to here).
                Part::Panels => {
                    crate::ui::mark("playground-drawn");
                    crate::ui::split::when_loaded(next);
                }
                Part::Tools => {}
            }
        });
    }
    {
        // Everything this view shows is drawn, and no replay in slices (a long link's) is still filling it in:
        // an embed's frame is sized from now on (`www/page-start.js`), to its whole height, rather than at
        // each part (each would move the article around it).
        let done = *drawn >= Part::last_shown(address) && model.loading.is_none();
        use_effect_with(done, |&done| {
            if done {
                crate::ui::mark_view_drawn();
            }
        });
    }
    // Whether the page has come to the part that draws `panel`, and its view shows it.
    let draws = |panel: Panel| show(panel) && *drawn >= Part::drawing(panel);
    // The page's own header replaces the prerendered one in the render that draws it, so in the same task: not
    // in an effect, which Yew may run a task later, after a frame that showed no header and moved the page up.
    // For the same reason the header is this component's own node, outside the context provider: a child's
    // nodes are drawn by a later runnable, and Yew's scheduler may yield to the browser between the two.
    let header = *drawn >= Part::Header;
    let prerendered = use_mut_ref(|| true);
    if header && *prerendered.borrow() {
        *prerendered.borrow_mut() = false;
        crate::ui::remove_first_screen();
    }
    let controls = *drawn >= Part::Controls;
    let tools = *drawn >= Part::Tools;
    // The tools' section: the experiments and, beside them, the others (share, explorer, checker); a section with
    // one of its two panels only (a view that names one) gives it the width (`www/style.css`).
    let side = [Panel::Share, Panel::Explorer, Panel::Checker]
        .into_iter()
        .any(show);
    let columns = [Panel::Producer, Panel::Wire, Panel::Consumer]
        .into_iter()
        .filter(|p| show(*p))
        .count();
    // An embed grows to its content (the frame follows its height), so it stacks them instead.
    let tabbed = !embed && columns > 0 && show(Panel::Diagram);
    let pick = |diagram: bool| {
        let tab = tab.clone();
        Callback::from(move |_| tab.set(diagram))
    };
    html! {
        <>
        // The prerendered header stands above until the page draws its own (`Part::Header`).
        if header {
            { crate::first_screen::header(lang, embed, Some(switch_lang.reform(|_: MouseEvent| ()))) }
        }
        <ContextProvider<Ctx> context={model.clone()}>
            if controls {
                if show(Panel::Controls) {
                    <Controls />
                } else if show(Panel::Crash) {
                    <Controls only_crash=true />
                }
                if show(Panel::Timeline) {
                    <Timeline />
                }
                if let Some(text) = ignored {
                    <p class="notice" role="status" data-testid="address-notice">{ text }</p>
                }
                if let Some(id) = &address.level {
                    <super::level::LevelPanel id={id.clone()} {embed} />
                }
                <StatusBar session={address.shows_session()} />
                <div class={classes!("stage", tabbed.then_some("tabbed"), tab.then_some("show-diagram"))}>
                    if tabbed {
                    <div class="tabs" role="tablist" aria-label={t(lang, "tab.label")}>
                        <button role="tab" data-testid="tab-tables" aria-selected={(!*tab).to_string()}
                            onclick={pick(false)}>{ t(lang, "tab.tables") }</button>
                        <button role="tab" data-testid="tab-diagram" aria-selected={tab.to_string()}
                            onclick={pick(true)}>{ t(lang, "tab.diagram") }</button>
                    </div>
                    }
                    if columns > 0 && *drawn >= Part::Columns {
                        <main class={classes!("columns", format!("n{columns}"))}>
                            if draws(Panel::Producer) { <ProducerColumn /> }
                            if draws(Panel::Wire) { <Wire /> }
                            if draws(Panel::Consumer) { <ConsumerColumn /> }
                        </main>
                    }
                    if draws(Panel::Diagram) { <DiagramPanel /> }
                </div>
            }
            if draws(Panel::Log) || draws(Panel::Sql) {
                <section class="panels">
                    if draws(Panel::Log) { <EventLog /> }
                    if draws(Panel::Sql) { <SqlPanel /> }
                </section>
            }
            if *drawn >= Part::Library && (show(Panel::Experiments) || side) {
                <section class="panels">
                    if draws(Panel::Experiments) { <Library /> }
                    // There from the first, empty, so that what it is given next moves nothing.
                    if side {
                        <div class="side">
                            if draws(Panel::Share) { <Share /> }
                            if draws(Panel::Explorer) { <Explorer /> }
                            if draws(Panel::Checker) { <RuleEditor /> <Checker /> }
                        </div>
                    }
                </section>
            }
            // The whole width: its table has a column per store and level, its lanes one per session.
            if draws(Panel::Postgres) { <super::postgres::OnPostgres /> }
            // With the tools, last: drawn earlier, it would be pushed down by each part drawn above it.
            if tools && !embed {
                <p class="shortcuts">{ t(lang, "shortcuts") }</p>
            }
        </ContextProvider<Ctx>>
        </>
    }
}

/// Whether the address holds a challenge (`#level=…`), which the page opens as it starts.
fn challenge_in_location() -> bool {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .is_some_and(|h| h.starts_with("#level="))
}

/// Whether a key press belongs to a text field rather than to the page.
fn typing(e: &web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

/// Where two things meet: the first to come waits for the second, and the work runs when both are there. The
/// columns' paint and their render's effects meet here: Yew runs a render's effects in a later task when the
/// render took over 16 ms (its scheduler yields to the browser), and by then the browser may have painted the
/// columns, so a frame asked for from the effects would be the next one, a frame late.
#[derive(Default)]
struct Meeting {
    arrived: std::cell::Cell<bool>,
    waiting: std::cell::RefCell<Option<Box<dyn FnOnce()>>>,
}

impl Meeting {
    /// The first side: runs what waits, if anything does.
    fn arrive(&self) {
        match self.waiting.take() {
            Some(f) => f(),
            None => self.arrived.set(true),
        }
    }

    /// The second side: `f` now if the first has arrived, else once it does.
    fn then(&self, f: impl FnOnce() + 'static) {
        if self.arrived.get() {
            f()
        } else {
            *self.waiting.borrow_mut() = Some(Box::new(f));
        }
    }
}

/// The parts the page draws in, a task each, in this order (`Playground`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Part {
    /// Yew's first render, which draws nothing (the browser compiles each of Yew's functions on its first call).
    Start,
    Controls,
    Columns,
    /// The page's own header, in the prerendered one's place.
    Header,
    Diagram,
    /// The log and the SQL.
    Panels,
    /// The twelve experiments.
    Library,
    /// Share, the explorer and the checker.
    Tools,
}

impl Part {
    /// The part that draws `panel`: the page draws a panel once it has drawn that part and its view shows it.
    fn drawing(panel: Panel) -> Part {
        match panel {
            Panel::Controls | Panel::Crash | Panel::Timeline => Part::Controls,
            Panel::Producer | Panel::Wire | Panel::Consumer => Part::Columns,
            Panel::Diagram => Part::Diagram,
            Panel::Log | Panel::Sql => Part::Panels,
            Panel::Experiments => Part::Library,
            Panel::Share | Panel::Explorer | Panel::Checker | Panel::Postgres => Part::Tools,
        }
    }

    /// The last part that draws something `address`'s view shows (the page itself, not an embed, draws its
    /// shortcuts line with the tools).
    fn last_shown(address: &Address) -> Part {
        let shown = Panel::ALL.into_iter().filter(|p| address.shows(*p));
        let last = shown.map(Part::drawing).max().unwrap_or(Part::Controls);
        if address.embed {
            last
        } else {
            Part::Tools
        }
    }

    fn next(self) -> Option<Part> {
        match self {
            Part::Start => Some(Part::Controls),
            Part::Controls => Some(Part::Columns),
            Part::Columns => Some(Part::Header),
            Part::Header => Some(Part::Diagram),
            Part::Diagram => Some(Part::Panels),
            Part::Panels => Some(Part::Library),
            Part::Library => Some(Part::Tools),
            Part::Tools => None,
        }
    }
}
