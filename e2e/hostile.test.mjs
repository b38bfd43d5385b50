// End-to-end: hostile input and failure — the panic panel, a strict Content Security Policy, a 10,000-step
// trace replayed in slices within a memory bound, and rejecting triggers shown with nothing half-written.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, pendingTasksRun, step, DIST } from './fixtures.mjs';

/** The policy the release page runs under: its inline code (the start-up script, Trunk's loader and the
 * stylesheet, inlined so the first screen paints from the HTML alone) is allowed by its hash, nothing else. */
export function contentSecurityPolicy() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const hashes = (re) => [...html.matchAll(re)]
    .map((m) => `'sha256-${crypto.createHash('sha256').update(m[1]).digest('base64')}'`).join(' ');
  const scripts = hashes(/<script(?: type=["']?module["']?)?>([\s\S]*?)<\/script>/g);
  const styles = hashes(/<style>([\s\S]*?)<\/style>/g);
  if (!scripts || !styles) throw new Error('index.html: no inline script or style to allow');
  return ["default-src 'self'", `script-src 'self' 'wasm-unsafe-eval' ${scripts}`, `style-src 'self' ${styles}`,
    "img-src 'self' data:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'"].join('; ');
}

const position = (page) => page.getByTestId('position');

test('the page works under a strict Content Security Policy with no violation', async ({ open, serveDir }) => {
  const server = await serveDir(DIST, { headers: { 'content-security-policy': contentSecurityPolicy() } });
  const page = await open(server.url, {
    init: () => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    },
  });
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-all').click();
  await page.getByTestId('process-all').click();
  await expect(page.getByTestId('projection-A')).toContainText('released');
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-link')).toHaveValue(/#t=/);
  await page.getByTestId('lang-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-Hans');
  await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
  await page.getByTestId('preset-09').click();
  await expect(page.getByTestId('preset').locator('h3')).toHaveText(/^✓\s*09\s/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  expect(await download.failure()).toBeNull();
  // The checker's worker: a script from the page's origin that imports the same glue and instantiates the
  // module the page compiled.
  await page.getByTestId('gallery-greater_than').click();
  await expect(page.getByTestId('check-result')).toHaveAttribute('data-verdict', 'violated', { timeout: 120_000 });
  // A violation is reported in a task of its own: those queued by now have run.
  await pendingTasksRun(page);
  expect(await page.evaluate(() => window.__csp)).toEqual([]);
});

test('a panic shows a panel with a reset instead of a dead page', async ({ dist, open }) => {
  const page = await open(`${dist.url}#t=nonsense`);
  await expect(page.getByTestId('notice')).toContainText('the link:');
  // No reader action can reach a panic; the test calls the one deliberate panic the module exports.
  await page.evaluate(() => { try { window.wasmBindings.debug_panic(); } catch (e) { /* the abort after the hook */ } });
  const panel = page.getByTestId('panic-panel');
  await expect(panel).toContainText('deliberate panic');
  // The panic is on the console too, as it should be; from here on the page must be clean again.
  expect(page.errors.join('\n')).toContain('deliberate panic');
  page.errors.length = 0;
  await page.getByTestId('panic-reset').click();
  await page.waitForURL((u) => !u.hash);
  await expect(page.getByTestId('lane')).toBeVisible();
  await expect(panel).toHaveCount(0);
  await step(page, 'advance-A', 'committed');
});

test('a 10,000-step trace replays in slices, without freezing, within 64 MiB of wasm memory', async ({ dist, open }) => {
  const page = await open(dist.url, {
    init: () => {
      addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail.wasm; });
      window.__longest = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
      }).observe({ type: 'longtask', buffered: true });
      // What the progress line said at each frame the browser rendered: the reader's view of a replay.
      window.__shown = [];
      const frame = () => {
        const text = document.querySelector('[data-testid="loading"]')?.textContent;
        if (text && text !== window.__shown.at(-1)) window.__shown.push(text);
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    },
  });
  const shown = () => page.evaluate(() => window.__shown.splice(0));
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
  await page.getByTestId('import-text').fill(text);
  await page.getByTestId('import-load').click();
  await expect(position(page)).toHaveText('after step 10000 of 10000', { timeout: 120_000 });
  await expect(page.getByTestId('loading')).toHaveCount(0);
  // Accepted whole (it is under the 1 MiB limit), with no message.
  await expect(page.getByTestId('notice')).toHaveCount(0);
  // Progress was on screen while it ran: the replay yields to the browser between slices. (How often depends on
  // this machine's speed, so the count is not asserted.)
  const progress = await shown();
  expect(progress.some((s) => /Replaying step \d+ of 10000/.test(s)), `progress seen: ${progress.join(' | ')}`).toBe(true);
  await expect(page.getByTestId('projection-A')).toContainText('released · last_seq=3 · held=0');
  await expect(page.getByTestId('projection-B')).toContainText('released · last_seq=3 · held=0');
  const memory = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  console.log(`10,000 steps: wasm memory ${(memory / 1048576).toFixed(1)} MiB, longest task ${await page.evaluate(() => window.__longest)} ms`);
  expect(memory, 'wasm memory in bytes').toBeLessThanOrEqual(64 * 1048576);
  // Time travel to the middle of the long trace replays 5,000 steps: in slices too, with progress.
  await page.getByTestId('timeline').fill('5000');
  await expect(position(page)).toHaveText('after step 5000 of 10000', { timeout: 120_000 });
  await expect(page.getByTestId('loading')).toHaveCount(0);
  const travelled = await shown();
  expect(travelled.some((s) => /of 5000/.test(s)), `time-travel progress seen: ${travelled.join(' | ')}`).toBe(true);
  await expect(page.getByTestId('projection-A')).toContainText('released · last_seq=3 · held=0');
  const tables = () => page.evaluate(() => [...document.querySelectorAll('table')].map((t) => t.innerText).join('\n'));
  const at5000 = await tables();
  // One step forward continues the session at once; one back replays again, and lands where it was.
  await page.getByTestId('forward').click();
  await expect(position(page)).toHaveText('after step 5001 of 10000');
  // (The trace is in a steady state here: the tables at 5000, 5001 and 10000 are the same, so it is the
  // position that tells the steps apart, and the tables that say a replay from scratch agrees with the session.)
  const continued = await tables();
  await page.getByTestId('back').click();
  await expect(position(page)).toHaveText('after step 5000 of 10000');
  await expect(page.getByTestId('loading')).toHaveCount(0);
  await expect.poll(tables).toBe(at5000);
  // Step 5001 replayed from scratch has the very tables the continued session had.
  await page.getByTestId('timeline').fill('10000');
  await expect(position(page)).toHaveText('after step 10000 of 10000', { timeout: 120_000 });
  await page.getByTestId('timeline').fill('5001');
  await expect(position(page)).toHaveText('after step 5001 of 10000', { timeout: 120_000 });
  await expect(page.getByTestId('loading')).toHaveCount(0);
  await expect.poll(tables).toBe(continued);
  // A reader's action during a long replay stops it and acts on the page as it is: a new branch at 5001.
  // Slides the timeline to `to` and clicks `testid` in one task, so the click lands before the replay's first
  // slice whatever this machine's speed.
  const slideThenClick = (to, testid) => page.evaluate(([to, testid]) => {
    const range = document.querySelector('[data-testid="timeline"]');
    range.value = to;
    range.dispatchEvent(new Event('input', { bubbles: true }));
    document.querySelector(`[data-testid="${testid}"]`).click();
  }, [to, testid]);
  await slideThenClick('9000', 'apply-A');
  await expect(position(page)).toHaveText('after step 5002 of 5002');
  // The replay towards 9000 had a slice queued; once it has had its turn, nothing of it shows.
  await pendingTasksRun(page);
  expect(await page.getByTestId('loading').count(), 'the stopped replay went on').toBe(0);
  expect(await position(page).innerText()).toBe('after step 5002 of 5002');
  // So does a short time travel. From one step back, a long replay back to step 1000 starts and a step forward
  // (one step: replayed at once, not in slices) comes in the same task.
  await page.getByTestId('back').click();
  await expect(position(page)).toHaveText('after step 5001 of 5002', { timeout: 120_000 });
  await expect(page.getByTestId('loading')).toHaveCount(0);
  await shown();
  await slideThenClick('1000', 'forward');
  await expect(position(page)).toHaveText('after step 5002 of 5002');
  // The replay's first slice was queued before the click; twice over, every queued task has run and a frame
  // has been drawn: a replay still going would have shown its progress by now.
  await pendingTasksRun(page);
  await pendingTasksRun(page);
  expect(await shown(), 'the stopped replay towards step 1000 showed progress').toEqual([]);
  expect(await position(page).innerText()).toBe('after step 5002 of 5002');
  console.log(`10,000 steps, time travel: longest task ${await page.evaluate(() => window.__longest)} ms`);
});

