// End-to-end: the checker in the page (issue 12). Its searches run in a Web Worker on the page's own module;
// the page must show the same counts and verdicts as `experiments check`, never block the main thread, open a
// counterexample in the player, and carry a check in a link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openPage, servedDist, ROOT } from './browser.mjs';

const env = servedDist();

async function fresh(hash = '') {
  const page = await openPage(env.browser, `${env.server.url}${hash}`, { viewport: { width: 1280, height: 900 } });
  return page;
}

/** `experiments check --json` for the same knobs: the CLI's word on the configuration. */
function cli(knobs) {
  const args = ['run', '--release', '--quiet', '--bin', 'experiments', '--', 'check', '--json', '--threads', '1'];
  for (const [k, v] of Object.entries(knobs)) if (v !== '') args.push(`--${k}`, String(v));
  try {
    return JSON.parse(execFileSync('cargo', args, { cwd: ROOT, encoding: 'utf8' }));
  } catch (e) {
    // Exit 1 is a violation: the document is still on stdout. Anything else is a failure to report as it is.
    if (e.status !== 1) throw e;
    return JSON.parse(e.stdout);
  }
}

async function setKnobs(page, knobs) {
  for (const k of ['flows', 'events', 'resends', 'crashes', 'consumer', 'producer']) {
    if (knobs[k] !== undefined) await page.getByTestId(`check-${k}`).selectOption(String(knobs[k]));
  }
  await page.getByTestId('check-schema2').fill(knobs.schema2 ?? '');
  await page.getByTestId('check-schema2').dispatchEvent('change');
}

/** The result element once the run is over, as its data attributes (without the time it took). */
async function verdict(page) {
  const el = page.locator('[data-testid="check-result"][data-verdict="holds"], [data-testid="check-result"][data-verdict="violated"]');
  await el.waitFor({ timeout: 240000 });
  const { elapsedMs, ...rest } = await el.evaluate((e) => ({ ...e.dataset }));
  assert.match(elapsedMs, /^\d+$/);
  return rest;
}

