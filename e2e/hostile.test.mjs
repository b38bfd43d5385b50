// End-to-end: hostile input and failure — the panic panel, a strict Content Security Policy, a 10,000-step
// trace replayed in slices within a memory bound, and rejecting triggers shown with nothing half-written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { launch, openPage } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** The policy the release page runs under: Trunk's one inline loader script is allowed by its hash. */
export function contentSecurityPolicy() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const inline = [...html.matchAll(/<script type=["']?module["']?>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  const hashes = inline.map((s) => `'sha256-${crypto.createHash('sha256').update(s).digest('base64')}'`);
  return ["default-src 'self'", `script-src 'self' 'wasm-unsafe-eval' ${hashes.join(' ')}`, "style-src 'self'",
    "img-src 'self' data:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'"].join('; ');
}

const result = (page) => page.getByTestId('step-result').innerText();

test('the page works under a strict Content Security Policy with no violation', async () => {
  const server = await serve(DIST, { headers: { 'content-security-policy': contentSecurityPolicy() } });
  const context = await browser.newContext({ acceptDownloads: true });
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(server.url);
  await page.getByTestId('lane').waitFor();
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-all').click();
  await page.getByTestId('process-all').click();
  assert.match(await page.getByTestId('projection-A').innerText(), /released/);
  await page.getByTestId('copy-link').click();
  await page.getByTestId('lang-switch').click();
  await page.getByTestId('experiments-summary').filter({ hasText: '12/12' }).waitFor();
  await page.getByTestId('preset-09').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  assert.ok(await download.path());
  // The checker's worker: a script from the page's origin that imports the same glue and instantiates the
  // module the page compiled.
  await page.getByTestId('gallery-greater_than').click();
  await page.locator('[data-testid="check-result"][data-verdict="violated"]').waitFor();
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(errors, []);
  await context.close();
  await server.close();
});

test('a panic shows a panel with a reset instead of a dead page', async () => {
  const server = await serve(DIST);
  const page = await openPage(browser, `${server.url}#t=nonsense`);
  page.errors.length = 0;
  // No reader action can reach a panic; the test calls the one deliberate panic the module exports.
  await page.evaluate(() => { try { window.wasmBindings.debug_panic(); } catch (e) { /* the abort after the hook */ } });
  const panel = page.getByTestId('panic-panel');
  await panel.waitFor();
  assert.match(await panel.innerText(), /deliberate panic/);
  await page.getByTestId('panic-reset').click();
  await page.waitForURL((u) => !u.hash);
  await page.getByTestId('lane').waitFor();
  assert.equal(await page.getByTestId('panic-panel').count(), 0);
  await page.getByTestId('advance-A').click();
  assert.equal(await result(page), 'committed');
  await page.context().close();
  await server.close();
});

test('a 10,000-step trace replays in slices, without freezing, within 64 MiB of wasm memory', async (t) => {
  const server = await serve(DIST);
  const context = await browser.newContext();
  // Closed even when an assertion fails, so a failure ends the run instead of leaving it waiting.
  t.after(async () => { await context.close(); await server.close(); });
  await context.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; });
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.getByTestId('lane').waitFor();
  const steps = [];
  for (const flow of ['A', 'B']) {
    ['reserved', 'confirmed', 'released'].forEach((kind, i) => steps.push(
      { op: 'advance', flow, event_id: `${flow}${i + 1}`, expected_seq: i, kind, schema: 1, payload: { amount: 3 } }));
  }
  while (steps.length < 10_000) {
    const k = steps.length % 4;
    steps.push(k === 0 ? { op: 'relay' } : k === 1 ? { op: 'apply', flow: 'A' } : k === 2 ? { op: 'relay', event_id: 'B1' } : { op: 'process_all', limit: 3 });
  }
  const text = JSON.stringify({ format: 'outbox-playground-trace/1', steps });
  assert.ok(text.length < 1024 * 1024);
  await page.getByTestId('import-text').fill(text);
  await page.getByTestId('import-load').click();
  // Progress is shown while it runs: the replay yields to the browser between slices.
  const seen = new Set();
  while ((await page.getByTestId('loading').count()) > 0) {
    seen.add(await page.getByTestId('loading').innerText().catch(() => ''));
    await page.waitForTimeout(50);
  }
  // Seen mid-run at least once (how often depends on this machine's speed, so the count is not asserted).
  assert.ok([...seen].some((text) => /Replaying step \d+ of 10000/.test(text)), `progress updates seen: ${[...seen].join(' | ')}`);
  assert.equal(await page.getByTestId('position').innerText(), 'after step 10000 of 10000');
  assert.match(await page.getByTestId('projection-A').innerText(), /released · last_seq=3 · held=0/);
  assert.match(await page.getByTestId('projection-B').innerText(), /released · last_seq=3 · held=0/);
  const memory = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  console.log(`10,000 steps: wasm memory ${(memory / 1048576).toFixed(1)} MiB, longest task ${await page.evaluate(() => window.__longest)} ms`);
  assert.ok(memory <= 64 * 1048576, `wasm memory ${memory} bytes`);
  // Time travel to the middle of the long trace replays 5,000 steps: in slices too, with progress.
  await page.getByTestId('timeline').fill('5000');
  const travelled = new Set();
  while ((await page.getByTestId('loading').count()) > 0) {
    travelled.add(await page.getByTestId('loading').innerText().catch(() => ''));
    await page.waitForTimeout(50);
  }
  assert.ok([...travelled].some((text) => /of 5000/.test(text)), `time-travel progress seen: ${[...travelled].join(' | ')}`);
  assert.equal(await page.getByTestId('position').innerText(), 'after step 5000 of 10000');
  assert.match(await page.getByTestId('projection-A').innerText(), /released · last_seq=3 · held=0/);
  const tables = () => page.evaluate(() => [...document.querySelectorAll('table')].map((t) => t.innerText).join('\n'));
  const settle = () => page.getByTestId('loading').waitFor({ state: 'detached' });
  const at5000 = await tables();
  // One step forward continues the session at once; one back replays again, and lands where it was.
  await page.getByTestId('forward').click();
  assert.equal(await page.getByTestId('position').innerText(), 'after step 5001 of 10000');
  const continued = await tables();
  await page.getByTestId('back').click();
  await settle();
  assert.equal(await page.getByTestId('position').innerText(), 'after step 5000 of 10000');
  assert.equal(await tables(), at5000);
  // Step 5001 replayed from scratch has the very tables the continued session had.
  await page.getByTestId('timeline').fill('10000');
  await settle();
  await page.getByTestId('timeline').fill('5001');
  await settle();
  assert.equal(await page.getByTestId('position').innerText(), 'after step 5001 of 10000');
  assert.equal(await tables(), continued);
  // A reader's action during a long replay stops it and acts on the page as it is: a new branch at 5001.
  await page.evaluate(() => {
    // In one task, so the click lands before the replay's first slice whatever this machine's speed.
    const range = document.querySelector('[data-testid="timeline"]');
    range.value = '9000';
    range.dispatchEvent(new Event('input', { bubbles: true }));
    document.querySelector('[data-testid="apply-A"]').click();
  });
  await settle();
  await page.waitForTimeout(300);
  assert.equal(await page.getByTestId('loading').count(), 0);
  assert.equal(await page.getByTestId('position').innerText(), 'after step 5002 of 5002');
  console.log(`10,000 steps, time travel: longest task ${await page.evaluate(() => window.__longest)} ms`);
  assert.deepEqual(errors, []);
});

