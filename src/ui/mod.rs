//! The browser front end (wasm32 only): a Yew app over the core's trace engine. State lives in one reducer
//! ([`state::Model`]); components read it from a context and dispatch [`state::Action`]s.

pub mod address;
pub mod checker;
pub mod components;
mod files;
pub mod hints;
pub mod hooks;
pub mod parts;
pub mod split;
pub use crate::i18n;
pub mod state;

pub use files::{download, read_chosen_file, FileRefusal};

use components::playground::Playground;
use i18n::Lang;
use outbox_core::playground::Command;
use state::Model;
use std::rc::Rc;
use yew::prelude::*;

/// The reducer handle every component reads.
pub type Ctx = UseReducerHandle<Model>;

/// Mounts the app on `<body>`, after installing the panic panel.
pub fn start() {
    // Before anything can call into the rest of a split module (`split.rs`), here and in a worker.
    split::register();
    // The checker's worker instantiates this same module: there is no page to draw in a worker.
    if web_sys::window().is_none() {
        return;
    }
    mark("playground-start");
    // Yew installs its own hook (console only) unless given one; ours also logs, then draws the panel.
    yew::set_custom_panic_hook(Box::new(|info| {
        web_sys::console::error_1(&info.to_string().into());
        show_panic_panel(&info.to_string());
    }));
    // The page draws in parts, the player before its databases open (`Playground`). An address that starts from a
    // history (a preset's, a link's) replays it in the page's first render, with code in the rest of a split
    // module: the page waits for that part (`split::before_start`), and meanwhile warms SQLite up
    // (`warm_up_then`), so the replay's task is short too.
    // Not decoded here: the link is read once, as the page's model is made (`starting_model`).
    let history = address::Address::of_page().preset.is_some() || link_in_location().is_some();
    if history {
        warm_up_then(|| split::before_start(|| run_soon(render_app)));
    } else {
        render_app();
    }
}

/// Draws the page into a `<div class="page">` of its own at the end of `<body>`, below the prerendered header (Yew
/// empties the element it draws into), which stands, laid out and painted, until the page draws its own
/// (`Part::Header`). The `<div>` has no box (`display: contents`): its children lay out as the body's would, and
/// it does not move when the header moves into it (a box's top moving counts as a layout shift).
fn render_app() {
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|document| {
            let div = document.create_element("div").ok()?;
            div.set_class_name("page");
            document.body()?.append_child(&div).ok()?;
            Some(div)
        });
    match root {
        Some(root) => yew::Renderer::<App>::with_root(root).render(),
        None => yew::Renderer::<App>::new().render(),
    };
}

/// The prerendered first screen (`src/bin/prerender.rs`) goes in the same task as the page draws its own header
/// (`Part::Header`): no paint in between, so nothing moves or blinks.
pub fn remove_first_screen() {
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        while let Ok(Some(copy)) = document.query_selector("[data-prerender]") {
            copy.remove();
        }
    }
}

/// Says on `<html data-drawn>` that the page has drawn every part its view shows: an embed's frame takes its
/// height only from then on (`www/page-start.js`). Also set by the panic panel, and by `page-start.js` when a
/// part of the module cannot be loaded: what is there then is all there is to show.
pub fn mark_view_drawn() {
    if let Some(root) = root() {
        let _ = root.set_attribute("data-drawn", "");
    }
}

thread_local! {
    /// A level's view is drawn when both its parts (the player's) and the level itself are: each side sets its bit.
    static LEVEL_VIEW: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// One side of a level's view is drawn (`1`: the page's parts, `2`: the level, its player showing its history);
/// once both are, the view is ([`mark_view_drawn`]), and an embed's frame takes its height once.
pub fn level_view_drawn(side: u8) {
    let both = LEVEL_VIEW.with(|v| {
        v.set(v.get() | side);
        v.get() == 3
    });
    if both {
        mark_view_drawn();
    }
}

/// The page's `<html>` element (none in a worker).
pub fn root() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.document_element()
}

