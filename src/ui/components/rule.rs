//! The page's one rule (RULE.md), edited here and used by the player and the checker whenever their consumer is
//! *Your rule*: a textarea over the same text highlighted by the page, SQLite's verdict on it as it is typed
//! (a refusal inline, at the place SQLite names), its effect, and each built-in's rule as a starting point.

use crate::ui::i18n::{message, t, tf};
use crate::ui::state::{Action, RuleDraft};
use crate::ui::Ctx;
use outbox_core::playground::Command;
use outbox_core::protocol::Ordering;
use outbox_core::rule::{self, RuleEffect};
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// The built-ins a reader can start from, as RULE.md writes them.
pub const STARTS: [Ordering; 4] = [
    Ordering::Strict,
    Ordering::GreaterThan,
    Ordering::SkipBlocked,
    Ordering::EffectOutsideTx,
];

const KEYWORDS: [&str; 36] = [
    "select",
    "from",
    "where",
    "and",
    "or",
    "not",
    "case",
    "when",
    "then",
    "else",
    "end",
    "order",
    "by",
    "limit",
    "is",
    "null",
    "in",
    "as",
    "with",
    "desc",
    "asc",
    "group",
    "having",
    "join",
    "on",
    "like",
    "between",
    "exists",
    "distinct",
    "offset",
    "over",
    "partition",
    "left",
    "inner",
    "cross",
    "glob",
];

/// The rule's text as spans: keywords, `waiting`'s columns, strings, numbers and comments each with a class, and
/// the token at `error` (a byte offset SQLite named) marked.
fn highlight(text: &str, error: Option<usize>) -> Html {
    let b = text.as_bytes();
    let mut spans: Vec<Html> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let class = if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            "com"
        } else if c == b'\'' || c == b'"' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += 1;
            }
            i = (i + 1).min(b.len());
            "str"
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            "num"
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = text[start..i].to_ascii_lowercase();
            if KEYWORDS.contains(&word.as_str()) {
                "kw"
            } else if rule::COLUMNS.contains(&word.as_str()) || word == "waiting" {
                "col"
            } else {
                ""
            }
        } else {
            // Whatever else, up to the next token (a char boundary: the text may hold any character).
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            ""
        };
        let wrong = error.is_some_and(|at| (start..i.max(start + 1)).contains(&at));
        let class = classes!((!class.is_empty()).then_some(class), wrong.then_some("err"));
        spans.push(html! { <span {class}>{ &text[start..i] }</span> });
    }
    // A last line break would not be drawn otherwise, and the textarea above would be a line taller.
    html! { <>{ for spans }{ "\n" }</> }
}

