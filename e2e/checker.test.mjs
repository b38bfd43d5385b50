// End-to-end: the checker in the page (issue 12). Its searches run in a Web Worker on the page's own module;
// the page must show the same counts and verdicts as `experiments check`, never block the main thread, open a
// counterexample in the player, and carry a check in a link.
import { test, expect } from './fixtures.mjs';
import { VIEW, SEARCH, cli, setKnobs, expectSameAsCli } from './checker-shared.mjs';


/** The finished result's data attributes, without the time it took. */
async function verdictOf(page) {
  const done = page.locator('[data-testid="check-result"][data-verdict="holds"], [data-testid="check-result"][data-verdict="violated"]');
  await expect(done).toBeVisible(SEARCH);
  const { elapsedMs, ...rest } = await done.evaluate((e) => ({ ...e.dataset }));
  expect(elapsedMs).toMatch(/^\d+$/);
  return rest;
}

test('strict holds in the page with the CLI\'s counts, and a wrong turn is caught with the CLI\'s counterexample', async ({ dist, open }) => {
  const knobs = { flows: 1, events: 3, resends: 1, crashes: 1, consumer: 'strict', producer: 'atomic', schema2: 'A2' };
  const want = cli(knobs);
  expect(want.verdict).toBe('holds');
  const wrong = { ...knobs, consumer: 'greater_than', schema2: '' };
  const cliBroken = cli(wrong);
  expect(cliBroken.verdict).toBe('violated');

  const page = await open(dist.url, VIEW);
  await setKnobs(page, knobs);
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, want);

  await setKnobs(page, wrong);
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, cliBroken);
  // The numbered history and the sentence that says why are on the page.
  const length = cliBroken.counterexample.steps.length;
  await expect(page.getByTestId('check-steps').locator('li')).toHaveCount(length);
  // One paragraph says why: the explanation, naming the property and the step that broke it.
  const explain = page.locator('.check-result').getByTestId('explain');
  await expect(explain).toContainText(`${cliBroken.property}: Step ${length} (`);
  await expect(page.getByTestId('check-why')).toHaveCount(0);

  // Opened in the player: the whole history, time travel at its end, the badge red.
  await page.getByTestId('check-open').click();
  await expect(page.getByTestId('timeline')).toHaveAttribute('max', String(length));
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'false');
  await expect(page.getByTestId('mode-select')).toHaveValue('greater_than');
});


test('power cuts: under FULL strict holds with the CLI\'s counts, under NORMAL the page finds the CLI\'s loss and the player replays it', async ({ dist, open }) => {
  const full = { flows: 1, events: 2, resends: 0, crashes: 1, consumer: 'strict', producer: 'atomic', 'power-cuts': 1, synchronous: 'full' };
  const wantFull = cli(full);
  expect(wantFull.verdict).toBe('holds');
  const normal = { ...full, synchronous: 'normal' };
  const wantNormal = cli(normal);
  expect(wantNormal.verdict).toBe('violated');
  expect(wantNormal.property).toBe('no_loss');

  const page = await open(dist.url, VIEW);
  await setKnobs(page, full);
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, wantFull);
  await setKnobs(page, normal);
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, wantNormal);
  // The history sets synchronous first, and the consumer's cut takes back what it acknowledged.
  const steps = page.getByTestId('check-steps').locator('li');
  await expect(steps).toHaveCount(wantNormal.counterexample.steps.length);
  await expect(steps.first()).toContainText('set_synchronous');
  await expect(steps.last()).toContainText('power_cut');
  await page.getByTestId('check-open').click();
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'false');
  await expect(page.getByTestId('invariant')).toContainText('no_loss');
});

