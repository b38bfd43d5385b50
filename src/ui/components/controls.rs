//! The control bar: consumer mode, support_v2, schema of new events, the crash picker, restart, reset, export.

use crate::ui::i18n::{t, tf};
use crate::ui::state::{Act, Action};
use crate::ui::Ctx;
use outbox_core::playground::Command;
use outbox_core::protocol::{Boundary, FaultTarget, Ordering, Role, Synchronous};

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The ten boundaries grouped as the picker shows them (§8).
pub const GROUPS: [(&str, &[Boundary]); 4] = [
    (
        "group.producer",
        &[
            Boundary::ProducerAfterState,
            Boundary::ProducerAfterOutbox,
            Boundary::ProducerAfterCommit,
        ],
    ),
    (
        "group.receive",
        &[Boundary::ReceiveAfterInsert, Boundary::ReceiveAfterCommit],
    ),
    (
        "group.relay",
        &[Boundary::RelayAfterMark, Boundary::RelayAfterMarkCommit],
    ),
    (
        "group.apply",
        &[
            Boundary::ApplyAfterProjection,
            Boundary::ApplyAfterEffect,
            Boundary::ApplyAfterCommit,
        ],
    ),
];

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// Only the crash picker and Restart (an embed's `view=crash`).
    #[prop_or_default]
    pub only_crash: bool,
}

#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let full = !props.only_crash;
    let open = use_state(|| false);
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let on_mode = {
        let model = model.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            let ordering = Ordering::from_name(&v).unwrap_or_default();
            if ordering == Ordering::Rule {
                super::rule::run_in_player(&model);
            } else {
                crate::ui::switch_consumer(model.clone(), Command::SetMode(ordering));
            }
        })
    };
    let on_crash = {
        let model = model.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            model.act(Command::Arm(Boundary::from_name(&v)));
        })
    };
    let on_v2 = {
        let model = model.clone();
        Callback::from(move |e: Event| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            model.act(Command::SetSupportV2(on));
        })
    };
    let on_schema2 = {
        let model = model.clone();
        Callback::from(move |e: Event| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            model.act(Command::SetSchema2(on));
        })
    };
    let fault = |target: FaultTarget| {
        let model = model.clone();
        Callback::from(move |e: Event| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            model.act(Command::Fault(target, on));
        })
    };
    let restart = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::Restart))
    };
    let reset = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::Reset))
    };
    let export = {
        let model = model.clone();
        Callback::from(move |_| match model.trace().to_json_pretty() {
            Ok(json) => {
                crate::ui::download("outbox-playground-trace.json", "application/json", &json)
            }
            Err(e) => model.dispatch(Action::Error(e)),
        })
    };
    let add_b = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::AddFlow("B".into())))
    };
    let edit_as_rule = {
        let model = model.clone();
        Callback::from(move |_| super::rule::edit_as_rule(&model))
    };
    let armed = model.armed.map(|b| b.name()).unwrap_or("");
    let ordering = model.ordering();
    let crash = html! {
        <label class="crash">{ t(lang, "label.crash") }
            <select data-testid="crash-select" onchange={on_crash}>
                <option value="" selected={model.armed.is_none()}>{ t(lang, "crash.none") }</option>
                { for GROUPS.iter().map(|(group, boundaries)| html! {
                    <optgroup label={t(lang, group)}>
                        { for boundaries.iter().map(|b| html! {
                            <option value={b.name()} selected={armed == b.name()}>
                                { format!("{}. {} — {}", b.number(), b.name(), t(lang, &format!("boundary.{}", b.name()))) }
                            </option>
                        }) }
                    </optgroup>
                }) }
            </select>
        </label>
    };
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    html! {
        <section class={classes!("controls", (*open).then_some("open"))} aria-label={t(lang, "settings.label")}>
            if full {
            // On a phone the player comes first and the settings fold behind this button (`www/style.css`); a
            // wider screen shows them all and no button.
            <button class="settings-toggle" data-testid="settings-toggle" aria-expanded={open.to_string()}
                aria-controls="settings settings-more" onclick={toggle}>{ t(lang, "settings.toggle") }</button>
            <span class="settings-now" translate="no">{ settings_now(&model) }</span>
            <div class="settings" id="settings">
            <label>{ t(lang, "label.mode") }
                <select data-testid="mode-select" onchange={on_mode}>
                    { for Ordering::ALL.into_iter().map(|o| html! {
                        <option value={o.name()} selected={ordering == o}>{ t(lang, &format!("mode.{}", o.name())) }</option>
                    }) }
                </select>
            </label>
            <button data-testid="rule-edit" onclick={edit_as_rule}>{ t(lang, "rule.edit") }</button>
            <label class="check">
                <input type="checkbox" data-testid="support-v2" checked={model.support_v2()} onchange={on_v2}
                    disabled={model.down.is_some()} />
                { t(lang, "label.support_v2") }
            </label>
            <label class="check">
                <input type="checkbox" data-testid="schema2" checked={model.schema2} onchange={on_schema2} />
                { t(lang, "label.schema2") }
            </label>
            <label class="check">
                <input type="checkbox" data-testid="fault-outbox_insert" checked={model.fault_active(FaultTarget::OutboxInsert)}
                    onchange={fault(FaultTarget::OutboxInsert)} disabled={model.down.is_some()} />
                { t(lang, "label.fault_outbox") }
            </label>
            <label class="check">
                <input type="checkbox" data-testid="fault-effect_insert" checked={model.fault_active(FaultTarget::EffectInsert)}
                    onchange={fault(FaultTarget::EffectInsert)} disabled={model.down.is_some()} />
                { t(lang, "label.fault_effect") }
            </label>
            { crash }
            </div>
            } else {
                { crash }
            }
            <button data-testid="restart" onclick={restart} class={classes!(model.down.is_some().then_some("urgent"))}>
                { t(lang, "btn.restart") }</button>
            if full {
            <div class="settings" id="settings-more">
            <Power />
            <button data-testid="reset" onclick={reset}>{ t(lang, "btn.reset") }</button>
            <button data-testid="export" onclick={export}>{ t(lang, "btn.export") }</button>
            if !model.flows.iter().any(|f| f == "B") {
                <button data-testid="add-flow-B" onclick={add_b}>{ tf(lang, "btn.add_flow", &["B"]) }</button>
            }
            </div>
            }
            if let Some(b) = model.armed {
                <p class="armed" role="status">{ tf(lang, "crash.armed", &[b.name()]) }</p>
            }
        </section>
    }
}

