// The checker in the page (issue 12), measured in headless Chromium against the release build; prints JSON.
// 1. The reader's path: the default configuration (2 flows × 3 events × 1 resend × 1 crash, strict), Check
//    clicked, until the verdict is on the page — wall time, and the worker's own search time.
// 2. Workers side by side: the same search in 1 and in 2 workers at once, each instantiating the page's module
//    (as the gallery runs a wrong turn and strict together): transitions per second over all of them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../e2e/server.mjs';
import { launch } from '../e2e/browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await serve(path.join(ROOT, 'dist'));
const browser = await launch();
const page = await (await browser.newContext()).newPage();
await page.goto(server.url);
await page.getByTestId('check-run').waitFor();
const out = { samples: 3, page: [], workers: {} };

for (let i = 0; i < out.samples; i++) {
  out.page.push(await page.evaluate(async () => {
    const done = '[data-testid=check-result][data-verdict=holds], [data-testid=check-result][data-verdict=violated]';
    const t0 = performance.now();
    document.querySelector('[data-testid=check-run]').click();
    await new Promise((resolve) => {
      const seen = new MutationObserver(() => { if (document.querySelector(done)) { seen.disconnect(); resolve(); } });
      seen.observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const wall = performance.now() - t0;
    const r = document.querySelector(done).dataset;
    return { wall_ms: wall, worker_ms: Number(r.elapsedMs), states: Number(r.states), transitions: Number(r.transitions), verdict: r.verdict };
  }));
}

for (const n of [1, 2]) {
  const runs = [];
  for (let i = 0; i < out.samples; i++) {
    runs.push(await page.evaluate(async (n) => {
      const glue = document.querySelector('link[rel=modulepreload]').href;
      // The page's own module, as its head's script compiled it (scripts/compile-early.mjs).
      const module = await window.outboxModule;
      // The other parts of the split module (scripts/split-wasm.mjs) go with it, as the page hands them over.
      const found = await Promise.all(['history', 'rest'].map(async (name) => {
        const url = document.querySelector(`meta[name=outbox-playground-${name}]`)?.content;
        return url && { name, module: await WebAssembly.compileStreaming(fetch(url)) };
      }));
      const rest = found.every(Boolean) ? found : null;
      const job = 'flows=2&events=3&resends=1&crashes=1&consumer=strict&producer=atomic';
      const t0 = performance.now();
      const results = await Promise.all(Array.from({ length: n }, () => new Promise((resolve, reject) => {
        const w = new Worker(new URL('checker-worker.js', glue), { type: 'module' });
        w.onmessage = ({ data }) => {
          if (data.kind === 'progress') return;
          w.terminate();
          if (data.kind === 'failed') reject(new Error(data.message)); else resolve(data);
        };
        w.postMessage({ glue, module, rest, job });
      })));
      const wall = performance.now() - t0;
      return { wall_ms: wall, transitions: results.reduce((s, r) => s + r.transitions, 0), states: results[0].states };
    }, n));
  }
  out.workers[n] = {
    wall_ms: median(runs.map((r) => r.wall_ms)),
    transitions_per_s: median(runs.map((r) => (r.transitions * 1000) / r.wall_ms)),
    states_per_s: median(runs.map((r) => (r.states * n * 1000) / r.wall_ms)),
  };
}
out.chromium = browser.version();
console.log(JSON.stringify(out, null, 2));
await browser.close();
await server.close();
