//! The explorer in the browser: every order × boundary × crash step × consumer, each with restart and
//! recovery, run in small chunks so the page never freezes; a matrix of the results whose cells open the run.

use crate::ui::i18n::{t, tf};
use crate::ui::state::{Act, Action};
use crate::ui::{now_ms, yield_then, Ctx};
use outbox_core::explorer::{self, Outcome, Plan};
use outbox_core::playground::Command;
use outbox_core::protocol::{Boundary, Ordering};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// How long one chunk may hold the main thread.
const CHUNK_MS: f64 = 12.0;
/// How often the progress line and the matrix are redrawn while a run goes on: each redraw rebuilds the
/// matrix, and doing it after every chunk doubled the run's time.
const REDRAW_MS: f64 = 100.0;

#[derive(Default)]
struct Job {
    /// The consumer run beside strict: the control, or one of the article's wrong turns.
    compared: Option<Ordering>,
    /// Builds the plans a slice at a time first; `None` once they are built.
    planner: Option<explorer::Planner>,
    runner: explorer::Runner,
    plans: Vec<Plan>,
    /// The run failed (the databases would not open); the page's notice says why.
    failed: bool,
    results: Vec<Outcome>,
    cancelled: bool,
    started_ms: f64,
    finished_ms: Option<f64>,
    drawn_ms: f64,
}

#[derive(Clone, PartialEq, Default)]
struct Progress {
    done: usize,
    total: usize,
    elapsed_ms: f64,
    running: bool,
    /// Bumped on each update so Yew re-renders.
    tick: u64,
}

/// One matrix cell: the runs of one order at one boundary.
#[derive(Default, Clone)]
struct Cell {
    runs: usize,
    failed: usize,
    /// The plan to open on click: the first failing run, else the first run.
    open: Option<usize>,
    note: String,
}

#[component]
pub fn Explorer() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let job = use_mut_ref(Job::default);
    let progress = use_state(Progress::default);
    let extended = use_state(|| false);
    // Beside strict: the player's consumer (a wrong turn, or the control), or the control when that is strict.
    let compared = match model.ordering() {
        Ordering::Strict => Ordering::DedupeOnly,
        other => other,
    };

    let start = {
        let job = job.clone();
        let progress = progress.clone();
        let model = model.clone();
        let extended = *extended;
        Callback::from(move |_| {
            // The elapsed time the page shows includes learning where each boundary can fire, which runs in
            // the same slices as the runs.
            *job.borrow_mut() = Job {
                compared: Some(compared),
                // The player's rule, when its consumer is one (the cells open in the player with it).
                planner: Some(
                    explorer::Planner::new(&[Ordering::Strict, compared], extended)
                        .with_rule(model.rule().cloned()),
                ),
                started_ms: now_ms(),
                ..Job::default()
            };
            progress.set(Progress {
                running: true,
                ..Progress::default()
            });
            chunk(job.clone(), progress.setter(), model.clone(), 0);
        })
    };
    let cancel = {
        let job = job.clone();
        Callback::from(move |_| job.borrow_mut().cancelled = true)
    };
    let toggle_extended = {
        let extended = extended.clone();
        Callback::from(move |_| extended.set(!*extended))
    };
    let p = (*progress).clone();
    // Whole numbers only: formatting floats would pull Rust's float printer into the page.
    let elapsed_ms = p.elapsed_ms as u64;
    let rate = (p.done as u64 * 1000).checked_div(elapsed_ms).unwrap_or(0);
    let j = job.borrow();
    html! {
        <section class="explorer" aria-labelledby="explorer-h">
            <h2 id="explorer-h">{ t(lang, "explorer.title") }</h2>
            <p class="note">{ t(lang, "explorer.note") }</p>
            <div class="buttons">
                <button data-testid="explorer-run" onclick={start} disabled={p.running}>{ t(lang, "explorer.run") }</button>
                <button data-testid="explorer-cancel" onclick={cancel} disabled={!p.running}>{ t(lang, "explorer.cancel") }</button>
                <label class="check">
                    <input type="checkbox" data-testid="explorer-extended" checked={*extended} onchange={toggle_extended} disabled={p.running} />
                    { t(lang, "explorer.extended") }
                </label>
            </div>
            if p.total > 0 {
                <p class="progress-line" data-testid="explorer-progress" data-done={p.done.to_string()} data-total={p.total.to_string()}
                    data-running={p.running.to_string()} data-elapsed-ms={elapsed_ms.to_string()}>
                    <progress max={p.total.to_string()} value={p.done.to_string()} aria-label={t(lang, "explorer.progress")} />
                    { tf(lang, "explorer.status", &[&p.done.to_string(), &p.total.to_string(), &rate.to_string(), &elapsed_ms.to_string()]) }
                </p>
            }
            { for [Some(Ordering::Strict), j.compared].into_iter().flatten().map(|ordering| matrix(&j, ordering, lang, &model)) }
        </section>
    }
}

