//! The module in two parts (`scripts/split-wasm.mjs`, release builds): what start-up runs, which the page
//! downloads first, and the rest, which `outboxSplit` (`www/page-start.js` in the page, `www/checker-worker.js`
//! in the checker's worker) compiles once the player is drawn and instantiates on first use. A build that is
//! not split (`trunk serve`) has no rest: each call here does nothing.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// Hands the loader this instance's exports (memory, tables, globals, functions), which the rest imports.
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = register)]
    fn register_exports(exports: &JsValue) -> Result<(), JsValue>;
    /// Starts downloading and compiling the rest, off the main thread.
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = prefetch)]
    fn prefetch_rest() -> Result<(), JsValue>;
    /// Instantiates the rest now (compiling it, or downloading it synchronously, if it has not arrived). The
    /// split module's stubs call this same import before their first call into the rest.
    #[wasm_bindgen(catch, js_namespace = outboxSplit, js_name = loadRest)]
    fn load_rest() -> Result<(), JsValue>;
    /// The rest, compiled (`null` when the build is not split), for a worker to instantiate beside its own.
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

/// The rest, loaded here and compiled, for the checker's worker (`JsValue::NULL` when the build is not split).
pub fn module_for_worker() -> Result<JsValue, String> {
    load_rest().map_err(|e| format!("the rest of the module could not be loaded: {e:?}"))?;
    rest_module().map_err(|e| format!("the rest of the module could not be loaded: {e:?}"))
}
