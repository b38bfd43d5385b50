//! The producer column: advance buttons, the `flow` table and the `outbox` with its `accepted` flags.

use super::tables::{rows, Table};
use crate::ui::i18n::{t, tf};
use crate::ui::state::Act;
use crate::ui::Ctx;
use outbox_core::diagram::gloss;
use outbox_core::playground::Command;
use yew::prelude::*;

#[component]
pub fn ProducerColumn() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let now = &model.snapshot.producer;
    let before = &model.before.producer;
    let flow_rows = rows(
        &now.flow,
        &before.flow,
        |r| {
            vec![
                r.flow_id.clone(),
                r.seq.to_string(),
                gloss(lang, &r.state),
                r.amount.to_string(),
            ]
        },
        |_| (None, None),
    );
    let outbox_rows = rows(
        &now.outbox,
        &before.outbox,
        |r| {
            vec![
                r.event_id.clone(),
                r.seq.to_string(),
                gloss(lang, &kind_of(&r.body)),
                r.accepted.to_string(),
            ]
        },
        |r| (Some(format!("outbox-row-{}", r.event_id)), None),
    );
    html! {
        <section class="column producer" aria-labelledby="producer-h">
            <h2 id="producer-h">{ t(lang, "col.producer") }</h2>
            <p class="note" data-testid="producer-note">{ t(lang, match model.producer {
                outbox_core::protocol::WriteMode::Atomic => "col.producer.note",
                outbox_core::protocol::WriteMode::UnsafeDualWrite => "col.producer.note.unsafe",
            }) }</p>
            if !model.locked {
            <div class="buttons">
                { for model.flows.iter().map(|flow| {
                    let next = model.next_transition(flow);
                    let label = match &next {
                        Some(outbox_core::trace::Step::Advance(w)) => format!("{} ({} {})", tf(lang, "btn.advance", &[flow]), w.event_id, gloss(lang, &w.kind)),
                        _ => tf(lang, "btn.advance.done", &[flow]),
                    };
                    let onclick = {
                        let model = model.clone();
                        let flow = flow.clone();
                        Callback::from(move |_| model.act(Command::Advance(flow.clone())))
                    };
                    html! {
                        <button data-testid={format!("advance-{flow}")} {onclick}
                            disabled={next.is_none() || model.down.is_some()}>{ label }</button>
                    }
                }) }
            </div>
            }
            <Table caption={t(lang, "table.flow")} headers={vec!["flow_id", "seq", "state", "amount"]} rows={flow_rows} />
            <Table caption={t(lang, "table.outbox")} headers={vec!["event_id", "seq", "kind", "accepted"]} rows={outbox_rows} />
        </section>
    }
}

/// The `kind` inside a stored body, for display.
pub fn kind_of(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_owned))
        .unwrap_or_default()
}

/// The `schema` inside a stored body, for display.
pub fn schema_of(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("schema").map(|s| s.to_string()))
        .unwrap_or_default()
}
