// The checker's Web Worker (src/ui/checker.rs). The page posts the address of its JS glue, its own compiled
// WebAssembly.Module and the configuration; this instantiates that same module (no second download or compile)
// and runs the search, which posts its progress and what it found back.
onmessage = async ({ data }) => {
  onmessage = null;
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
