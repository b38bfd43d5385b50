// The checker in the page (issue 12), measured in headless Chromium against the release build; prints JSON.
// 1. The reader's path: the default configuration (2 flows × 3 events × 1 resend × 1 crash, strict), Check
//    clicked, until the verdict is on the page — wall time, and the worker's own search time.
// 2. Workers side by side: one search of the default configuration shared by 1 and by 2 workers (each
//    instantiating the page's module, joined by channels as the page joins them): wall time, and the speedup.
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

const walls = { 1: [], 2: [] };
// Interleaved, so the machine's noise lands on both alike; the speedup is the ratio of medians.
for (let i = 0; i < out.samples; i++) {
  for (const n of [1, 2]) {
    walls[n].push(await page.evaluate(async (n) => {
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
      const ports = Array.from({ length: n }, () => Array(n).fill(null));
      for (let a = 0; a < n; a++) {
        for (let b = a + 1; b < n; b++) {
          const c = new MessageChannel();
          ports[a][b] = c.port1;
          ports[b][a] = c.port2;
        }
      }
      const t0 = performance.now();
      const workers = [];
      const result = await new Promise((resolve, reject) => {
        for (let index = 0; index < n; index++) {
          const w = new Worker(new URL('checker-worker.js', glue), { type: 'module' });
          workers.push(w);
          w.onmessage = ({ data }) => {
            if (data.kind === 'progress') return;
            if (data.kind === 'failed') reject(new Error(data.message)); else resolve(data);
          };
          w.postMessage({ glue, module, rest, job, index, workers: n, ports: ports[index] }, ports[index].filter(Boolean));
        }
      });
      const wall = performance.now() - t0;
      workers.forEach((w) => w.terminate());
      return { wall_ms: wall, transitions: result.transitions, states: result.states };
    }, n));
  }
}
for (const n of [1, 2]) {
  out.workers[n] = {
    wall_ms: median(walls[n].map((r) => r.wall_ms)),
    transitions: walls[n][0].transitions,
  };
}
out.two_workers_speedup = out.workers[1].wall_ms / out.workers[2].wall_ms;
// 3. The largest configuration with symmetry, from its link (a large one waits for *Check*): one run.
await page.goto(`${server.url}#check?flows=3&events=3&resends=1&crashes=1&consumer=strict&producer=atomic&symmetry=1`);
await page.getByTestId('check-offered').waitFor();
const t0 = Date.now();
await page.getByTestId('check-run').click();
const large = page.locator('[data-testid=check-result][data-verdict]');
await large.waitFor({ timeout: 600_000 });
out.large_symmetry = { wall_ms: Date.now() - t0, ...(await large.evaluate((e) => ({ ...e.dataset }))) };
out.chromium = browser.version();
console.log(JSON.stringify(out, null, 2));
await browser.close();
await server.close();
