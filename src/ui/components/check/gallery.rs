//! The gallery of the article's wrong turns, each on the smallest configuration where it breaks.

use crate::ui::i18n::{t, tf, Lang};
use outbox_core::checker::{Config, Finding};
use outbox_core::protocol::{Ordering, WriteMode};
use yew::prelude::*;

use super::panel::*;
use super::{launch, Workers};

/// A gallery entry: a wrong turn, the article's section, and the smallest configuration where it breaks.
pub(super) struct Entry {
    pub(super) name: &'static str,
    pub(super) section: &'static str,
    pub(super) consumer: Ordering,
    pub(super) producer: WriteMode,
    pub(super) shape: [u8; 4],
    pub(super) schema2: &'static str,
}

pub(super) const GALLERY: [Entry; 5] = [
    Entry {
        name: "unsafe_dual_write",
        section: "§2",
        consumer: Ordering::Strict,
        producer: WriteMode::UnsafeDualWrite,
        shape: [1, 2, 0, 1],
        schema2: "",
    },
    Entry {
        name: "dedupe_only",
        section: "§5",
        consumer: Ordering::DedupeOnly,
        producer: WriteMode::Atomic,
        shape: [1, 2, 0, 0],
        schema2: "",
    },
    Entry {
        name: "greater_than",
        section: "§5",
        consumer: Ordering::GreaterThan,
        producer: WriteMode::Atomic,
        shape: [1, 2, 0, 0],
        schema2: "",
    },
    Entry {
        name: "effect_outside_tx",
        section: "§5",
        consumer: Ordering::EffectOutsideTx,
        producer: WriteMode::Atomic,
        shape: [1, 2, 0, 1],
        schema2: "",
    },
    Entry {
        name: "skip_blocked",
        section: "§6",
        consumer: Ordering::SkipBlocked,
        producer: WriteMode::Atomic,
        shape: [1, 3, 0, 0],
        schema2: "A2",
    },
];

impl Entry {
    pub(super) fn config(&self) -> Config {
        let [flows, events, resends, crashes] = self.shape;
        Config {
            flows,
            events,
            resends,
            crashes,
            schema2: Config::parse_schema2(self.schema2),
            consumer: self.consumer,
            rule: None,
            producer: self.producer,
            ..Config::default()
        }
    }
}

pub(super) fn gallery_entry(
    entry: &'static Entry,
    p: &Panel,
    lang: Lang,
    running: bool,
    panel: &UseReducerHandle<Panel>,
    workers: &Workers,
    model: &crate::ui::Ctx,
) -> Html {
    let onclick = {
        let panel = panel.clone();
        let workers = workers.clone();
        Callback::from(move |_| launch(&panel, &workers, entry.config(), Some(entry.name), None))
    };
    let shelf = p.shelf.iter().find(|s| s.name == entry.name);
    let summary = shelf.map(|s| {
        let wrong = match &s.wrong.verdict {
            Some(Finding::Violated {
                property, trace, ..
            }) => tf(
                lang,
                "check.gallery.caught",
                &[property.name(), &trace.steps.len().to_string()],
            ),
            _ => t(lang, "check.gallery.missed"),
        };
        let strict = match s.strict.verdict {
            Some(Finding::Holds) => tf(
                lang,
                "check.gallery.strict",
                &[&s.strict.counts.states.to_string()],
            ),
            _ => t(lang, "check.strict_broken"),
        };
        format!("{wrong} {strict}")
    });
    // The consumer of the entry as a rule, in the editor: a starting point for the reader's own fix.
    let as_rule = outbox_core::rule::builtin(entry.consumer).map(|_| {
        let model = model.clone();
        let consumer = entry.consumer;
        (
            format!("rule-from-{}", consumer.name()),
            Callback::from(move |_| crate::ui::components::rule::edit_builtin(&model, consumer)),
        )
    });
    html! {
        <li>
            <button data-testid={format!("gallery-{}", entry.name)} {onclick} disabled={running}>
                { tf(lang, "check.gallery.entry", &[&t(lang, &format!("gallery.{}", entry.name)), entry.section]) }
            </button>
            if let Some((testid, onclick)) = as_rule {
                { " " }<button data-testid={testid} {onclick}>{ t(lang, "rule.edit") }</button>
            }
            <span class="note"> { t(lang, &format!("gallery.{}.what", entry.name)) }</span>
            if let Some(s) = summary {
                <span data-testid={format!("gallery-{}-result", entry.name)} class="gallery-result">{ s }</span>
            }
        </li>
    }
}
