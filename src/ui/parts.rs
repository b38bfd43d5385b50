//! The parts the page draws in, a task each (`Part`), and the hook that steps through them (`use_parts`).

use crate::ui::address::{Address, Panel};
use crate::ui::i18n::tf;
use crate::ui::state::{Action, Model};
use yew::prelude::*;

/// The part the page has come to. The page draws in parts, a task each, each shorter than one would be: nothing
/// at first (Yew's own code runs for the first time, and the browser compiles each function on its first call),
/// the controls, the columns (producer, wire, consumer), below the prerendered header, which stands until then;
/// once the player (controls and columns) has painted, the databases open, in tasks of their own; then the
/// page's own header in the prerendered one's place, the diagram, the log and SQL, then the tools below them
/// (the experiments, then share, explorer and checker), which are out of view at first (a reader's action
/// before the databases are open opens them itself). Each part only adds below or beside what is drawn, or
/// replaces the header with an identical one (the diagram's column is sized by the grid, not by it), so nothing
/// moves. The tools' code is not in the first load of a split build: they wait for the rest of the module,
/// asked for once the player is interactive. `replays`: a preset's or a link's history replays on databases of
/// its own, opened by the page's first render.
#[hook]
pub fn use_parts(model: &UseReducerHandle<Model>, replays: bool) -> Part {
    let drawn = use_state(|| Part::Start);
    let columns_painted = use_memo((), |_| Meeting::default());
    {
        let drawn = drawn.clone();
        let model = model.clone();
        let columns_painted = columns_painted.clone();
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
    *drawn
}

/// Everything this view shows is drawn, and no replay in slices (a long link's) is still filling it in: an
/// embed's frame is sized from now on (`www/page-start.js`), to its whole height, rather than at each part (each
/// would move the article around it).
#[hook]
pub fn use_view_drawn(drawn: Part, address: &Address, loading: bool) {
    // A level's view is drawn once its parts are and the level has opened with its player showing its history:
    // the level's panel says the second.
    let done = drawn >= Part::last_shown(address) && !loading;
    let level = address.level.is_some();
    use_effect_with(done, move |&done| {
        if done && level {
            crate::ui::level_view_drawn(1);
        } else if done {
            crate::ui::mark_view_drawn();
        }
    });
}

/// Where two things meet: the first to come waits for the second, and the work runs when both are there. The
/// columns' paint and their render's effects meet here: Yew runs a render's effects in a later task when the
/// render took over 16 ms (its scheduler yields to the browser), and by then the browser may have painted the
/// columns, so a frame asked for from the effects would be the next one, a frame late.
#[derive(Default)]
pub struct Meeting {
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
pub enum Part {
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
    pub fn drawing(panel: Panel) -> Part {
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
    pub fn last_shown(address: &Address) -> Part {
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