/// A panic must not leave a dead page: the hook runs before the module aborts, so it draws a panel with plain
/// DOM calls (Yew is gone by then) and offers a reset that reloads the page without the session's link.
fn show_panic_panel(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else { return };
    let Ok(panel) = document.create_element("div") else {
        return;
    };
    panel.set_class_name("panic-panel");
    let _ = panel.set_attribute("role", "alert");
    let _ = panel.set_attribute("data-testid", "panic-panel");
    let lang = initial_lang();
    let parts = [
        ("strong", i18n::t(lang, "panic.title")),
        ("p", i18n::t(lang, "panic.body")),
        ("code", message.chars().take(300).collect::<String>()),
    ];
    for (tag, text) in parts {
        if let Ok(el) = document.create_element(tag) {
            el.set_text_content(Some(&text));
            let _ = panel.append_child(&el);
        }
    }
    if let Ok(button) = document.create_element("button") {
        button.set_text_content(Some(&i18n::t(lang, "panic.reset")));
        let _ = button.set_attribute("data-testid", "panic-reset");
        // An inline handler would need 'unsafe-inline' under the page's CSP; a listener does not.
        let reset = wasm_bindgen::closure::Closure::<dyn Fn()>::new(|| {
            if let Some(location) = web_sys::window().map(|w| w.location()) {
                let path = location.pathname().unwrap_or_else(|_| "/".into());
                let search = location.search().unwrap_or_default();
                let _ = location.replace(&format!("{path}{search}"));
            }
        });
        use wasm_bindgen::JsCast;
        let _ = button.add_event_listener_with_callback("click", reset.as_ref().unchecked_ref());
        reset.forget();
        let _ = panel.append_child(&button);
    }
    let _ = body.prepend_with_node_1(&panel);
    mark_view_drawn();
}

/// For the benchmark (`scripts/bench.sh`): the explorer's full workload, run at once on the main thread, as
/// `[milliseconds, runs]`. The page itself always runs it in slices.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn bench_explorer() -> Vec<f64> {
    use outbox_core::protocol::Ordering;
    let t0 = now_precise_ms();
    let Ok(plans) = outbox_core::explorer::plans(&[Ordering::Strict, Ordering::DedupeOnly], false)
    else {
        return vec![];
    };
    let mut runner = outbox_core::explorer::Runner::default();
    let ok = plans.iter().filter(|p| runner.run(p).ok).count();
    vec![now_precise_ms() - t0, plans.len() as f64, ok as f64]
}

/// `performance.now()`, for measurements finer than a millisecond.
pub fn now_precise_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(now_ms)
}

/// For the test that proves the panic panel: no reader action reaches this, only a call from the console
/// (`wasmBindings.debug_panic()`).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn debug_panic() {
    panic!("a deliberate panic, to show the panic panel");
}

/// The language the page starts in: the one `www/page-start.js` put on `<html lang>` before the module loaded
/// (the remembered choice, else the browser's, else English). One rule in one place, so the prerendered header
/// and the page cannot start in different languages.
pub fn initial_lang() -> Lang {
    root()
        .and_then(|root| root.get_attribute("lang"))
        .and_then(|tag| Lang::from_tag(&tag))
        .unwrap_or_default()
}

/// The address's fragment if it is a session's link (`#t=…`, or one that cannot be read), not yet decoded.
fn link_in_location() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    // A checker link (`#check?…`) is the checker panel's to read, a challenge (`#level=…`) the level's.
    let others = ["#check?", "#level="];
    (!(hash.is_empty() || hash == "#" || others.iter().any(|o| hash.starts_with(o))))
        .then_some(hash)
}

/// The session a link carries (`#t=…`), or why it could not be opened.
pub fn trace_from_location() -> Option<Result<outbox_core::trace::Trace, String>> {
    let hash = link_in_location()?;
    Some(outbox_core::share::decode(&hash).map_err(|e| e.0))
}

/// The page's starting model (its databases not yet open: the player draws first, `Playground` opens them), and
/// the session a link carried.
fn starting_model(lang: Lang, locked: bool) -> (Rc<Model>, Option<Rc<outbox_core::trace::Trace>>) {
    let mut model = Model::unopened(Default::default(), lang);
    model.locked = locked;
    let mut link_trace = None;
    match trace_from_location() {
        // Replayed after the first render, in slices if it is long.
        Some(Ok(trace)) => link_trace = Some(Rc::new(trace)),
        // A bad link leaves the page on the default scenario, with a message that names what is wrong.
        Some(Err(e)) => model.notice = Some(state::Notice::Error(e)),
        None => {}
    }
    (Rc::new(model), link_trace)
}

