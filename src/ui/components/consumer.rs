//! The consumer column: apply buttons, the inbox with its states and reasons, the projection and the effect log.

use super::producer::{kind_of, schema_of};
use super::tables::{rows, Table};
use crate::ui::i18n::{t, tf};
use crate::ui::state::Act;
use crate::ui::Ctx;
use outbox_core::diagram::gloss;
use outbox_core::playground::Command;
use yew::prelude::*;

#[component]
pub fn ConsumerColumn() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let now = &model.snapshot.consumer;
    let before = &model.before.consumer;
    let down = model.down.is_some();
    let inbox_rows = rows(
        &now.inbox,
        &before.inbox,
        |r| {
            vec![
                r.event_id.clone(),
                r.seq.to_string(),
                gloss(lang, &kind_of(&r.body)),
                schema_of(&r.body),
                r.state.clone(),
                r.reason.clone().unwrap_or_default(),
            ]
        },
        |r| {
            (
                Some(format!("inbox-row-{}", r.event_id)),
                Some(r.state.clone()),
            )
        },
    );
    let effect_rows = rows(
        &now.effect,
        &before.effect,
        |r| {
            vec![
                r.event_id.clone(),
                r.seq.to_string(),
                gloss(lang, &r.kind),
                r.held.to_string(),
            ]
        },
        |_| (Some("effect-row".into()), None),
    );
    // Many flows (the ten exits' b01–b10): only those the consumer holds rows for, so the column fits a phone.
    let many = model.flows.len() > 3;
    let known = |flow: &String| {
        now.inbox.iter().any(|r| &r.flow_id == flow)
            || now.projection.iter().any(|p| &p.flow_id == flow)
    };
    let flows: Vec<&String> = model.flows.iter().filter(|f| !many || known(f)).collect();
    let process_all = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::ProcessAll))
    };
    html! {
        <section class="column consumer" aria-labelledby="consumer-h">
            <h2 id="consumer-h">{ t(lang, "col.consumer") }</h2>
            <p class="note" data-testid="consumer-note">{ t(lang, &format!("col.consumer.note.{}", model.ordering().name())) }</p>
            if !model.locked {
            <div class="buttons">
                { for flows.iter().map(|&flow| {
                    let onclick = {
                        let model = model.clone();
                        let flow = flow.clone();
                        Callback::from(move |_| model.act(Command::Apply(flow.clone())))
                    };
                    html! { <button data-testid={format!("apply-{flow}")} {onclick} disabled={down}>{ tf(lang, "btn.apply", &[flow]) }</button> }
                }) }
                <button data-testid="process-all" onclick={process_all} disabled={down}>{ t(lang, "btn.process_all") }</button>
            </div>
            }
            <Table caption={t(lang, "table.inbox")} headers={vec!["event_id", "seq", "kind", "schema", "state", "reason"]} rows={inbox_rows} />
            <div class="projections">
                <h3>{ t(lang, "table.projection") }</h3>
                { for flows.iter().map(|&flow| {
                    let p = now.projection.iter().find(|p| &p.flow_id == flow);
                    let changed = p.is_some() && before.projection.iter().find(|b| &b.flow_id == flow) != p;
                    let text = match p {
                        Some(p) => format!("{}: {} · last_seq={} · held={}", flow, gloss(lang, &p.state), p.last_seq, p.held),
                        None => format!("{flow}: {} · last_seq=0 · held=0", gloss(lang, "new")),
                    };
                    html! { <p translate="no" class={classes!("projection", changed.then_some("changed"))} data-testid={format!("projection-{flow}")}>{ text }</p> }
                }) }
            </div>
            <Table caption={t(lang, "table.effect")} headers={vec!["event_id", "seq", "kind", "held"]} rows={effect_rows} testid={Some("effect-log".to_owned())} />
        </section>
    }
}
