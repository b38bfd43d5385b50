//! The wire: event cards in arrival order. Drag a card (HTML5 drag and drop) or use its move buttons to
//! reorder, duplicate one to model a resend, and deliver in lane order.

use crate::ui::i18n::{t, tf};
use crate::ui::state::Act;
use crate::ui::Ctx;
use outbox_core::playground::Command;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, KeyboardEvent, PointerEvent};
use yew::prelude::*;

pub const ORDERS: [&str; 6] = ["123", "132", "213", "231", "312", "321"];

#[component]
pub fn Wire() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let dragging = use_state(|| None::<usize>);
    // Touch drag (HTML5 drag and drop does not fire on phones): the card a finger holds follows it, and the
    // card it would land beside shows the gap.
    let touch = use_state(|| None::<Touch>);
    // The same, as the handlers see it between renders (moves come faster than frames).
    let touch_live = use_mut_ref(|| None::<Touch>);
    // After a keyboard move, focus follows the card; the live region says where it went.
    let focus_key = use_state(|| None::<u32>);
    let announcement = use_state(String::new);
    {
        let focus_key = *focus_key;
        use_effect_with((model.lane.clone(), focus_key), move |(_, key)| {
            if let Some(key) = key {
                let selector = format!("[data-card-key=\"{key}\"]");
                if let Some(el) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.query_selector(&selector).ok().flatten())
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = el.focus();
                }
            }
        });
    }
    let down = model.down.is_some();
    let deliver_next = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::DeliverNext))
    };
    let deliver_all = {
        let model = model.clone();
        Callback::from(move |_| model.act(Command::DeliverAll))
    };
    let n = model.lane.len();
    html! {
        <section class="column wire" aria-labelledby="wire-h">
            <h2 id="wire-h">{ t(lang, "col.wire") }</h2>
            // In a level the reader's moves are the relays: the cards show what is in flight, and do not move.
            <p class="note">{ t(lang, if model.locked { "col.wire.note.level" } else { "col.wire.note" }) }</p>
            if !model.locked {
            <div class="orders" role="group" aria-label={t(lang, "wire.orders")}>
                <span>{ t(lang, "wire.orders") }</span>
                { for ORDERS.iter().map(|order| {
                    let onclick = {
                        let model = model.clone();
                        Callback::from(move |_| model.act(Command::Order(order)))
                    };
                    let label: Vec<String> = order.chars().map(|c| c.to_string()).collect();
                    html! { <button data-testid={format!("order-{order}")} {onclick} disabled={down}>{ label.join("-") }</button> }
                }) }
            </div>
            }
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
                                model.act(Command::MoveCard { from, to: i });
                            }
                        })
                    };
                    let ondragend = {
                        let dragging = dragging.clone();
                        Callback::from(move |_: DragEvent| dragging.set(None))
                    };
                    let on = |command: fn(usize) -> Command| {
                        let model = model.clone();
                        Callback::from(move |_: MouseEvent| model.act(command(i)))
                    };
                    let left = on(|i| Command::MoveCard { from: i, to: i.saturating_sub(1) });
                    let right = on(|i| Command::MoveCard { from: i, to: i + 1 });
                    let dup = on(Command::DuplicateCard);
                    let remove = on(Command::RemoveCard);
                    let flow_class = format!("flow-{}", id.chars().next().unwrap_or('A'));
                    let onkeydown = {
                        let model = model.clone();
                        let focus_key = focus_key.clone();
                        let announcement = announcement.clone();
                        let id = id.clone();
                        let key = card.key;
                        Callback::from(move |e: KeyboardEvent| {
                            let to = match e.key().as_str() {
                                "ArrowUp" | "ArrowLeft" if i > 0 => i - 1,
                                "ArrowDown" | "ArrowRight" if i + 1 < n => i + 1,
                                "Home" => 0,
                                "End" => n - 1,
                                _ => return,
                            };
                            e.prevent_default();
                            model.act(Command::MoveCard { from: i, to });
                            focus_key.set(Some(key));
                            announcement.set(tf(lang, "card.moved", &[&id, &(to + 1).to_string()]));
                        })
                    };
                    // Each handler writes the drag where the next one reads it, then shows it.
                    let show = {
                        let touch = touch.clone();
                        let touch_live = touch_live.clone();
                        move |t: Option<Touch>| {
                            *touch_live.borrow_mut() = t;
                            touch.set(t);
                        }
                    };
                    let onpointerdown = {
                        let show = show.clone();
                        Callback::from(move |e: PointerEvent| {
                            let on_button = e
                                .target()
                                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                                .is_some_and(|el| el.closest("button").ok().flatten().is_some());
                            if e.pointer_type() == "mouse" || on_button {
                                return;
                            }
                            // The card keeps the finger's moves wherever it goes (the card itself: Yew's listeners
                            // sit on the page's root, which is the event's current target).
                            if let Some(card) = e
                                .target()
                                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                                .and_then(|el| el.closest("[data-card-index]").ok().flatten())
                            {
                                let _ = card.set_pointer_capture(e.pointer_id());
                            }
                            show(Some(Touch { from: i, y0: e.client_y(), dy: 0, over: None }));
                        })
                    };
                    let onpointermove = {
                        let show = show.clone();
                        let touch_live = touch_live.clone();
                        Callback::from(move |e: PointerEvent| {
                            let Some(t) = *touch_live.borrow() else { return };
                            e.prevent_default();
                            let over = card_at(e.client_y(), n, t.from);
                            show(Some(Touch { dy: e.client_y() - t.y0, over, ..t }));
                        })
                    };
                    let onpointerup = {
                        let show = show.clone();
                        let touch_live = touch_live.clone();
                        let model = model.clone();
                        Callback::from(move |e: PointerEvent| {
                            let Some(t) = *touch_live.borrow() else { return };
                            show(None);
                            // Where the finger was lifted, whatever the last frame showed.
                            if let Some(to) = card_at(e.client_y(), n, t.from) {
                                model.act(Command::MoveCard { from: t.from, to });
                            }
                        })
                    };
                    let onpointercancel = {
                        let show = show.clone();
                        Callback::from(move |_: PointerEvent| show(None))
                    };
                    let lifted = touch.filter(|t| t.from == i);
                    let gap = touch.and_then(|t| t.over.filter(|o| *o == i && *o != t.from).map(|o| {
                        if o < t.from { "drop-above" } else { "drop-below" }
                    }));
                    let style = lifted.map(|t| format!("transform: translateY({}px)", t.dy));
                    let movable = !model.locked;
                    let (ondragstart, ondrop, ondragend, onkeydown) = (
                        movable.then_some(ondragstart),
                        movable.then_some(ondrop),
                        movable.then_some(ondragend),
                        movable.then_some(onkeydown),
                    );
                    let (onpointerdown, onpointermove, onpointerup) = (
                        movable.then_some(onpointerdown),
                        movable.then_some(onpointermove),
                        movable.then_some(onpointerup),
                    );
                    html! {
                        <li key={card.key} class={classes!("card", flow_class, (*dragging == Some(i)).then_some("dragging"),
                            lifted.is_some().then_some("lifted"), gap)} {style}
                            draggable={movable.to_string()} data-testid={format!("card-{id}")} tabindex="0"
                            data-card-key={card.key.to_string()} data-card-index={i.to_string()}
                            aria-label={tf(lang, "card.label", &[&id, &(i + 1).to_string(), &n.to_string()])}
                            aria-roledescription={t(lang, "card.role")}
                            {ondragstart} {ondragover} {ondrop} {ondragend} {onkeydown} {onpointerdown} {onpointermove} {onpointerup}
                            {onpointercancel}>
                            <span class="pos">{ i + 1 }</span>
                            <span class="id" translate="no">{ &id }</span>
                            if !model.locked {
                            <span class="card-buttons">
                                <button class="icon" onclick={left} disabled={i == 0} aria-label={tf(lang, "card.left", &[&id])} title={tf(lang, "card.left", &[&id])}>{ "↑" }</button>
                                <button class="icon" onclick={right} disabled={i + 1 == n} aria-label={tf(lang, "card.right", &[&id])} title={tf(lang, "card.right", &[&id])}>{ "↓" }</button>
                                <button class="icon" onclick={dup} aria-label={tf(lang, "card.duplicate", &[&id])} title={tf(lang, "card.duplicate", &[&id])}>{ "+" }</button>
                                <button class="icon" onclick={remove} aria-label={tf(lang, "card.remove", &[&id])} title={tf(lang, "card.remove", &[&id])}>{ "✕" }</button>
                            </span>
                            }
                        </li>
                    }
                }) }
            </ol>
            <p class="sr-only" aria-live="polite" data-testid="announce">{ (*announcement).clone() }</p>
            if !model.locked {
            <div class="buttons">
                <button data-testid="deliver-next" onclick={deliver_next} disabled={n == 0 || down}>{ t(lang, "btn.deliver_next") }</button>
                <button data-testid="deliver-all" onclick={deliver_all} disabled={n == 0 || down}>{ t(lang, "btn.deliver_all") }</button>
            </div>
            }
        </section>
    }
}

/// A finger's drag of card `from`: where it went down, how far it has moved, and the card it is over.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Touch {
    from: usize,
    y0: i32,
    dy: i32,
    over: Option<usize>,
}

/// The card (other than `from`, which follows the finger) whose box holds the height `y`.
fn card_at(y: i32, n: usize, from: usize) -> Option<usize> {
    let document = web_sys::window()?.document()?;
    (0..n).filter(|&j| j != from).find(|j| {
        document
            .query_selector(&format!("[data-card-index=\"{j}\"]"))
            .ok()
            .flatten()
            .map(|el| el.get_bounding_client_rect())
            .is_some_and(|r| r.top() <= f64::from(y) && f64::from(y) <= r.bottom())
    })
}
