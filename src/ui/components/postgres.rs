//! The panel *On PostgreSQL*: the interleavings' table (hazard × SQLite and each isolation level) and, for the
//! cell picked, its interleaving drawn as lanes, one per session, each statement with its answer. Shown from the
//! recording `experiments interleave --all --record` made on a real server (`specs/isolation/interleavings.json`,
//! which `tests/interleave.rs` records again and compares), bundled with the panel's words into `postgres.json`
//! by the build and fetched as the panel opens: not in the first load, and never run in the page.

use super::level::fetch;
use crate::ui::i18n::{fill, message, t, Lang};
use crate::ui::Ctx;
use serde_json::Value;
use std::rc::Rc;
use yew::prelude::*;

/// The columns, as the recording names them.
const COLUMNS: [&str; 4] = [
    "sqlite",
    "read-committed",
    "repeatable-read",
    "serializable",
];

#[derive(Clone, PartialEq)]
enum Status {
    Closed,
    Loading,
    Failed(String),
    Ready(Rc<Value>),
}

/// The document's words in `lang` (the key itself if missing: a build checks they are all there).
fn w(doc: &Value, lang: Lang, key: &str) -> String {
    let tag = if lang == Lang::Zh { "zh" } else { "en" };
    doc["words"][tag][key].as_str().unwrap_or(key).to_owned()
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// A hazard's name and form: `late-commit-wrong` → (`late-commit`, `wrong`).
fn parts(hazard: &str) -> (&str, &str) {
    hazard.rsplit_once('-').unwrap_or((hazard, ""))
}

#[component]
pub fn OnPostgres() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let status = use_state(|| Status::Closed);
    // The cell picked: its row and column; by default the first that breaks.
    let picked = use_state(|| None::<(usize, usize)>);
    // Fetched the first time the details open.
    let ontoggle = {
        let status = status.clone();
        Callback::from(move |e: Event| {
            // `open` read as a property: web-sys's details element is one more feature for one boolean.
            let open = e
                .target()
                .and_then(|t| js_sys::Reflect::get(&t, &"open".into()).ok())
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            if !open || *status != Status::Closed {
                return;
            }
            status.set(Status::Loading);
            fetch::stylesheet("postgres.css");
            let status = status.clone();
            fetch::text("postgres.json", move |fetched| {
                status.set(
                    match fetched.and_then(|t| {
                        serde_json::from_str::<Value>(&t).map_err(|e| format!("postgres.json: {e}"))
                    }) {
                        Ok(doc) if doc["table"]["rows"].is_array() => Status::Ready(Rc::new(doc)),
                        Ok(_) => Status::Failed("postgres.json holds no table".into()),
                        Err(e) => Status::Failed(e),
                    },
                )
            });
        })
    };
    let body = match &*status {
        Status::Closed => html! {},
        Status::Loading => html! { <p class="note">{ t(lang, "pg.loading") }</p> },
        Status::Failed(e) => html! {
            <p class="notice" role="alert">{ fill(t(lang, "pg.failed"), &[e]) }</p>
        },
        Status::Ready(doc) => ready(doc, lang, &picked),
    };
    html! {
        <section class="pg" aria-labelledby="pg-h" data-testid="pg-panel">
            <details {ontoggle}>
                <summary><h2 id="pg-h">{ t(lang, "pg.title") }</h2></summary>
                { body }
            </details>
        </section>
    }
}

fn ready(doc: &Value, lang: Lang, picked: &UseStateHandle<Option<(usize, usize)>>) -> Html {
    let table = &doc["table"];
    let rows = table["rows"].as_array().map_or(&[][..], Vec::as_slice);
    let first_break = rows.iter().enumerate().find_map(|(r, row)| {
        let cells = row["cells"].as_array()?;
        cells
            .iter()
            .position(|c| c["verdict"] == "breaks")
            .map(|c| (r, c))
    });
    let chosen = picked.or(first_break);
    let title = |hazard: &str| {
        let (name, form) = parts(hazard);
        (w(doc, lang, name), w(doc, lang, &format!("form.{form}")))
    };
    let head = COLUMNS
        .iter()
        .map(|c| html! { <th scope="col">{ w(doc, lang, &format!("col.{c}")) }</th> })
        .collect::<Html>();
    let body = rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let hazard = text(&row["hazard"]);
            let (name, form) = title(hazard);
            let cells = row["cells"].as_array().map_or(&[][..], Vec::as_slice);
            let tds = cells
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    let verdict = text(&cell["verdict"]).to_owned();
                    let column = text(&cell["column"]);
                    let pick = {
                        let picked = picked.clone();
                        Callback::from(move |_| picked.set(Some((r, c))))
                    };
                    html! {
                        <td>
                            <button data-testid={format!("pg-cell-{hazard}-{column}")} data-verdict={verdict.clone()}
                                aria-pressed={(chosen == Some((r, c))).to_string()} onclick={pick}>
                                { w(doc, lang, &verdict) }
                            </button>
                        </td>
                    }
                })
                .collect::<Html>();
            html! {
                <tr>
                    <th scope="row">{ name }<span class="form">{ form }</span></th>
                    { tds }
                </tr>
            }
        })
        .collect::<Html>();
    let shown = chosen.and_then(|(r, c)| Some((rows.get(r)?, rows.get(r)?["cells"].get(c)?)));
    html! {
        <>
            // The version's number: the rest (a distribution's build) is not a word the page translates.
            <p class="note">{ fill(w(doc, lang, "note"), &[
                text(&table["postgresql"]).split_whitespace().next().unwrap_or(""),
                text(&table["sqlite"]),
            ]) }</p>
            <div class="table-wrap">
                <table data-testid="pg-table">
                    <thead><tr><th scope="col">{ w(doc, lang, "hazard") }</th>{ head }</tr></thead>
                    <tbody>{ body }</tbody>
                </table>
            </div>
            if let Some((row, cell)) = shown {
                { lanes(doc, lang, row, cell, title(text(&row["hazard"]))) }
            }
        </>
    }
}

