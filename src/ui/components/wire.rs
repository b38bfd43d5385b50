//! The wire: event cards in arrival order. Drag a card (HTML5 drag and drop) or use its move buttons to
//! reorder, duplicate one to model a resend, and deliver in lane order.

use crate::ui::i18n::{t, tf};
use crate::ui::state::Action;
use crate::ui::Ctx;
use web_sys::DragEvent;
use yew::prelude::*;

pub const ORDERS: [&str; 6] = ["123", "132", "213", "231", "312", "321"];

#[component]
pub fn Wire() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let dragging = use_state(|| None::<usize>);
    let down = model.down.is_some();
    let deliver_next = {
        let model = model.clone();
        Callback::from(move |_| model.dispatch(Action::DeliverNext))
    };
    let deliver_all = {
        let model = model.clone();
        Callback::from(move |_| model.dispatch(Action::DeliverAll))
    };
    let n = model.lane.len();
    html! {
        <section class="column wire" aria-labelledby="wire-h">
            <h2 id="wire-h">{ t(lang, "col.wire") }</h2>
            <p class="note">{ t(lang, "col.wire.note") }</p>
            <div class="orders" role="group" aria-label={t(lang, "wire.orders")}>
                <span>{ t(lang, "wire.orders") }</span>
                { for ORDERS.iter().map(|order| {
                    let onclick = {
                        let model = model.clone();
                        Callback::from(move |_| model.dispatch(Action::Order(order)))
                    };
                    let label: Vec<String> = order.chars().map(|c| c.to_string()).collect();
                    html! { <button data-testid={format!("order-{order}")} {onclick} disabled={down}>{ label.join("-") }</button> }
                }) }
            </div>
            <ol class="lane" data-testid="lane">
                if n == 0 {
                    <li class="empty">{ t(lang, "wire.empty") }</li>
                }
                { for model.lane.iter().enumerate().map(|(i, card)| {
                    let id = card.event_id.clone();
                    let ondragstart = {
                        let dragging = dragging.clone();
                        Callback::from(move |e: DragEvent| {
                            if let Some(dt) = e.data_transfer() {
                                let _ = dt.set_data("text/plain", &i.to_string());
                                dt.set_effect_allowed("move");
                            }
                            dragging.set(Some(i));
                        })
                    };
                    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
                    let ondrop = {
                        let dragging = dragging.clone();
                        let model = model.clone();
                        Callback::from(move |e: DragEvent| {
                            e.prevent_default();
                            let from = (*dragging).or_else(|| {
                                e.data_transfer()
                                    .and_then(|dt| dt.get_data("text/plain").ok())
                                    .and_then(|s| s.parse().ok())
                            });
                            dragging.set(None);
                            if let Some(from) = from {
                                model.dispatch(Action::MoveCard { from, to: i });
                            }
                        })
                    };
                    let ondragend = {
                        let dragging = dragging.clone();
                        Callback::from(move |_: DragEvent| dragging.set(None))
                    };
                    let act = |action: fn(usize) -> Action| {
                        let model = model.clone();
                        Callback::from(move |_: MouseEvent| model.dispatch(action(i)))
                    };
                    let left = act(|i| Action::MoveCard { from: i, to: i.saturating_sub(1) });
                    let right = act(|i| Action::MoveCard { from: i, to: i + 1 });
                    let dup = act(Action::DuplicateCard);
                    let remove = act(Action::RemoveCard);
                    let flow_class = format!("flow-{}", id.chars().next().unwrap_or('A'));
                    html! {
                        <li key={card.key} class={classes!("card", flow_class, (*dragging == Some(i)).then_some("dragging"))}
                            draggable="true" data-testid={format!("card-{id}")}
                            {ondragstart} {ondragover} {ondrop} {ondragend}>
                            <span class="pos">{ i + 1 }</span>
                            <span class="id">{ &id }</span>
                            <span class="card-buttons">
                                <button class="icon" onclick={left} disabled={i == 0} aria-label={tf(lang, "card.left", &[&id])} title={tf(lang, "card.left", &[&id])}>{ "↑" }</button>
                                <button class="icon" onclick={right} disabled={i + 1 == n} aria-label={tf(lang, "card.right", &[&id])} title={tf(lang, "card.right", &[&id])}>{ "↓" }</button>
                                <button class="icon" onclick={dup} aria-label={tf(lang, "card.duplicate", &[&id])} title={tf(lang, "card.duplicate", &[&id])}>{ "+" }</button>
                                <button class="icon" onclick={remove} aria-label={tf(lang, "card.remove", &[&id])} title={tf(lang, "card.remove", &[&id])}>{ "✕" }</button>
                            </span>
                        </li>
                    }
                }) }
            </ol>
            <div class="buttons">
                <button data-testid="deliver-next" onclick={deliver_next} disabled={n == 0 || down}>{ t(lang, "btn.deliver_next") }</button>
                <button data-testid="deliver-all" onclick={deliver_all} disabled={n == 0 || down}>{ t(lang, "btn.deliver_all") }</button>
            </div>
        </section>
    }
}
