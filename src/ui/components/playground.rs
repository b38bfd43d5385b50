//! The page's layout: header, controls, the three columns (producer, wire, consumer), the log and SQL panels,
//! the tools; what it does as it starts and on input is in named hooks (`hooks.rs`, `parts.rs`).

use super::{
    check::Checker, consumer::ConsumerColumn, controls::Controls, diagram::DiagramPanel,
    explore::Explorer, library::Library, log::EventLog, log::SqlPanel, log::StatusBar,
    producer::ProducerColumn, rule::RuleEditor, share::Share, timeline::Timeline, wire::Wire,
};
use crate::ui::address::{Address, Panel};
use crate::ui::hooks::{
    use_document_lang, use_hash_links, use_lang_switch, use_opening, use_shortcuts,
};
use crate::ui::i18n::{t, tf};
use crate::ui::parts::{use_parts, use_view_drawn, Part};
use crate::ui::state::Model;
use crate::ui::Ctx;
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
    use_opening(
        &model,
        props.link_trace.clone(),
        props.address.preset,
        props.address.step,
    );
    use_document_lang(lang);
    let switch_lang = use_lang_switch(&model);
    use_shortcuts(&model);
    use_hash_links(&model);
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
    // The part the page has come to: it draws in parts, a task each, so that nothing moves (`parts.rs`).
    let drawn = use_parts(
        &model,
        props.link_trace.is_some() || props.address.preset.is_some(),
    );
    use_view_drawn(drawn, address, model.loading.is_some());
    // Whether the page has come to the part that draws `panel`, and its view shows it.
    let draws = |panel: Panel| show(panel) && drawn >= Part::drawing(panel);
    // The page's own header replaces the prerendered one in the render that draws it, so in the same task: not
    // in an effect, which Yew may run a task later, after a frame that showed no header and moved the page up.
    // For the same reason the header is this component's own node, outside the context provider: a child's
    // nodes are drawn by a later runnable, and Yew's scheduler may yield to the browser between the two.
    let header = drawn >= Part::Header;
    let prerendered = use_mut_ref(|| true);
    if header && *prerendered.borrow() {
        *prerendered.borrow_mut() = false;
        crate::ui::remove_first_screen();
    }
    let controls = drawn >= Part::Controls;
    let tools = drawn >= Part::Tools;
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
                    if columns > 0 && drawn >= Part::Columns {
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
            if drawn >= Part::Library && (show(Panel::Experiments) || side) {
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