/// What the folded settings are set to, in the protocol's words: the consumer, `synchronous`, and whichever
/// switch is on.
fn settings_now(model: &Ctx) -> String {
    let mut now = vec![model.ordering().name(), model.synchronous().upper()];
    if model.support_v2() {
        now.push("support_v2");
    }
    if model.schema2 {
        now.push("schema 2");
    }
    if model.fault_active(FaultTarget::OutboxInsert)
        || model.fault_active(FaultTarget::EffectInsert)
    {
        now.push("trigger");
    }
    now.join(" · ")
}

/// `synchronous`, *Checkpoint* and *⚡ Power cut…*, whose menu asks whose machine loses power. The menu's
/// buttons are drawn only while it is open, so the first load carries none of what they do.
#[component]
fn Power() -> Html {
    let open = use_state(|| false);
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let on_sync = {
        let model = model.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            model.act(Command::SetSynchronous(
                Synchronous::from_name(&v).unwrap_or_default(),
            ));
        })
    };
    let checkpoint = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::Checkpoint))
    };
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    // Escape closes the menu, as a menu does.
    let on_key = {
        let open = open.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                open.set(false);
            }
        })
    };
    let sync = model.synchronous();
    html! {
        <>
            <label>{ "synchronous" }
                <select data-testid="synchronous-select" onchange={on_sync} title={t(lang, "sync.title")}>
                    { for Synchronous::ALL.into_iter().map(|m| html! {
                        <option value={m.name()} selected={sync == m}>{ t(lang, &format!("sync.{}", m.name())) }</option>
                    }) }
                </select>
            </label>
            <button data-testid="checkpoint" onclick={checkpoint} title={t(lang, "checkpoint.title")}>
                { t(lang, "btn.checkpoint") }</button>
            <div class="power" onkeydown={on_key}>
                <button data-testid="power-cut" aria-expanded={open.to_string()} aria-controls={(*open).then_some("power-menu")}
                    class={classes!((*open).then_some("open"))} onclick={toggle}>{ t(lang, "btn.power_cut") }</button>
                if *open {
                    { power_menu(&model, lang, open.clone()) }
                }
            </div>
        </>
    }
}

/// The power cut's three choices; choosing one closes the menu.
#[cold]
#[inline(never)]
fn power_menu(model: &Ctx, lang: crate::ui::i18n::Lang, open: UseStateHandle<bool>) -> Html {
    let cut = |name: &'static str, databases: &'static [Role]| {
        let model = model.clone();
        let open = open.clone();
        let onclick = Callback::from(move |_| {
            open.set(false);
            model.act(Command::PowerCut(databases.to_vec()));
        });
        html! {
            <button data-testid={format!("power-cut-{name}")} {onclick}>{ t(lang, &format!("power.{name}")) }</button>
        }
    };
    html! {
        <div class="menu" id="power-menu" role="group" aria-label={t(lang, "power.ask")}>
            <p>{ t(lang, "power.ask") }</p>
            { cut("producer", &[Role::Producer]) }
            { cut("consumer", &[Role::Consumer]) }
            { cut("both", &[Role::Producer, Role::Consumer]) }
        </div>
    }
}