test('rejecting triggers show as errors and leave nothing half-written', async () => {
  const server = await serve(DIST);
  const page = await openPage(browser, server.url);
  await page.getByTestId('fault-outbox_insert').check();
  await page.getByTestId('advance-A').click();
  assert.equal(await result(page), 'sql_error');
  assert.match(await page.locator('.status .why').innerText(), /outbox insert rejected/);
  // The state change went with the rejected outbox row: no flow row, no outbox row.
  assert.match(await page.locator('.producer table').first().innerText(), /\(empty\)/);
  assert.equal(await page.locator('[data-testid^="outbox-row-"]').count(), 0);
  await page.getByTestId('fault-outbox_insert').uncheck();
  await page.getByTestId('advance-A').click();
  assert.equal(await result(page), 'committed');
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('fault-effect_insert').check();
  await page.getByTestId('apply-A').click();
  assert.equal(await result(page), 'sql_error');
  assert.match(await page.locator('.status .why').innerText(), /effect insert rejected/);
  // The projection did not move without its effect; the event waits, pending.
  assert.match(await page.getByTestId('projection-A').innerText(), /new · last_seq=0/);
  assert.equal(await page.getByTestId('effect-row').count(), 0);
  assert.equal(await page.getByTestId('inbox-row-A1').getAttribute('data-state'), 'pending');
  await page.getByTestId('fault-effect_insert').uncheck();
  await page.getByTestId('apply-A').click();
  assert.equal(await result(page), 'applied');
  assert.equal(await page.getByTestId('invariant').getAttribute('data-holds'), 'true');
  assert.deepEqual(page.errors, []);
  await page.context().close();
  await server.close();
});