test('rejecting triggers show as errors and leave nothing half-written', async ({ dist, open }) => {
  const page = await open(dist.url);
  const why = page.locator('.status .why');
  await page.getByTestId('fault-outbox_insert').check();
  await step(page, 'advance-A', 'sql_error');
  await expect(why).toContainText('outbox insert rejected');
  // The state change went with the rejected outbox row: no flow row, no outbox row.
  await expect(page.locator('.producer table').first()).toContainText('(empty)');
  await expect(page.locator('[data-testid^="outbox-row-"]')).toHaveCount(0);
  await page.getByTestId('fault-outbox_insert').uncheck();
  await step(page, 'advance-A', 'committed');
  await expect(page.locator('.producer table').first()).not.toContainText('(empty)');
  await step(page, 'deliver-next', 'accepted');
  await page.getByTestId('fault-effect_insert').check();
  await step(page, 'apply-A', 'sql_error');
  await expect(why).toContainText('effect insert rejected');
  // The projection did not move without its effect; the event waits, pending.
  await expect(page.getByTestId('projection-A')).toContainText(/new · last_seq=0/);
  await expect(page.getByTestId('effect-row')).toHaveCount(0);
  await expect(page.getByTestId('inbox-row-A1')).toHaveAttribute('data-state', 'pending');
  await page.getByTestId('fault-effect_insert').uncheck();
  await step(page, 'apply-A', 'applied');
  await expect(page.getByTestId('effect-row')).toHaveCount(1);
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'true');
});