#[component]
pub fn RuleEditor() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let draft = model.rule.clone();
    let checked = use_memo(draft.clone(), RuleDraft::check);
    // The select follows the draft's effect when the page sets it (a starting point, a link), even after the
    // reader has used it (a touched select ignores a later `selected` attribute).
    let effect_select = use_node_ref();
    {
        let select = effect_select.clone();
        use_effect_with(draft.effect, move |effect| {
            if let Some(s) = select.cast::<HtmlSelectElement>() {
                s.set_value(effect.name());
            }
        });
    }
    let on_text = {
        let model = model.clone();
        let effect = draft.effect;
        Callback::from(move |e: InputEvent| {
            let text = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            model.dispatch(Action::EditRule(text, effect));
        })
    };
    let on_effect = {
        let model = model.clone();
        let text = draft.text.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            let effect = RuleEffect::from_name(&v).unwrap_or_default();
            model.dispatch(Action::EditRule(text.to_string(), effect));
        })
    };
    let start_from = |ordering: Ordering| {
        let model = model.clone();
        Callback::from(move |_| {
            if let Some((sql, effect)) = rule::builtin(ordering) {
                model.dispatch(Action::EditRule(sql.to_owned(), effect));
            }
        })
    };
    let run_it = {
        let model = model.clone();
        let checked = checked.clone();
        Callback::from(move |_| {
            if let Ok(rule) = &*checked {
                crate::ui::switch_consumer(model.clone(), Command::SetRule(rule.clone()));
            }
        })
    };
    let (error, verdict) = match &*checked {
        Err(refusal) => (
            refusal.offset,
            html! {
                <p class="error" data-testid="rule-error">{ message(lang, &refusal.located(&draft.text)) }</p>
            },
        ),
        Ok(rule) => (
            None,
            html! {
                <p class="note" data-testid="rule-ok">{ t(lang, if rule.reads_arrival() { "rule.ok_arrival" } else { "rule.ok" }) }</p>
            },
        ),
    };
    let in_player = model.rule().is_some_and(|r| draft.is(r));
    let rows = (draft.text.lines().count() + 1).clamp(4, 40).to_string();
    html! {
        <section class="rule" aria-labelledby="rule-h" id="rule">
            <h2 id="rule-h">{ t(lang, "rule.title") }</h2>
            <p class="note">{ t(lang, "rule.note") }</p>
            <div class="rule-edit" translate="no">
                <pre class="rule-highlight" aria-hidden="true">{ highlight(&draft.text, error) }</pre>
                <textarea data-testid="rule-editor" aria-label={t(lang, "rule.label")} spellcheck="false"
                    autocomplete="off" autocapitalize="off" {rows} value={draft.text.to_string()} oninput={on_text}
                    aria-invalid={checked.is_err().then_some("true")} aria-describedby="rule-verdict" />
            </div>
            // Polite, not an alert: the verdict changes at every keystroke, and a screen reader should say it
            // once the reader pauses.
            <div id="rule-verdict" aria-live="polite" data-checked={draft.text.to_string()}>{ verdict }</div>
            <label>{ t(lang, "rule.effect") }{ " " }
                <select data-testid="rule-effect" onchange={on_effect} ref={effect_select}>
                    { for RuleEffect::ALL.into_iter().map(|e| html! {
                        <option value={e.name()} selected={draft.effect == e}>{ t(lang, &format!("rule.effect.{}", e.name())) }</option>
                    }) }
                </select>
            </label>
            <div class="buttons">
                <button data-testid="rule-use" onclick={run_it} disabled={checked.is_err() || in_player}>
                    { t(lang, if in_player { "rule.in_player" } else { "rule.use" }) }
                </button>
                <super::level::Challenge />
            </div>
            <p class="note">{ t(lang, "rule.starts") }</p>
            <div class="buttons">
                { for STARTS.into_iter().map(|o| html! {
                    <button data-testid={format!("rule-start-{}", o.name())} onclick={start_from(o)}>
                        { tf(lang, "rule.from", &[&t(lang, &format!("mode.{}", o.name()))]) }
                    </button>
                }) }
            </div>
        </section>
    }
}

/// The consumer select's *Your rule*: the player starts over with the page's rule; a refused one changes
/// nothing and says why. Out of line and cold: the controls are in the first load, this is not.
#[cold]
#[inline(never)]
pub fn run_in_player(model: &Ctx) {
    match model.rule.check() {
        Ok(rule) => crate::ui::switch_consumer(model.clone(), Command::SetRule(rule)),
        Err(refusal) => model.dispatch(Action::Error(tf(
            model.lang,
            "rule.refused",
            &[&message(model.lang, &refusal.located(&model.rule.text))],
        ))),
    }
}

/// *Edit as a rule*: the player's built-in consumer written as a rule in the editor (the rule itself, when the
/// player already runs one), and the editor in view.
#[cold]
#[inline(never)]
pub fn edit_as_rule(model: &Ctx) {
    edit_builtin(model, model.ordering());
}

/// A built-in consumer written as a rule in the editor (nothing for one without a rule, the player's own rule
/// included), and the editor in view, focused.
#[cold]
#[inline(never)]
pub fn edit_builtin(model: &Ctx, ordering: Ordering) {
    if let Some((sql, effect)) = rule::builtin(ordering) {
        model.dispatch(Action::EditRule(sql.to_owned(), effect));
    }
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("rule-h"))
    {
        el.scroll_into_view();
    }
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[data-testid=rule-editor]").ok().flatten())
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
    {
        let _ = el.focus();
    }
}

/// The page's rule for a run of the checker, or its refusal in the page's language.
#[cold]
#[inline(never)]
pub fn checked(model: &Ctx) -> Result<std::sync::Arc<outbox_core::rule::Rule>, String> {
    model.rule.check().map_err(|refusal| {
        tf(
            model.lang,
            "rule.refused",
            &[&message(model.lang, &refusal.located(&model.rule.text))],
        )
    })
}