test('the gallery catches every wrong turn with its shortest history, and strict holds beside it', async ({ dist, open }) => {
  const cases = {
    unsafe_dual_write: { flows: 1, events: 2, resends: 0, crashes: 1, consumer: 'strict', producer: 'unsafe_dual_write' },
    dedupe_only: { flows: 1, events: 2, resends: 0, crashes: 0, consumer: 'dedupe_only' },
    greater_than: { flows: 1, events: 2, resends: 0, crashes: 0, consumer: 'greater_than' },
    effect_outside_tx: { flows: 1, events: 2, resends: 0, crashes: 1, consumer: 'effect_outside_tx' },
    skip_blocked: { flows: 1, events: 3, resends: 0, crashes: 0, consumer: 'skip_blocked', schema2: 'A2' },
  };
  const want = {};
  for (const [name, knobs] of Object.entries(cases)) {
    const wrong = cli(knobs);
    expect(wrong.verdict, name).toBe('violated');
    const strict = cli({ ...knobs, consumer: 'strict', producer: 'atomic' });
    expect(strict.verdict, `${name}, strict`).toBe('holds');
    want[name] = { wrong, strict };
  }
  const page = await open(dist.url, VIEW);
  // A select the reader has touched must still follow the gallery's configuration.
  await page.getByTestId('check-consumer').selectOption('skip_blocked');
  for (const [name, knobs] of Object.entries(cases)) {
    await test.step(name, async () => {
      await page.getByTestId(`gallery-${name}`).click();
      await expect(page.getByTestId(`gallery-${name}-result`)).toBeVisible({ timeout: 120_000 });
      const result = page.getByTestId('check-result');
      await expect(result).toHaveAttribute('data-verdict', 'violated');
      await expect(result).toHaveAttribute('data-property', want[name].wrong.property);
      await expect(result).toHaveAttribute('data-length', String(want[name].wrong.counterexample.steps.length));
      await expect(page.getByTestId('check-strict')).toHaveText(new RegExp(`\\b${want[name].strict.counts.states}\\b`));
      // The knobs show the configuration the entry ran.
      await expect(page.getByTestId('check-consumer')).toHaveValue(knobs.consumer);
      await expect(page.getByTestId('check-producer')).toHaveValue(knobs.producer ?? 'atomic');
      await expect(page.getByTestId('check-events')).toHaveValue(String(knobs.events));
      // Why it broke, in words: breadth first, the history breaks at its last step, and the paragraph says so.
      const length = want[name].wrong.counterexample.steps.length;
      await expect(page.locator('.check-result').getByTestId('explain')).toContainText(`Step ${length} (`);
    });
  }
  // The unsafe producer's history opens in the player too: its steps, then the lost transition in the tables.
  const lost = want.unsafe_dual_write.wrong;
  await page.getByTestId('gallery-unsafe_dual_write').click();
  const result = page.getByTestId('check-result');
  await expect(result).toHaveAttribute('data-property', lost.property, SEARCH);
  await expect(result).toHaveAttribute('data-length', String(lost.counterexample.steps.length));
  await page.getByTestId('check-open').click();
  await expect(page.getByTestId('timeline')).toHaveAttribute('max', String(lost.counterexample.steps.length));
});

test('a check is a link: opening it runs the same search and shows the same result', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await setKnobs(page, { flows: 1, events: 2, resends: 0, crashes: 1, consumer: 'effect_outside_tx' });
  await page.getByTestId('check-run').click();
  const first = await verdictOf(page);
  expect(first.verdict).toBe('violated');
  const share = page.getByTestId('check-share');
  await expect(share).toHaveAttribute('href',
    /^#check\?flows=1&events=2&resends=0&crashes=1&consumer=effect_outside_tx&producer=atomic&verdict=violated/);
  const href = await share.getAttribute('href');

  const opened = await open(`${dist.url}${href}`, VIEW);
  expect(await verdictOf(opened)).toEqual(first);
  await expect(opened.locator('[data-testid="check-link-match"][data-match="true"]')).toBeVisible();
  await expect(opened.getByTestId('check-consumer')).toHaveValue('effect_outside_tx');
  // A link pasted into the open page's address bar runs too; one whose recorded result is not what the page
  // finds says which part differs.
  await opened.evaluate(() => { location.hash = '#check?flows=1&events=2&resends=0&crashes=0&consumer=greater_than&verdict=holds'; });
  await expect(opened.locator('[data-testid="check-link-match"][data-match="false"]'))
    .toHaveText(/recorded verdict=holds; this page found verdict=violated/, SEARCH);
  await expect(opened.getByTestId('check-result')).toHaveAttribute('data-verdict', 'violated');
  await expect(opened.getByTestId('check-consumer')).toHaveValue('greater_than');

  // A link to a configuration larger than the default fills the knobs and waits for the reader.
  const large = await open(`${dist.url}#check?flows=3&events=3&resends=1&crashes=1&consumer=strict`, VIEW);
  await expect(large.getByTestId('check-offered')).toBeVisible();
  await expect(large.getByTestId('check-flows')).toHaveValue('3');
  await expect(large.getByTestId('check-progress')).toHaveCount(0);
  await expect(large.getByTestId('check-result')).toHaveCount(0);
  await large.getByTestId('check-run').click();
  await expect(large.getByTestId('check-progress')).toBeVisible();
  await large.getByTestId('check-stop').click();
  await expect(large.getByTestId('check-result')).toHaveAttribute('data-verdict', 'stopped');
});

