//! The checker panel's state: the knobs, the run in progress and its results, changed by messages.

use crate::ui::checker::Message;
use outbox_core::checker::{self, Config, Outcome};
use std::rc::Rc;
use yew::prelude::*;

/// One search as the page sees it.
#[derive(Clone, PartialEq)]
pub(super) enum Run {
    Running {
        counts: checker::Counts,
        elapsed_ms: u64,
    },
    Done(Rc<Outcome>),
    Stopped {
        counts: checker::Counts,
        elapsed_ms: u64,
    },
    Failed(String),
}

#[derive(Clone, PartialEq, Default)]
pub(super) struct Panel {
    /// The knobs; `schema2` as typed.
    pub(super) config: Config,
    pub(super) schema2: String,
    /// Bumped by each Check: messages of an older run are ignored.
    pub(super) id: u64,
    /// The configuration of the run shown, its result, and strict's on the same configuration (gallery).
    pub(super) ran: Option<Config>,
    pub(super) main: Option<Run>,
    pub(super) strict: Option<Run>,
    pub(super) gallery: Option<&'static str>,
    /// Each gallery entry's last result (the wrong turn's, strict's).
    pub(super) shelf: Vec<Shelved>,
    /// What a check link said the result was.
    pub(super) expect: Option<String>,
    /// Bumped whenever the page, not the reader, sets the knobs.
    pub(super) generation: u64,
    /// A check link too large to start by itself: its configuration and result, run by *Check*.
    pub(super) offered: Option<(Config, String)>,
    pub(super) error: Option<String>,
}

/// A gallery entry's last result: the wrong turn's and strict's on the same configuration.
#[derive(Clone, PartialEq)]
pub(super) struct Shelved {
    pub(super) name: &'static str,
    pub(super) wrong: Rc<Outcome>,
    pub(super) strict: Rc<Outcome>,
}

pub(super) enum Msg {
    Knobs(Config, String),
    /// A link's configuration, put in the knobs for the reader to start.
    Offered(Config, String),
    Started {
        id: u64,
        config: Config,
        gallery: Option<&'static str>,
        expect: Option<String>,
    },
    Worker {
        id: u64,
        strict: bool,
        message: Message,
    },
    Stop,
    Error(String),
}

impl Reducible for Panel {
    type Action = Msg;

    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let mut p = (*self).clone();
        match msg {
            Msg::Knobs(config, schema2) => {
                p.config = config;
                p.schema2 = schema2;
                p.error = None;
            }
            Msg::Offered(config, expect) => {
                p.schema2 = config.schema2.join(",");
                p.config = config.clone();
                p.offered = Some((config, expect));
                p.generation += 1;
                p.error = None;
            }
            Msg::Started {
                id,
                config,
                gallery,
                expect,
            } => {
                p.id = id;
                p.schema2 = config.schema2.join(",");
                p.config = config.clone();
                p.ran = Some(config);
                p.main = Some(Run::Running {
                    counts: Default::default(),
                    elapsed_ms: 0,
                });
                p.strict = gallery.map(|_| Run::Running {
                    counts: Default::default(),
                    elapsed_ms: 0,
                });
                p.gallery = gallery;
                p.expect = expect;
                p.offered = None;
                p.generation += 1;
                p.error = None;
            }
            Msg::Worker {
                id,
                strict,
                message,
            } => {
                if id != p.id {
                    return self;
                }
                let run = match message {
                    Message::Progress { counts, elapsed_ms } => Run::Running { counts, elapsed_ms },
                    Message::Done(o) => Run::Done(Rc::new(*o)),
                    Message::Failed(e) => Run::Failed(e),
                };
                let slot = if strict { &mut p.strict } else { &mut p.main };
                // A failed run keeps its first message (a worker that stops may say so twice), and a finished
                // one its result (another worker's last progress may arrive after it: their queues are apart).
                let late = matches!(run, Run::Running { .. }) && matches!(slot, Some(Run::Done(_)));
                if !matches!(slot, Some(Run::Failed(_))) && !late {
                    *slot = Some(run);
                }
                if let (Some(name), Some(Run::Done(wrong)), Some(Run::Done(strict))) =
                    (p.gallery, &p.main, &p.strict)
                {
                    p.shelf.retain(|s| s.name != name);
                    p.shelf.push(Shelved {
                        name,
                        wrong: wrong.clone(),
                        strict: strict.clone(),
                    });
                }
            }
            Msg::Stop => {
                let stop = |run: &mut Option<Run>| {
                    if let Some(Run::Running { counts, elapsed_ms }) = run {
                        *run = Some(Run::Stopped {
                            counts: *counts,
                            elapsed_ms: *elapsed_ms,
                        });
                    }
                };
                stop(&mut p.main);
                stop(&mut p.strict);
            }
            Msg::Error(e) => p.error = Some(e),
        }
        Rc::new(p)
    }
}
