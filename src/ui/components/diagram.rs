//! The space-time diagram of the session (drawn by `outbox_core::diagram`), only the rows on screen; pointing
//! at a row shows its step, result and SQL below it; a click or Enter travels there; *Save* writes the
//! standalone SVG or a PNG.
//! One delegated handler on the scrolling box serves every row (pointing, click, Enter), and a redraw puts the
//! keyboard's focus back on the row that had it.

use super::log::{reason, result_label};
use crate::ui::i18n::{t, tf};
use crate::ui::save_png;
use crate::ui::Ctx;
use outbox_core::diagram::{self, Diagram, Style, HEADER, ROW, WIDTH};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Rows drawn beyond those on screen, and the step by which the drawn window moves: scrolling within a block
/// changes nothing in the DOM.
const BLOCK: usize = 16;

/// The row index of the `data-step` element at or above the event's target.
fn step_of(e: &Event) -> Option<usize> {
    let el = e.target()?.dyn_into::<web_sys::Element>().ok()?;
    let row = el.closest("[data-step]").ok()??;
    row.get_attribute("data-step")?.parse().ok()
}

fn dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

#[component]
pub fn DiagramPanel() -> Html {
    let model = use_context::<Ctx>();
    let window = use_state(|| (0usize, 3 * BLOCK));
    let pointed = use_state(|| None::<usize>);
    let scroller = use_node_ref();
    // The row that had the keyboard's focus: a redraw replaces the rows, so focus is put back on it.
    let focused = use_mut_ref(|| None::<usize>);
    {
        let (scroller, focused) = (scroller.clone(), focused.clone());
        use_effect(move || {
            let Some(i) = *focused.borrow() else { return };
            let Some(el) = scroller.cast::<web_sys::Element>() else {
                return;
            };
            let lost = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .is_none_or(|a| a.local_name() == "body");
            if lost {
                if let Ok(Some(row)) = el.query_selector(&format!("g[data-step=\"{i}\"]")) {
                    if let Ok(row) = row.dyn_into::<web_sys::SvgElement>() {
                        let _ = row.focus();
                    }
                }
            }
        });
    }
    let pos = model.as_ref().map_or(0, |m| m.pos);
    {
        // Keep the current step in view when time travel moves it.
        let scroller = scroller.clone();
        use_effect_with(pos, move |pos| {
            if let Some(el) = scroller.cast::<web_sys::Element>() {
                let scale = scale(&el);
                let y = ((HEADER + pos.saturating_sub(1) * ROW) as f64 * scale) as i32;
                let top = el.scroll_top();
                let h = el.client_height();
                if y < top || y + (ROW as f64 * scale) as i32 > top + h {
                    el.set_scroll_top((y - h / 2).max(0));
                }
            }
        });
    }
    let Some(model) = model else {
        return html! {};
    };
    let lang = model.lang;
    let n = model.entries.len();
    let onscroll = {
        let window = window.clone();
        Callback::from(move |e: Event| {
            let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            else {
                return;
            };
            let scale = scale(&el);
            let first = diagram::row_at((el.scroll_top() as f64 / scale) as usize);
            let count = (el.client_height() as f64 / (ROW as f64 * scale)) as usize + 1;
            let from = (first / BLOCK).saturating_sub(1) * BLOCK;
            let to = ((first + count) / BLOCK + 2) * BLOCK;
            if *window != (from, to) {
                window.set((from, to));
            }
        })
    };
    let go = {
        let model = model.clone();
        move |i: usize| crate::ui::seek(model.clone(), i + 1)
    };
    let onclick = {
        let go = go.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(i) = step_of(&e) {
                go(i);
            }
        })
    };
    let onkeydown = Callback::from(move |e: KeyboardEvent| {
        if matches!(e.key().as_str(), "Enter" | " ") {
            if let Some(i) = step_of(&e) {
                e.prevent_default();
                go(i);
            }
        }
    });
    let point = {
        let pointed = pointed.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = step_of(&e) {
                if *pointed != Some(i) {
                    pointed.set(Some(i));
                }
            }
        })
    };
    let on_over = {
        let point = point.clone();
        Callback::from(move |e: MouseEvent| point.emit(e.into()))
    };
    let on_focus = {
        let focused = focused.clone();
        Callback::from(move |e: FocusEvent| {
            *focused.borrow_mut() = step_of(&e);
            point.emit(e.into());
        })
    };
    let on_blur = {
        let scroller = scroller.clone();
        Callback::from(move |e: FocusEvent| {
            // Focus moved elsewhere on purpose (a row removed by a redraw has no next target).
            let inside = e
                .related_target()
                .and_then(|t| t.dyn_into::<web_sys::Node>().ok())
                .zip(scroller.cast::<web_sys::Node>())
                .is_some_and(|(t, s)| s.contains(Some(&t)));
            if e.related_target().is_some() && !inside {
                *focused.borrow_mut() = None;
            }
        })
    };
    // A window left over from a longer session draws its last rows until the reader scrolls again.
    let (from, to) = match *window {
        (from, _) if from >= n && n > 0 => (n.saturating_sub(3 * BLOCK), n),
        w => w,
    };
    let svg = diagram::svg(&Diagram::of(&model, lang), Style::Page { from, to });
    let save = |png: bool| {
        let model = model.clone();
        Callback::from(move |_| {
            let file = diagram::svg(
                &Diagram::of(&model, model.lang),
                Style::File { dark: dark() },
            );
            let name = format!("outbox-playground-{}", model.lang.tag());
            if png {
                save_png(
                    &file,
                    &format!("{name}.png"),
                    WIDTH as u32,
                    diagram::height(model.entries.len()) as u32,
                );
            } else {
                crate::ui::download(&format!("{name}.svg"), "image/svg+xml", &file);
            }
        })
    };
    let detail = pointed
        .and_then(|i| model.entries.get(i).map(|e| (i, e)))
        .map(|(i, e)| {
            let sql: &[outbox_core::protocol::SqlLine] = if !e.report.sql.is_empty() {
                &e.report.sql
            } else if i + 1 == model.pos {
                &model.sql
            } else {
                &[]
            };
            html! {
                <div class="diagram-detail" data-testid="diagram-detail">
                    <p>
                        <strong>{ tf(lang, "diagram.step", &[&(i + 1).to_string()]) }</strong>{ " " }
                        <code translate="no">{ diagram::describe(&e.step) }</code>{ " → " }
                        <strong translate="no">{ result_label(lang, &e.report) }</strong>
                        <span class="why">{ format!(" — {}", reason(lang, model.ordering(), &e.report)) }</span>
                    </p>
                    if sql.is_empty() {
                        <p class="note">{ t(lang, "diagram.sql_hint") }</p>
                    } else {
                        <ol class="statements">
                            { for sql.iter().map(|l| html! {
                                <li class={l.db.name()}><span class="db" translate="no">{ l.db.name() }</span>
                                <code translate="no">{ super::log::sql_line(lang, &l.sql) }</code></li>
                            }) }
                        </ol>
                    }
                </div>
            }
        });
    html! {
        <section class="diagram-panel" aria-labelledby="diagram-h">
            <div class="diagram-head">
                <h2 id="diagram-h">{ t(lang, "diagram.title") }</h2>
                <button data-testid="diagram-export" onclick={save(false)} disabled={n == 0}>{ t(lang, "diagram.save_svg") }</button>
                <button data-testid="diagram-export-png" onclick={save(true)} disabled={n == 0}>{ t(lang, "diagram.save_png") }</button>
            </div>
            <p class="note">{ t(lang, "diagram.help") }{ " " }<a href="#log-h">{ t(lang, "diagram.text") }</a></p>
            <div class="diagram-scroll" ref={scroller} onscroll={onscroll} onclick={onclick}
                onkeydown={onkeydown} onmouseover={on_over} onfocusin={on_focus} onfocusout={on_blur}>
                <div class="diagram-body">
                    { Html::from_html_unchecked(AttrValue::from(diagram::lanes(lang))) }
                    { Html::from_html_unchecked(AttrValue::from(svg)) }
                </div>
            </div>
            { for detail }
        </section>
    }
}

/// How many screen pixels one unit of the diagram takes (the SVG is scaled to its box's width).
fn scale(scroller: &web_sys::Element) -> f64 {
    let width = scroller
        .first_element_child()
        .map_or(WIDTH as f64, |svg| svg.get_bounding_client_rect().width());
    if width > 0.0 {
        width / WIDTH as f64
    } else {
        1.0
    }
}
