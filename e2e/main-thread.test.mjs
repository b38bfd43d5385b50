// End-to-end: the checker's default search leaves the page's main thread free (issue 12: no long task over
// 50 ms). Measured without Playwright's tracer: it serialises the page's DOM for its snapshots on the page's own
// main thread, at every action and assertion retry, and those tasks (51 and 83 ms seen on this page late in full
// runs) are the tool's, not the page's. A failure here still keeps its screenshot.
import { test, expect } from './fixtures.mjs';
import { VIEW, cli, expectSameAsCli } from './checker-shared.mjs';

test.use({ trace: 'off' });
// One retry, reported as "flaky" when it is used: these tests time real tasks on a shared 2-core machine. Under
// load (one core kept busy), the scrolling test's tasks reach 50–69 ms in about a quarter of its runs, on this
// build and on the builds before it alike, and the clean-clone run once saw 52 ms; idle, 6 runs of 6 stay under
// 50. A real regression (every run over 50 ms) still fails both tries.
test.describe.configure({ retries: 1 });

test('the default configuration runs off the main thread: no long task over 50 ms, one download of the module', async ({ dist, open }) => {
  const want = cli({ flows: 2, events: 3, resends: 1, crashes: 1 });
  expect(want.verdict).toBe('holds');
  const page = await open(dist.url, VIEW);
  // The page's own start-up work (the twelve experiments, replayed after the first paint) is over first: what
  // is measured is the run.
  await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url()); });
  await page.evaluate(() => {
    window.__long = [];
    window.__observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push(Math.round(e.duration));
    });
    window.__observer.observe({ type: 'longtask' });
  });
  await page.getByTestId('check-run').click();
  // Progress while it runs (states counted so far), then the verdict.
  await expect(page.getByTestId('check-progress')).toBeVisible();
  await expectSameAsCli(page, want, { transitions: false });
  // What the observer saw, including entries not yet delivered to its callback.
  const long = await page.evaluate(() => [...window.__long, ...window.__observer.takeRecords().map((e) => Math.round(e.duration))]);
  expect(long.filter((d) => d > 50), `long tasks during the run: ${long.join(', ')} ms`).toEqual([]);
  expect(wasm, 'the worker instantiates the module the page already has').toEqual([]);
});

test('a 10,000-step diagram draws only the rows on screen, and scrolling it has no long task over 50 ms', async ({ dist, open }) => {
  const page = await open(dist.url, { viewport: { width: 1280, height: 900 } });
  await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
  const steps = [];
  ['reserved', 'confirmed', 'released'].forEach((kind, i) => steps.push(
    { op: 'advance', flow: 'A', event_id: `A${i + 1}`, expected_seq: i, kind, schema: 1, payload: { amount: 3 } }));
  while (steps.length < 10_000) steps.push(steps.length % 2 ? { op: 'relay', event_id: 'A1' } : { op: 'apply', flow: 'A' });
  await page.getByTestId('import-text').fill(JSON.stringify({ format: 'outbox-playground-trace/1', steps }));
  await page.getByTestId('import-load').click();
  await expect(page.getByTestId('position')).toHaveText('after step 10000 of 10000', { timeout: 120_000 });
  const rows = page.getByTestId('diagram').locator('g.row');
  // Only a window of rows is in the DOM, around the current (last) step, which is in view.
  await expect(page.getByTestId('diagram').locator('g.row[data-step="9999"]')).toBeVisible();
  expect(await rows.count()).toBeLessThan(120);
  await page.evaluate(() => {
    window.__long = [];
    window.__observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push(Math.round(e.duration));
    });
    window.__observer.observe({ type: 'longtask' });
  });
  // Scroll the diagram from the end to the start with the wheel, as a reader would, then jump to the middle.
  const box = page.locator('.diagram-scroll');
  await box.hover();
  for (let i = 0; i < 30; i++) await page.mouse.wheel(0, -4000);
  await box.evaluate((el) => { el.scrollTop = el.scrollHeight / 2; });
  await expect(page.getByTestId('diagram').locator('g.row[data-step="5000"]')).toBeAttached();
  await box.evaluate((el) => { el.scrollTop = 0; });
  await expect(page.getByTestId('diagram').locator('g.row[data-step="0"]')).toBeVisible();
  expect(await rows.count()).toBeLessThan(120);
  const long = await page.evaluate(() => [...window.__long, ...window.__observer.takeRecords().map((e) => Math.round(e.duration))]);
  expect(long.filter((d) => d > 50), `long tasks while scrolling: ${long.join(', ')} ms`).toEqual([]);
});