test('bad knobs and a hand-edited check link get a message that names what is wrong, and run nothing', async ({ dist, open }) => {
  const page = await open(`${dist.url}#check?flows=9&consumer=strict`, VIEW);
  await expect(page.getByTestId('notice')).toContainText('flows must be a whole number from 1 to 3');
  await expect(page.getByTestId('check-error')).toContainText('flows must be a whole number from 1 to 3');
  await expect(page.getByTestId('check-result')).toHaveCount(0);
  await page.getByTestId('check-schema2').fill('Z9');
  await page.getByTestId('check-schema2').dispatchEvent('change');
  await page.getByTestId('check-run').click();
  // The message names the refused value; it is there once the click has been handled, so the run that did not
  // start would have shown by then.
  await expect(page.getByTestId('check-error')).toContainText('Z9');
  await expect(page.getByTestId('check-progress')).toHaveCount(0);
  await expect(page.getByTestId('check-result')).toHaveCount(0);
  await expect(page.getByTestId('check-run')).toBeEnabled();
  // Stop ends a run without a verdict, and the knobs come back.
  await page.getByTestId('check-schema2').fill('');
  await page.getByTestId('check-schema2').dispatchEvent('change');
  await page.getByTestId('check-flows').selectOption('3');
  await page.getByTestId('check-run').click();
  await expect(page.getByTestId('check-progress')).toBeVisible();
  await expect(page.getByTestId('check-flows')).toBeDisabled();
  await page.getByTestId('check-stop').click();
  await expect(page.getByTestId('check-result')).toHaveAttribute('data-verdict', 'stopped');
  await expect(page.getByTestId('check-flows')).toBeEnabled();
});

test('the explorer runs a wrong turn beside strict: the player\'s consumer', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('mode-select').selectOption('greater_than');
  await page.getByTestId('explorer-run').click();
  await expect(page.getByTestId('explorer-progress')).toHaveAttribute('data-running', 'false', { timeout: 120_000 });
  await expect(page.getByTestId('matrix-summary-strict')).toHaveAttribute('data-failed', '0');
  const wrong = page.getByTestId('matrix-summary-greater_than');
  await expect.poll(async () => Number(await wrong.getAttribute('data-failed')), 'greater-than fails somewhere')
    .toBeGreaterThan(0);
  await expect(page.getByTestId('matrix-summary-dedupe_only')).toHaveCount(0);
});

test('the largest configuration, with symmetry, finishes in the page\'s workers with progress and the CLI\'s counts', async ({ dist, open }) => {
  const knobs = { flows: 3, events: 3, resends: 1, crashes: 1, consumer: 'strict', producer: 'atomic', schema2: '', symmetry: true };
  const want = cli(knobs);
  expect(want.symmetry).toBe(true);
  expect(want.verdict).toBe('holds');
  const page = await open(dist.url, VIEW);
  await setKnobs(page, knobs);
  await page.getByTestId('check-run').click();
  // Progress while it runs: the workers' transitions added up, growing.
  const progress = page.getByTestId('check-progress');
  await expect(progress).toHaveAttribute('data-transitions', /^[1-9]\d*$/, SEARCH);
  await expectSameAsCli(page, want);
  await expect(page.getByTestId('check-symmetry-note')).toBeVisible();
});
