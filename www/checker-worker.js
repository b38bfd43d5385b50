// One of the checker's Web Workers (src/ui/checker.rs). The page posts the address of its JS glue, its own
// compiled WebAssembly.Module (and, in a split build, the rest of it: src/ui/split.rs), the configuration, this
// worker's place among the workers that share the search, and a port to each of the others; this instantiates
// that same module (no second download or compile) and runs its part of the search, which trades states with
// the others over the ports and posts its progress (the first worker: what the search found) to the page.
// Started with `hint` (src/ui/hints.rs), it is an open level's: it answers each job the page posts after.
onmessage = async ({ data }) => {
  onmessage = null;
  // A level's jobs may come before the module is ready: they wait here, in order.
  const jobs = [];
  if (data.hint) onmessage = ({ data: job }) => jobs.push(job);
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
    if (data.hint) {
      const run = (job) => {
        try {
          glue.hint_in_worker(job.job);
        } catch (e) {
          failed(e, job.id);
        }
      };
      onmessage = ({ data: job }) => run(job);
      jobs.splice(0).forEach(run);
      return;
    }
    const ports = data.ports ?? [];
    globalThis.outboxSendToWorker = (to, bytes) => {
      const copy = bytes.slice();
      ports[to].postMessage(copy, [copy.buffer]);
    };
    glue.check_in_worker(data.job, data.index ?? 0, data.workers ?? 1);
    // Set after the start, so that a peer's first message waits in its port until this worker has its part.
    ports.forEach((port) => {
      if (!port) return;
      port.onmessage = ({ data: bytes }) => {
        try {
          glue.check_message_in_worker(new Uint8Array(bytes));
        } catch (e) {
          failed(e);
        }
      };
    });
  } catch (e) {
    failed(e);
  }
};

function failed(e, id) {
  // Rust aborts with `unreachable`: most likely out of memory on a large configuration (the search keeps every
  // state it has seen). Any other trap is a stack overflow (it wraps the stack pointer) or the engine faulting
  // (JavaScriptCore on Linux, now and then, in a worker): the page starts the search again once, and an
  // overflow, which comes back, is then reported.
  const trap = e instanceof WebAssembly.RuntimeError;
  const engine = trap && !/unreachable/i.test(e.message);
  const why = !trap ? '' : engine ? ' (a stack overflow, or the browser\'s WebAssembly engine faulting)' : ' (most likely out of memory: try smaller bounds)';
  postMessage({ kind: 'failed', id, fault: engine ? 'engine' : undefined, message: `the checker's worker stopped: ${e}${why}` });
}