test('strict holds in the page with the CLI\'s counts, and a wrong turn is caught with the CLI\'s counterexample', async () => {
  const page = await fresh();
  const knobs = { flows: 1, events: 3, resends: 1, crashes: 1, consumer: 'strict', producer: 'atomic', schema2: 'A2' };
  await setKnobs(page, knobs);
  await page.getByTestId('check-run').click();
  const got = await verdict(page);
  const want = cli(knobs);
  assert.equal(got.verdict, 'holds');
  assert.equal(got.verdict, want.verdict);
  assert.equal(Number(got.states), want.counts.states);
  assert.equal(Number(got.transitions), want.counts.transitions);

  const wrong = { ...knobs, consumer: 'greater_than', schema2: '' };
  await setKnobs(page, wrong);
  await page.getByTestId('check-run').click();
  const broken = await verdict(page);
  const cliBroken = cli(wrong);
  assert.equal(broken.verdict, 'violated');
  assert.equal(broken.property, cliBroken.property);
  assert.equal(Number(broken.length), cliBroken.counterexample.steps.length);
  assert.equal(Number(broken.states), cliBroken.counts.states);
  assert.equal(Number(broken.transitions), cliBroken.counts.transitions);
  // The numbered history and the sentence that says why are on the page.
  assert.equal(await page.getByTestId('check-steps').locator('li').count(), Number(broken.length));
  assert.equal(await page.getByTestId('check-why').innerText(), cliBroken.why);

  // Opened in the player: the whole history, time travel at its end, the badge red.
  await page.getByTestId('check-open').click();
  await page.locator(`[data-testid="timeline"][max="${broken.length}"]`).waitFor();
  await page.locator('[data-testid="invariant"][data-holds="false"]').waitFor();
  assert.equal(await page.getByTestId('mode-select').inputValue(), 'greater_than');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the default configuration runs off the main thread: no long task over 50 ms, one download of the module', async () => {
  const page = await fresh();
  // The page's own start-up work (the twelve experiments, replayed after the first paint) is over first: what
  // is measured is the run.
  await page.getByTestId('experiments-summary').filter({ hasText: '12/12' }).waitFor();
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
  await page.getByTestId('check-progress').waitFor();
  const got = await verdict(page);
  assert.equal(got.verdict, 'holds');
  const want = cli({ flows: 2, events: 3, resends: 1, crashes: 1 });
  assert.equal(Number(got.states), want.counts.states);
  // What the observer saw, including entries not yet delivered to its callback.
  const long = await page.evaluate(() => [...window.__long, ...window.__observer.takeRecords().map((e) => Math.round(e.duration))]);
  assert.deepEqual(long.filter((d) => d > 50), [], `long tasks during the run: ${long.join(', ')} ms`);
  assert.deepEqual(wasm, [], 'the worker instantiates the module the page already has');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the gallery catches every wrong turn with its shortest history, and strict holds beside it', async () => {
  const page = await fresh();
  // A select the reader has touched must still follow the gallery's configuration.
  await page.getByTestId('check-consumer').selectOption('skip_blocked');
  const cases = {
    unsafe_dual_write: { flows: 1, events: 2, resends: 0, crashes: 1, consumer: 'strict', producer: 'unsafe_dual_write' },
    dedupe_only: { flows: 1, events: 2, resends: 0, crashes: 0, consumer: 'dedupe_only' },
    greater_than: { flows: 1, events: 2, resends: 0, crashes: 0, consumer: 'greater_than' },
    effect_outside_tx: { flows: 1, events: 2, resends: 0, crashes: 1, consumer: 'effect_outside_tx' },
    skip_blocked: { flows: 1, events: 3, resends: 0, crashes: 0, consumer: 'skip_blocked', schema2: 'A2' },
  };
  for (const [name, knobs] of Object.entries(cases)) {
    await page.getByTestId(`gallery-${name}`).click();
    await page.getByTestId(`gallery-${name}-result`).waitFor({ timeout: 120000 });
    const got = await verdict(page);
    const want = cli(knobs);
    assert.equal(got.verdict, 'violated', name);
    assert.equal(got.property, want.property, name);
    assert.equal(Number(got.length), want.counterexample.steps.length, name);
    const strict = cli({ ...knobs, consumer: 'strict', producer: 'atomic' });
    assert.equal(strict.verdict, 'holds');
    assert.match(await page.getByTestId('check-strict').innerText(), new RegExp(`\\b${strict.counts.states}\\b`), name);
    // The knobs show the configuration the entry ran.
    assert.equal(await page.getByTestId('check-consumer').inputValue(), knobs.consumer);
    assert.equal(await page.getByTestId('check-producer').inputValue(), knobs.producer ?? 'atomic');
    assert.equal(await page.getByTestId('check-events').inputValue(), String(knobs.events));
  }
  // The unsafe producer's history opens in the player too: its steps, then the lost transition in the tables.
  await page.getByTestId('gallery-unsafe_dual_write').click();
  const lost = await verdict(page);
  await page.getByTestId('check-open').click();
  await page.locator(`[data-testid="timeline"][max="${lost.length}"]`).waitFor();
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a check is a link: opening it runs the same search and shows the same result', async () => {
  const page = await fresh();
  await setKnobs(page, { flows: 1, events: 2, resends: 0, crashes: 1, consumer: 'effect_outside_tx' });
  await page.getByTestId('check-run').click();
  const first = await verdict(page);
  const href = await page.getByTestId('check-share').getAttribute('href');
  assert.match(href, /^#check\?flows=1&events=2&resends=0&crashes=1&consumer=effect_outside_tx&producer=atomic&verdict=violated/);
  await page.context().close();

  const opened = await fresh(href);
  const again = await verdict(opened);
  assert.deepEqual(again, first);
  await opened.locator('[data-testid="check-link-match"][data-match="true"]').waitFor();
  assert.equal(await opened.getByTestId('check-consumer').inputValue(), 'effect_outside_tx');
  // A link pasted into the open page's address bar runs too; one whose recorded result is not what the page
  // finds says which part differs.
  await opened.evaluate(() => { location.hash = '#check?flows=1&events=2&resends=0&crashes=0&consumer=greater_than&verdict=holds'; });
  await opened.locator('[data-testid="check-link-match"][data-match="false"]').filter({ hasText: /recorded verdict=holds; this page found verdict=violated/ }).waitFor();
  assert.equal((await verdict(opened)).verdict, 'violated');
  assert.deepEqual(opened.errors, []);
  await opened.context().close();

  // A link to a configuration larger than the default fills the knobs and waits for the reader.
  const large = await fresh('#check?flows=3&events=3&resends=1&crashes=1&consumer=strict');
  await large.getByTestId('check-offered').waitFor();
  assert.equal(await large.getByTestId('check-flows').inputValue(), '3');
  assert.equal(await large.getByTestId('check-progress').count(), 0);
  await large.getByTestId('check-run').click();
  await large.getByTestId('check-progress').waitFor();
  await large.getByTestId('check-stop').click();
  await large.locator('[data-testid="check-result"][data-verdict="stopped"]').waitFor();
  assert.deepEqual(large.errors, []);
  await large.context().close();
});

test('bad knobs and a hand-edited check link get a message that names what is wrong, and run nothing', async () => {
  const page = await fresh('#check?flows=9&consumer=strict');
  await page.getByTestId('notice').filter({ hasText: 'flows must be a whole number from 1 to 3' }).waitFor();
  await page.getByTestId('check-error').filter({ hasText: 'flows must be a whole number from 1 to 3' }).waitFor();
  assert.equal(await page.getByTestId('check-result').count(), 0);
  await page.getByTestId('check-schema2').fill('Z9');
  await page.getByTestId('check-schema2').dispatchEvent('change');
  await page.getByTestId('check-run').click();
  await page.getByTestId('check-error').filter({ hasText: 'Z9' }).waitFor();
  assert.equal(await page.getByTestId('check-progress').count(), 0);
  assert.equal(await page.getByTestId('check-result').count(), 0);
  // Stop ends a run without a verdict, and the knobs come back.
  await page.getByTestId('check-schema2').fill('');
  await page.getByTestId('check-schema2').dispatchEvent('change');
  await page.getByTestId('check-flows').selectOption('3');
  await page.getByTestId('check-run').click();
  await page.getByTestId('check-progress').waitFor();
  await page.getByTestId('check-stop').click();
  await page.locator('[data-testid="check-result"][data-verdict="stopped"]').waitFor();
  assert.equal(await page.getByTestId('check-flows').isEnabled(), true);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the explorer runs a wrong turn beside strict: the player\'s consumer', async () => {
  const page = await fresh();
  await page.getByTestId('mode-select').selectOption('greater_than');
  await page.getByTestId('explorer-run').click();
  await page.locator('[data-testid="explorer-progress"][data-running="false"]').waitFor({ timeout: 120000 });
  const strict = page.getByTestId('matrix-summary-strict');
  const wrong = page.getByTestId('matrix-summary-greater_than');
  assert.equal(await strict.getAttribute('data-failed'), '0');
  assert.ok(Number(await wrong.getAttribute('data-failed')) > 0, 'greater-than fails somewhere');
  assert.equal(await page.getByTestId('matrix-summary-dedupe_only').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
