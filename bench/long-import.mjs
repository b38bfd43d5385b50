// Issue 55's long history, side by side in one run: a 10,000-step trace over 4,874 flows (each produced and
// relayed, `process_all` every 20th step) replayed by the CLI (`experiments replay`, the release build) and
// imported by the page (the release build in dist/, headless Chromium), each timed from outside.
// `node bench/long-import.mjs` after `cargo build --release --bin experiments` and `trunk build --release`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serve } from '../e2e/server.mjs';
import { launch } from '../e2e/browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const steps = [];
for (let f = 0; steps.length < 10_000; f++) {
  const flow = `F${String(f).padStart(4, '0')}`;
  for (const step of [
    { op: 'advance', flow, event_id: `${flow}.1`, expected_seq: 0, kind: 'reserved', schema: 1, payload: { amount: 3 } },
    { op: 'relay', event_id: `${flow}.1` },
  ]) {
    if (steps.length % 20 === 19) steps.push({ op: 'process_all' });
    if (steps.length < 10_000) steps.push(step);
  }
}
const flows = new Set(steps.filter((s) => s.op === 'advance').map((s) => s.flow)).size;
const text = JSON.stringify({ format: 'outbox-playground-trace/1', steps });
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'long-import-')), 'trace.json');
fs.writeFileSync(file, text);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cli = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  execFileSync(path.join(ROOT, 'target/release/experiments'), ['replay', file], { stdio: 'ignore' });
  cli.push(performance.now() - t0);
}

const server = await serve(path.join(ROOT, 'dist'));
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(server.url);
await page.getByTestId('lane').waitFor();
await page.getByTestId('import-text').fill(text);
const t0 = Date.now();
await page.getByTestId('import-load').click();
await page.getByTestId('position').filter({ hasText: 'after step 10000 of 10000' }).waitFor({ timeout: 1_800_000 });
await page.getByTestId('loading').waitFor({ state: 'detached', timeout: 60_000 });
const imported = Date.now() - t0;
await browser.close();
await server.close();
console.log(`${steps.length} steps over ${flows} flows, ${text.length} bytes: CLI replay ${Math.round(median(cli))} ms `
  + `(median of 3), the page's import ${imported} ms: ${(imported / median(cli)).toFixed(1)}×`);
