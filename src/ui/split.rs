//! The module in parts (`scripts/split-wasm.mjs`, release builds): what the page runs until its player is
//! drawn, which it downloads first, and two more, `history` (what replaying a preset's or a link's history needs
//! beyond that) and `rest` (everything else), which `outboxSplit` (`www/page-start.js` in the page,
//! `www/checker-worker.js` in the checker's worker) compiles once the player is interactive, or, for an address
//! that starts from a history, `history` as the document is read. The tools below the player wait for both
//! ([`when_loaded`]), a history for its part ([`before_start`]); anything else that calls into a part first (a
//! reader's click before it has arrived) instantiates it then. A build that is not split (`trunk serve`) has no
//! parts: each call here does nothing, or calls its function at once.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// Hands the loader this instance's exports (memory, tables, globals, functions), which the parts import.
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = register)]
    fn register_exports(exports: &JsValue) -> Result<(), JsValue>;
    /// Starts downloading and compiling the parts, off the main thread.
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = prefetch)]
    fn prefetch_rest() -> Result<(), JsValue>;
    /// Instantiates part `part` (0: `history`, 1: `rest`) now, compiling it, or downloading it synchronously,
    /// if it has not arrived. The split module's stubs call this same import before their first call into a
    /// part.
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = loadRest)]
    fn load_rest(part: u32) -> Result<(), JsValue>;
    /// Calls `f` once every part is instantiated, without holding the page while they download; not until
    /// then if they cannot be loaded (the page then says so).
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = whenLoaded)]
    fn when_loaded_js(f: &JsValue) -> Result<(), JsValue>;
    /// Calls `f` at once, or once `history` is loaded when the page's address starts from a history (a
    /// preset, a link).
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = beforeStart)]
    fn before_start_js(f: &JsValue) -> Result<(), JsValue>;
    /// The parts, compiled, as `{name, module}` once all are loaded (`null` when the build is not split), for a
    /// worker to instantiate beside its own.
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = restModule)]
    fn rest_module() -> Result<JsValue, JsValue>;
}

/// First thing at start-up, in the page and in a worker: before any call into the rest.
pub fn register() {
    let _ = register_exports(&wasm_bindgen::exports());
}

/// Once the player is drawn: the rest downloads and compiles while the reader reads.
pub fn prefetch() {
    let _ = prefetch_rest();
}

/// Runs `f` once both parts are loaded: at once in a build that is not split (or without the loader).
pub fn when_loaded(f: impl FnOnce() + 'static) {
    call_once_through(when_loaded_js, f)
}

/// Runs `f` as the page starts: at once, or once the rest is loaded if the address starts from a history that
/// needs it (`www/page-start.js` says which).
pub fn before_start(f: impl FnOnce() + 'static) {
    call_once_through(before_start_js, f)
}

/// Hands `f` to a loader hook; runs it here if the hook cannot be called. `f` runs at most once either way.
fn call_once_through(hook: fn(&JsValue) -> Result<(), JsValue>, f: impl FnOnce() + 'static) {
    // Whichever way it goes, `f` runs at most once.
    let f = crate::ui::once(f);
    if hook(&Closure::once_into_js(f.clone())).is_err() {
        f()
    }
}

/// The parts, loaded here and compiled, for the checker's worker (`JsValue::NULL` when the build is not split).
pub fn module_for_worker() -> Result<JsValue, String> {
    let failed = |e: JsValue| format!("the rest of the module could not be loaded: {e:?}");
    // Part numbers as the stubs pass them (`scripts/split-wasm.mjs`'s `PARTS`: history, rest).
    for part in 0..2 {
        load_rest(part).map_err(failed)?;
    }
    rest_module().map_err(failed)
}