/// Runs plans until the chunk's time is up, then yields to the browser and continues.
fn chunk(job: Rc<RefCell<Job>>, set: UseStateSetter<Progress>, model: Ctx, tick: u64) {
    yield_then(move || {
        let deadline = now_ms() + CHUNK_MS;
        let (done, total, running, elapsed, redraw) = {
            let mut j = job.borrow_mut();
            while !j.cancelled && !j.failed && now_ms() < deadline {
                if let Some(planner) = j.planner.as_mut() {
                    match planner.step_once() {
                        Ok(false) => {}
                        Ok(true) => {
                            j.plans = std::mem::take(&mut planner.plans);
                            j.planner = None;
                        }
                        Err(e) => {
                            j.failed = true;
                            model.dispatch(Action::Error(e));
                        }
                    }
                    continue;
                }
                if j.results.len() >= j.plans.len() {
                    break;
                }
                let next = j.results.len();
                let Job {
                    runner,
                    plans,
                    results,
                    ..
                } = &mut *j;
                results.push(runner.run(&plans[next]));
            }
            let running = !j.cancelled
                && !j.failed
                && (j.planner.is_some() || j.results.len() < j.plans.len());
            if !running && j.finished_ms.is_none() {
                j.finished_ms = Some(now_ms());
            }
            let now = now_ms();
            let end = j.finished_ms.unwrap_or(now);
            let redraw = !running || now - j.drawn_ms >= REDRAW_MS;
            if redraw {
                j.drawn_ms = now;
            }
            (
                j.results.len(),
                j.plans.len(),
                running,
                end - j.started_ms,
                redraw,
            )
        };
        if redraw {
            set.set(Progress {
                done,
                total,
                elapsed_ms: elapsed,
                running,
                tick: tick + 1,
            });
        }
        if running {
            chunk(job, set, model, tick + 1);
        }
    });
}

fn matrix(job: &Job, ordering: Ordering, lang: crate::ui::i18n::Lang, model: &Ctx) -> Html {
    // One row of cells per order, in first-seen order, one cell per boundary (a map here would put one more
    // B-tree routine in the page).
    let mut orders: Vec<String> = Vec::new();
    let mut cells: Vec<[Option<Cell>; 10]> = Vec::new();
    for (i, (plan, outcome)) in job.plans.iter().zip(&job.results).enumerate() {
        if plan.ordering != ordering {
            continue;
        }
        let label = explorer::order_label(&plan.order);
        let row = match orders.iter().position(|o| *o == label) {
            Some(row) => row,
            None => {
                orders.push(label);
                cells.push(Default::default());
                orders.len() - 1
            }
        };
        let cell = cells[row][plan.boundary.number() - 1].get_or_insert_with(Cell::default);
        cell.runs += 1;
        if !outcome.ok {
            cell.failed += 1;
            if cell.failed == 1 {
                cell.open = Some(i);
                cell.note = outcome.problem.clone().unwrap_or_default();
            }
        } else if cell.open.is_none() {
            cell.open = Some(i);
            cell.note = format!("{} · {} effects", outcome.final_state, outcome.effects);
        }
    }
    if orders.is_empty() {
        return html! {};
    }
    let name = ordering.name();
    let all = || cells.iter().flatten().flatten();
    let failed: usize = all().map(|c| c.failed).sum();
    let runs: usize = all().map(|c| c.runs).sum();
    html! {
        <div class="matrix-wrap">
            <h3 data-testid={format!("matrix-summary-{name}")} data-failed={failed.to_string()} data-runs={runs.to_string()}>
                { tf(lang, "explorer.matrix", &[&t(lang, &format!("mode.{name}")), &runs.to_string(), &failed.to_string()]) }
            </h3>
            <div class="scroll">
            <table class="matrix" data-testid={format!("matrix-{name}")}>
                <thead><tr>
                    <th scope="col">{ t(lang, "explorer.order") }</th>
                    { for Boundary::ALL.iter().map(|b| html! { <th scope="col" title={b.name()}>{ b.number() }</th> }) }
                </tr></thead>
                <tbody translate="no">
                { for orders.iter().zip(&cells).map(|(order, row)| html! {
                    <tr>
                        <th scope="row">{ order }</th>
                        { for Boundary::ALL.iter().zip(row).map(|(b, cell)| match cell {
                            None => html! { <td class="na" title={t(lang, "explorer.unreachable")}>{ "—" }</td> },
                            Some(cell) => {
                                let open = cell.open.and_then(|i| job.plans.get(i)).map(|p| p.trace());
                                let onclick = {
                                    let model = model.clone();
                                    Callback::from(move |_| if let Some(trace) = open.clone() { model.act(Command::Load(Box::new(trace))) })
                                };
                                let ok = cell.failed == 0;
                                let label = if ok { format!("✓{}", cell.runs) } else { format!("✗{}", cell.failed) };
                                html! {
                                    <td class={classes!(if ok { "pass" } else { "fail" })}>
                                        <button class="cell" data-testid={format!("cell-{name}-{order}-{}", b.name())} data-ok={ok.to_string()}
                                            title={format!("{order} × {}: {}", b.name(), cell.note)}
                                            aria-label={format!("{order} × {}: {label}. {}", b.name(), cell.note)} {onclick}>{ label }</button>
                                    </td>
                                }
                            }
                        }) }
                    </tr>
                }) }
                </tbody>
            </table>
            </div>
        </div>
    }
}
