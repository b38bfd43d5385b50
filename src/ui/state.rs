//! The page's state: the core's [`Playground`] façade plus what only the page has (the language, a sliced
//! replay's progress). The reducer maps each [`Action`] to one façade call and has no side effects; stopping a
//! sliced replay is the dispatcher's job ([`Act::act`]).

use super::i18n::Lang;
use outbox_core::playground::{Command, Playground, Replayed};
use outbox_core::rule::{Rule, RuleEffect, RuleRefusal};
use outbox_core::trace::ConsumerSetup;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;
use std::sync::Arc;
use yew::Reducible;

pub use outbox_core::playground::{Card, Entry, Notice, Preset, Replay};

#[derive(Clone, PartialEq)]
pub struct Model {
    pg: Playground,
    pub lang: Lang,
    /// A sliced replay in progress: steps done and steps in all.
    pub loading: Option<(usize, usize)>,
    /// The page's one rule (RULE.md), as the reader is writing it: the player and the checker take it from here.
    pub rule: RuleDraft,
    /// A level is open (`?level=N`): it offers the moves, and the player's own buttons are not drawn.
    pub locked: bool,
    /// How the producer writes: the page's is atomic; a level's may be the article's unsafe dual write, which the
    /// producer's column then says.
    pub producer: outbox_core::protocol::WriteMode,
}

/// The rule's text and effect in the editor. Checked only when the editor or a run needs it
/// ([`RuleDraft::check`]): start-up never runs the rule's code.
#[derive(Clone, PartialEq)]
pub struct RuleDraft {
    pub text: Rc<str>,
    pub effect: RuleEffect,
}

impl RuleDraft {
    pub fn new(text: &str, effect: RuleEffect) -> RuleDraft {
        RuleDraft {
            text: text.into(),
            effect,
        }
    }

    /// The text checked as RULE.md says: the rule, or its refusal.
    pub fn check(&self) -> Result<Arc<Rule>, RuleRefusal> {
        Rule::new(&self.text, self.effect)
    }

    /// Whether `rule` is this draft (a result computed with another is stale).
    pub fn is(&self, rule: &Rule) -> bool {
        *self.text == *rule.sql() && self.effect == rule.effect()
    }
}

impl Default for RuleDraft {
    /// The strict rule, where the page's rule starts.
    fn default() -> RuleDraft {
        RuleDraft::new(outbox_core::rule::STRICT, RuleEffect::Inside)
    }
}

/// The page reads the playground's fields directly: `model.entries`, `model.lane`, …
impl Deref for Model {
    type Target = Playground;
    fn deref(&self) -> &Playground {
        &self.pg
    }
}

impl DerefMut for Model {
    fn deref_mut(&mut self) -> &mut Playground {
        &mut self.pg
    }
}

pub enum Action {
    /// What the reader asked of the playground.
    Do(Command),
    SetLang(Lang),
    /// A sliced replay is at step `.0` of `.1` (`None` when it ends).
    Loading(Option<(usize, usize)>),
    /// A sliced replay finished: it replaces the session, keeping the settings the reader changed meanwhile.
    Replace(Box<Replayed>),
    /// Something failed outside the playground (a replay, a file, a link): say so, and stop showing progress.
    Error(String),
    /// The reader edited the rule's text or its effect.
    EditRule(String, RuleEffect),
    /// A level's referee: the step (0-based) at which the level's property broke, circled on the diagram.
    MarkBroken(Option<usize>),
    /// A level opened with this producer.
    Producer(outbox_core::protocol::WriteMode),
}

impl Model {
    /// A fresh playground whose databases open on first use or when the page asks (`Playground::unopened`):
    /// the player draws its empty tables before SQLite has run.
    pub fn unopened(setup: ConsumerSetup, lang: Lang) -> Model {
        Model {
            rule: setup
                .rule
                .as_ref()
                .map(|r| RuleDraft::new(r.sql(), r.effect()))
                .unwrap_or_default(),
            pg: Playground::unopened(setup),
            lang,
            loading: None,
            locked: false,
            producer: outbox_core::protocol::WriteMode::Atomic,
        }
    }
}

impl Model {
    /// A history that was loaded (a preset, a link, a file, a counterexample) brings its rule to the editor.
    fn take_rule_of_session(&mut self) {
        if let Some(rule) = self.pg.rule() {
            if !self.rule.is(rule) {
                self.rule = RuleDraft::new(rule.sql(), rule.effect());
            }
        }
    }
}

impl Reducible for Model {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut m = (*self).clone();
        match action {
            // Already there: nothing to replay, and the SQL panel keeps the step it shows.
            Action::Do(Command::Seek(n))
                if n.min(m.entries.len()) == m.pos && m.loading.is_none() =>
            {
                return self
            }
            Action::Do(command) => {
                if command.touches_db() {
                    m.loading = None;
                }
                let loads = matches!(command, Command::Load(_));
                m.pg.apply(command);
                if loads {
                    m.take_rule_of_session();
                }
            }
            Action::EditRule(text, effect) => m.rule = RuleDraft::new(&text, effect),
            Action::SetLang(lang) => m.lang = lang,
            Action::MarkBroken(step) => m.pg.broke_at = step,
            Action::Producer(mode) => m.producer = mode,
            Action::Loading(progress) => m.loading = progress,
            Action::Replace(replayed) => {
                m.pg = replayed.over(&m.pg);
                m.loading = None;
                m.take_rule_of_session();
            }
            Action::Error(message) => {
                m.loading = None;
                m.pg.apply(Command::Error(message));
            }
        }
        Rc::new(m)
    }
}

/// Dispatching a command: one that runs on the databases first stops a sliced replay still running (the
/// reader's action acts on the page as it is).
pub trait Act {
    fn act(&self, command: Command);
}

impl Act for yew::UseReducerHandle<Model> {
    fn act(&self, command: Command) {
        if command.touches_db() {
            super::cancel_loads();
        }
        self.dispatch(Action::Do(command));
    }
}