#[component]
fn App() -> Html {
    let lang = initial_lang();
    let address = use_memo((), |_| address::Address::of_page());
    let locked = address.level.is_some();
    let started = use_memo((), move |_| starting_model(lang, locked));
    let (model, link_trace) = &*started;
    html! {
        <Playground initial={model.clone()} address={address.clone()} link_trace={link_trace.clone()} />
    }
}

/// Runs `f` once on a later turn of the event loop (after the browser has painted), or never if the browser
/// refuses the timer.
pub fn run_soon(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    let closure = wasm_bindgen::closure::Closure::once_into_js(f);
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(closure.unchecked_ref(), 0);
    }
}

/// `f` behind a handle that any number of callers (a hook and its fallback, a frame and a timer) can call:
/// the first call runs it, the others do nothing.
pub fn once(f: impl FnOnce() + 'static) -> impl Fn() + Clone + 'static {
    use std::cell::Cell;
    let f = Rc::new(Cell::new(Some(Box::new(f) as Box<dyn FnOnce()>)));
    move || {
        if let Some(f) = f.take() {
            f()
        }
    }
}

/// SQLite's first use, in scratch databases, a step a task (`System::WARM_UP`), then `f` in a task of its own:
/// the browser compiles each wasm function on its first call, so these tasks take most of SQLite's compiling
/// and the one that opens or replays into the page's databases is short too. Should SQLite fail here, that
/// fails too, and says so.
pub fn warm_up_then(f: impl FnOnce() + 'static) {
    fn step(i: usize, f: Box<dyn FnOnce()>) {
        yield_then(
            move || match outbox_core::protocol::system::System::WARM_UP.get(i) {
                Some(warm_up) => {
                    let _ = warm_up();
                    step(i + 1, f)
                }
                None => f(),
            },
        );
    }
    step(0, Box::new(f));
}

/// Runs `f` in a task after the browser has painted what the DOM holds now (the next frame, then the next task).
/// A page the browser is not drawing (a hidden tab) gets no frame: then after 100 ms.
pub fn after_paint(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    let fire = once(move || yield_then(f));
    let Some(window) = web_sys::window() else {
        return fire();
    };
    let frame = wasm_bindgen::closure::Closure::once_into_js(fire.clone());
    let timer = wasm_bindgen::closure::Closure::once_into_js(fire);
    let _ = window.request_animation_frame(frame.unchecked_ref());
    let _ =
        window.set_timeout_with_callback_and_timeout_and_arguments_0(timer.unchecked_ref(), 100);
}

/// Runs `f` as the next task, after the browser has had its turn (input, rendering): the pace of chunked work.
/// A message task is not clamped the way nested `setTimeout`s are (4 ms each after the fifth). The page posts
/// the message to its own window, not through a `MessageChannel`: WebKit carries a port's message through
/// another process, about 2 ms a hop where a window's message takes microseconds (`bench/engines.mjs`).
pub fn yield_then(f: impl FnOnce() + 'static) {
    yield_to(&wasm_bindgen::closure::Closure::once_into_js(f));
}

// The page's JavaScript in one snippet (each `inline_js` is a file the page fetches at start-up): the yield's
// queue, whose listener runs one callback per message the page posted itself (a worker, which has no window,
// keeps a port), and the diagram's PNG export.
#[wasm_bindgen::prelude::wasm_bindgen(inline_js = "const q = [], K = 'outbox-playground:yield';
let on = false;
export function yield_to(f) {
  if (typeof window != 'object') { const c = new MessageChannel(); c.port1.onmessage = () => f(); c.port2.postMessage(0); return; }
  if (!on) { on = true; addEventListener('message', (e) => { if (e.data === K && e.source === window) { e.stopImmediatePropagation(); q.shift()?.(); } }); }
  q.push(f); postMessage(K, '*');
}
export function save_png(svg, name, w, h) {
  const img = new Image();
  img.onload = () => {
    const c = document.createElement('canvas');
    c.width = w * 2; c.height = h * 2;
    const g = c.getContext('2d'); g.scale(2, 2); g.drawImage(img, 0, 0);
    c.toBlob((b) => { const a = document.createElement('a'); a.href = URL.createObjectURL(b); a.download = name; a.click(); }, 'image/png');
  };
  img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
}")]
extern "C" {
    fn yield_to(f: &wasm_bindgen::JsValue);
    pub fn save_png(svg: &str, name: &str, w: u32, h: u32);
}

/// Milliseconds since the page started, for progress and rates.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Traces longer than this replay in slices, with progress, instead of in one go.
const CHUNKED_STEPS: usize = 200;

/// Replaces the session with `trace`: at once when short, else a slice of about 12 ms at a time so the page
/// keeps responding, showing "Replaying step i of n".
pub fn load_trace(handle: Ctx, trace: outbox_core::trace::Trace) {
    use state::Replay;
    // A newer load (or a reset) supersedes one still replaying: it stops at its next slice.
    let generation = cancel_loads();
    if trace.steps.len() <= CHUNKED_STEPS {
        handle.dispatch(state::Action::Do(Command::Load(Box::new(trace))));
        return;
    }
    match handle.loader(trace) {
        Ok(loader) => {
            handle.dispatch(state::Action::Loading(Some(loader.progress())));
            replay_slices(handle, loader, generation);
        }
        Err(e) => handle.dispatch(state::Action::Error(e)),
    }
}

/// Time travel to step `n`: at once when it replays few steps, else in slices with progress, on fresh databases
/// (the page's session stays as it is until the replay is done; an action taken meanwhile stops the replay and
/// acts on the page as it is).
pub fn seek(handle: Ctx, n: usize) {
    use state::Replay;
    // Any time travel supersedes a replay still running in slices, a short one included.
    let generation = cancel_loads();
    let model = &*handle;
    let n = n.min(model.entries.len());
    let replay = if n >= model.pos { n - model.pos } else { n };
    if replay <= CHUNKED_STEPS {
        handle.dispatch(state::Action::Do(Command::Seek(n)));
        return;
    }
    match model.seeker(n, false) {
        Ok(seeker) => {
            handle.dispatch(state::Action::Loading(Some(seeker.progress())));
            replay_slices(handle, seeker, generation);
        }
        Err(e) => handle.dispatch(state::Action::Error(e)),
    }
}

/// Switches the consumer (`SetMode`, `SetRule`): the same history replayed under the new one at the same
/// position, at once when it is short, else in slices with progress, as a load is.
pub fn switch_consumer(handle: Ctx, command: Command) {
    use outbox_core::trace::ConsumerSetup;
    use state::{Act, Replay};
    let support_v2 = handle.setup.support_v2;
    let setup = match &command {
        Command::SetMode(ordering) => ConsumerSetup::builtin(*ordering, support_v2),
        Command::SetRule(rule) => ConsumerSetup::with_rule(rule.clone(), support_v2),
        _ => return handle.act(command),
    };
    if handle.pos <= CHUNKED_STEPS || setup == handle.setup {
        return handle.act(command);
    }
    let generation = cancel_loads();
    match handle.switcher(setup) {
        Ok(switcher) => {
            handle.dispatch(state::Action::Loading(Some(switcher.progress())));
            replay_slices(handle, switcher, generation);
        }
        Err(e) => handle.dispatch(state::Action::Error(e)),
    }
}

thread_local! {
    static LOAD_GENERATION: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Stops any chunked replay in progress; returns the generation a new load runs under.
pub fn cancel_loads() -> u64 {
    LOAD_GENERATION.with(|g| {
        g.set(g.get() + 1);
        g.get()
    })
}

/// Runs a [`state::Replay`] about 12 ms at a time between browser tasks, showing its progress, until it is done
/// (then its model replaces the page's) or a newer load, seek or reset supersedes it.
fn replay_slices(handle: Ctx, mut replay: impl state::Replay + 'static, generation: u64) {
    yield_then(move || {
        if LOAD_GENERATION.with(|g| g.get()) != generation {
            return;
        }
        let deadline = now_ms() + 12.0;
        let mut done = false;
        while !done && now_ms() < deadline {
            match replay.step_once() {
                Ok(d) => done = d,
                Err(e) => {
                    handle.dispatch(state::Action::Error(e));
                    return;
                }
            }
        }
        if done {
            handle.dispatch(state::Action::Replace(Box::new(replay.finish())));
        } else {
            handle.dispatch(state::Action::Loading(Some(replay.progress())));
            replay_slices(handle, replay, generation);
        }
    });
}

/// A Performance API mark, for the load-time benchmark.
pub fn mark(name: &str) {
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let _ = perf.mark(name);
    }
}