/// A cell's interleaving: a lane per session, a line per step in the order they ran.
fn lanes(
    doc: &Value,
    lang: Lang,
    row: &Value,
    cell: &Value,
    (name, form): (String, String),
) -> Html {
    let sessions: Vec<&str> = row["sessions"]
        .as_array()
        .map_or_else(Vec::new, |s| s.iter().map(text).collect());
    let lane = |session: &str| sessions.iter().position(|s| *s == session).unwrap_or(0) + 1;
    let run = &cell["run"];
    let number = |v: &Value| v.as_u64().unwrap_or(0).to_string();
    let caption = fill(
        w(doc, lang, "caption"),
        &[
            &name,
            &form,
            &w(doc, lang, &format!("col.{}", text(&cell["column"]))),
            &number(&cell["shown"]),
            &number(&cell["permutations"]),
        ],
    );
    let heads = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| html! { <div class="lane-head" style={format!("grid-column: {}", i + 1)}>{ *s }</div> })
        .collect::<Html>();
    let lines = run["lines"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let session = text(&line["session"]);
            let step = text(&line["step"]);
            // A row each: a line's height is its time, and no two steps look simultaneous.
            let at = format!("grid-column: {}; grid-row: {}", lane(session), i + 2);
            // What the line says: its kind, its SQL, the note over its answer, and the answer.
            let (kind, sql, note, answer) = match (text(&line["line"]), line["answer"].as_str()) {
                ("step", Some(answer)) => ("pg-line", Some(&line["sql"]), None, Some(answer)),
                ("step", None) => ("pg-line waiting", Some(&line["sql"]), Some("waiting"), None),
                ("completed", answer) => ("pg-line", None, Some("completed"), answer),
                _ => ("pg-line cannot", None, Some("cannot"), None),
            };
            html! {
                <div class={kind} style={at}>
                    <span class="who">{ format!("{session} · ") }</span><strong><code>{ step }</code></strong>
                    // The step as written, without the line breaks around it that the tester prints.
                    if let Some(sql) = sql { <pre>{ text(sql).trim_matches('\n') }</pre> }
                    if let Some(note) = note { <p>{ w(doc, lang, note) }</p> }
                    if let Some(answer) = answer.filter(|a| !a.is_empty()) { <pre class="answer">{ answer }</pre> }
                </div>
            }
        })
        .collect::<Html>();
    // The protocol's properties, or a design's own outbox (`committed`, `delivered`): loss, duplicates, order.
    // Both, for the protocol's relay, whose tables are the protocol's and which declares its outbox too.
    let checks: Vec<(&Value, &[&str], &str)> = [
        (&run["check"], &["consumer_invariant", "no_loss"][..], "; "),
        (&run["outbox"], &["loss", "duplicates", "order"][..], ", "),
    ]
    .into_iter()
    .filter(|(c, ..)| c.is_object())
    .collect();
    // What broke, in the page's language: each of the check's parts as the badge's own refusals are read.
    let property = |check: &Value, key: &str, apart: &str| {
        let why = check[key].as_str().map(|why| {
            let parts: Vec<String> = why.split(apart).map(|p| message(lang, p)).collect();
            parts.join(if lang == Lang::Zh { "；" } else { "; " })
        });
        let said = w(
            doc,
            lang,
            if why.is_some() {
                "prop.breaks"
            } else {
                "prop.holds"
            },
        );
        html! {
            <li class={why.is_some().then_some("breaks")}><code>{ key }</code>{ " " }{ said }
                if let Some(why) = why { { if lang == Lang::Zh { "" } else { " " } }{ why } }</li>
        }
    };
    let cannot = cell["cannot"].as_u64().unwrap_or(0);
    html! {
        <figure data-testid="pg-permutation">
            <figcaption>{ caption }</figcaption>
            <div class="lanes" style={format!("grid-template-columns: repeat({}, minmax(0, 1fr))", sessions.len().max(1))}>
                { heads }
                { lines }
            </div>
            if !checks.is_empty() {
                <div class="check">{ w(doc, lang, "check") }
                    <ul>{ for checks.iter().flat_map(|(check, keys, apart)| keys.iter().map(|k| property(check, k, apart))) }</ul>
                </div>
            }
            if cannot > 0 {
                <p class="note">{ fill(w(doc, lang, "cannot.count"), &[&cannot.to_string(), &number(&cell["permutations"])]) }</p>
            }
        </figure>
    }
}
