// Browser figures for BENCHMARKS.md (issue 6), measured in headless Chromium against the release build:
// time to interactive, one UI step, the explorer's full run, and the first load's size. Prints JSON.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../e2e/server.mjs';
import { launch } from '../e2e/browser.mjs';
import { firstLoad } from '../e2e/sizes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p95: at(0.95), min: s[0], max: s[s.length - 1], samples: s.length };
};

const server = await serve(path.join(ROOT, 'dist'));
const browser = await launch();
const out = {};

// Time to interactive: navigation start → the first render is in the DOM with both databases open.
const tti = [];
for (let i = 0; i < 10; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => performance.getEntriesByName('playground-ready').length > 0);
  tti.push(await page.evaluate(() => performance.getEntriesByName('playground-ready')[0].startTime));
  await context.close();
}
out.tti_ms = stats(tti);

// One UI step: click → the reducer, SQLite and Yew's re-render, measured in the page up to the next task.
{
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.getByTestId('lane').waitFor();
  const samples = [];
  for (let round = 0; round < 12; round++) {
    await page.getByTestId('reset').click();
    await page.getByTestId('order-312').click();
    for (const id of ['deliver-next', 'apply-A', 'deliver-next', 'apply-A', 'apply-A', 'deliver-next', 'apply-A', 'apply-A']) {
      samples.push(await page.evaluate((testid) => new Promise((resolve) => {
        const channel = new MessageChannel();
        const t0 = performance.now();
        channel.port1.onmessage = () => resolve(performance.now() - t0);
        document.querySelector(`[data-testid="${testid}"]`).click();
        channel.port2.postMessage(0); // runs after the click's microtasks, where Yew renders
      }), id));
    }
  }
  out.step_ms = stats(samples);

  // The explorer's full run: all orders × all boundaries × both consumers, at once (the wasm core's pace) …
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await page.evaluate(() => window.wasmBindings.bench_explorer()));
  out.explorer_wasm_ms = stats(runs.map((r) => r[0]));
  out.explorer_runs = runs[0][1];
  out.explorer_wasm_runs_per_s = stats(runs.map((r) => (r[1] * 1000) / r[0]));
  // … and as the page runs it, in slices with a progress bar.
  await page.getByTestId('explorer-run').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="explorer-progress"]')?.dataset.running === 'false',
    null, { timeout: 120_000 });
  out.explorer_page_ms = Number(await page.getByTestId('explorer-progress').getAttribute('data-elapsed-ms'));
  await context.close();
}

out.size = firstLoad();
out.chromium = browser.version();
await browser.close();
await server.close();
console.log(JSON.stringify(out, null, 2));
