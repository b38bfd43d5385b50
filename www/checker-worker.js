// The checker's Web Worker (src/ui/checker.rs). The page posts the address of its JS glue, its own compiled
// WebAssembly.Module (and, in a split build, the rest of it: src/ui/split.rs) and the configuration; this
// instantiates that same module (no second download or compile) and runs the search, which posts its progress
// and what it found back.
onmessage = async ({ data }) => {
  onmessage = null;
  // A split module's search is in its parts: without them the first call into one would trap, unexplained.
  if (!Array.isArray(data.rest) && WebAssembly.Module.exports(data.module).some((e) => e.name === '__rest_loaded')) {
    postMessage({ kind: 'failed', message: 'the checker\'s worker was not handed the rest of the module' });
    return;
  }
  // The split module's loader, as in the page (www/page-start.js), with its parts already compiled, by name.
  let exports = null;
  let loaded = false;
  globalThis.outboxSplit = {
    register(e) { exports = e; },
    prefetch() {},
    whenLoaded(f) { globalThis.outboxSplit.loadRest(); f(); },
    beforeStart(f) { f(); },
    loadRest() {
      if (loaded || !data.rest) return;
      for (const { name, module } of data.rest) {
        new WebAssembly.Instance(module, { primary: exports });
        exports[`__${name}_loaded`].value = 1;
      }
      loaded = true;
    },
    restModule() { return data.rest ?? null; },
  };
  try {
    const glue = await import(data.glue);
    await glue.default({ module_or_path: data.module });
    glue.check_in_worker(data.job);
  } catch (e) {
    // A trap is the module aborting: most likely out of memory on a large configuration (the search keeps every
    // state it has seen), else a bug.
    const why = e instanceof WebAssembly.RuntimeError ? ' (most likely out of memory: try smaller bounds)' : '';
    postMessage({ kind: 'failed', message: `the checker's worker stopped: ${e}${why}` });
  }
};
