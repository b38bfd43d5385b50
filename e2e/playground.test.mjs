// End-to-end: the playground as a reader uses it, in headless Chromium against the release build (dist/).
import { test, expect, experiments, step, took } from './fixtures.mjs';

const VIEW = { viewport: { width: 1280, height: 900 } };

const result = (page) => page.getByTestId('step-result');
const lane = (page) => page.getByTestId('lane').locator('li.card .id');
// A row's cells, tab-separated in innerText: `toHaveText` compares them with runs of white space as one space.
const effects = (page) => page.getByTestId('effect-row');
const projection = (page, flow) => page.getByTestId(`projection-${flow}`);
const TEXT = { useInnerText: true };

/** Clicks a one-step action, waits for the step to be taken, and returns its result as the page shows it. */
const act = (page, id) => took(page, () => page.getByTestId(id).click());

test('arrival 3, 1, 2 by dragging cards reproduces the article §5 table row by row', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  for (let i = 0; i < 3; i++) await step(page, 'advance-A', 'committed');
  await expect(lane(page)).toHaveText(['A1', 'A2', 'A3']);
  await page.getByTestId('card-A3').dragTo(page.getByTestId('card-A1'));
  await expect(lane(page)).toHaveText(['A3', 'A1', 'A2']);

  // Row 1: only 3 arrived — nothing applied, stop at gap, empty prefix.
  await step(page, 'deliver-next', 'accepted');
  await step(page, 'apply-A', 'gap');
  await expect(effects(page)).toHaveCount(0);
  // Row 2: then 1 — one applied, gap, prefix 1.
  await step(page, 'deliver-next', 'accepted');
  await step(page, 'apply-A', 'applied');
  await step(page, 'apply-A', 'gap');
  await expect(effects(page)).toHaveText([/^A1\s/], TEXT);
  // Row 3: then 2 — two applied, idle, prefix 1, 2, 3.
  await step(page, 'deliver-next', 'accepted');
  await step(page, 'apply-A', 'applied');
  await step(page, 'apply-A', 'applied');
  await step(page, 'apply-A', 'idle');
  await expect(effects(page)).toHaveText(['A1 1 reserved 3', 'A2 2 confirmed 3', 'A3 3 released 0'], TEXT);
  await expect(projection(page, 'A')).toContainText('released · last_seq=3 · held=0');
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'true');
  for (const id of ['A1', 'A2', 'A3']) {
    await expect(page.getByTestId(`inbox-row-${id}`)).toHaveAttribute('data-state', 'applied');
  }
});

const BOUNDARIES = ['producer.after_state', 'producer.after_outbox', 'producer.after_commit',
  'receive.after_insert', 'receive.after_commit', 'relay.after_mark', 'relay.after_mark_commit',
  'apply.after_projection', 'apply.after_effect', 'apply.after_commit'];

test('a crash at each of the ten boundaries, then restart and recovery to exactly one effect', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  const options = page.getByTestId('crash-select').locator('option');
  await expect.poll(() => options.evaluateAll((os) => os.map((o) => o.value).filter(Boolean))).toEqual(BOUNDARIES);
  for (const boundary of BOUNDARIES) {
    await test.step(boundary, async () => {
      await page.getByTestId('reset').click();
      await expect(page.getByTestId('position')).toHaveText('after step 0 of 0');
      await page.getByTestId('crash-select').selectOption(boundary);
      let crashed = false;
      for (const action of ['advance-A', 'deliver-next', 'apply-A']) {
        if ((await act(page, action)) === `crashed at ${boundary}`) { crashed = true; break; }
      }
      expect(crashed, `${boundary} fired`).toBe(true);
      await expect(page.getByTestId('down')).toBeVisible();
      await page.getByTestId('restart').click();
      await expect(page.getByTestId('down')).toHaveCount(0);
      // Recovery from what was committed: resubmit if the producer lost it, resend what is on the wire, process.
      if ((await page.getByTestId('outbox-row-A1').count()) === 0) await step(page, 'advance-A', 'committed');
      if ((await lane(page).count()) > 0) await page.getByTestId('deliver-all').click();
      await page.getByTestId('process-all').click();
      await expect(effects(page)).toHaveText(['A1 1 reserved 3'], TEXT);
      await expect(projection(page, 'A')).toContainText('reserved · last_seq=1 · held=3');
      await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'true');
    });
  }
});

test('the dedupe-only control ends confirmed, last_seq=2, held=3 with the invariant badge red', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('mode-select').selectOption('dedupe_only');
  await page.getByTestId('order-312').click();
  await expect(lane(page)).toHaveText(['A3', 'A1', 'A2']);
  // Resend A3 at the end: duplicate its card, then drag the copy after A2.
  await page.getByRole('button', { name: 'Duplicate A3 (resend)' }).click();
  await expect(lane(page)).toHaveText(['A3', 'A3', 'A1', 'A2']);
  await page.getByTestId('card-A3').nth(1).dragTo(page.getByTestId('card-A2'));
  await expect(lane(page)).toHaveText(['A3', 'A1', 'A2', 'A3']);
  await page.getByTestId('deliver-all').click();
  await expect(result(page)).toHaveText('duplicate');
  await expect(projection(page, 'A')).toContainText('confirmed · last_seq=2 · held=3');
  const badge = page.getByTestId('invariant');
  await expect(badge).toHaveAttribute('data-holds', 'false');
  await expect(badge).toContainText('flow A');
});

test('the greater-than consumer applies 3 before 1 and 2 and the invariant badge turns red', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('mode-select').selectOption('greater_than');
  await page.getByTestId('order-312').click();
  await step(page, 'deliver-next', 'accepted');
  // "3 is greater than 0, so apply it" (§5): released first, where strict would answer gap.
  await step(page, 'apply-A', 'applied');
  await expect(projection(page, 'A')).toContainText('released · last_seq=3 · held=0');
  const badge = page.getByTestId('invariant');
  await expect(badge).toHaveAttribute('data-holds', 'false');
  await expect(badge).toContainText('flow A');
  await expect(page.getByTestId('mode-select')).toHaveValue('greater_than');
});

test('an exported trace replayed by the CLI gives the same final tables as the page', async ({ dist, open }, testInfo) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('add-flow-B').click();
  for (let i = 0; i < 2; i++) await step(page, 'advance-A', 'committed');
  await step(page, 'advance-B', 'committed');
  await page.getByTestId('card-B1').dragTo(page.getByTestId('card-A1'));
  await expect(lane(page)).toHaveText(['B1', 'A1', 'A2']);
  await page.getByTestId('crash-select').selectOption('receive.after_commit');
  await page.getByTestId('deliver-all').click();
  await expect(page.getByTestId('down')).toBeVisible();
  await page.getByTestId('restart').click();
  await expect(page.getByTestId('down')).toHaveCount(0);
  await page.getByTestId('deliver-all').click();
  await expect(lane(page)).toHaveCount(0);
  await page.getByTestId('process-all').click();
  await expect(result(page)).toHaveText('done');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const file = testInfo.outputPath('export.json');
  await download.saveAs(file);
  const doc = JSON.parse(experiments(['replay', file]));
  // The page's tables, as the reader sees them, against the CLI's replay of the exported trace.
  await expect(page.locator('[data-testid^="inbox-row-"]')).toHaveCount(doc.consumer.inbox.length);
  for (const r of doc.consumer.inbox) {
    await expect(page.getByTestId(`inbox-row-${r.event_id}`)).toHaveAttribute('data-state', r.state);
  }
  await expect(effects(page)).toHaveText(doc.consumer.effect.map((e) => `${e.event_id} ${e.seq} ${e.kind} ${e.held}`), TEXT);
  for (const p of doc.consumer.projection) {
    await expect(projection(page, p.flow_id)).toContainText(`${p.state} · last_seq=${p.last_seq} · held=${p.held}`);
  }
  const outbox = page.locator('[data-testid^="outbox-row-"]');
  await expect.poll(() => outbox.evaluateAll((rows) => rows.map((r) => {
    const cells = r.innerText.split(/\s+/).filter(Boolean);
    return [cells[0], cells[3]];
  }))).toEqual(doc.producer.outbox.map((r) => [r.event_id, String(r.accepted)]));
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', String(doc.invariant.holds));
  expect(doc.steps.some((s) => s.result === 'crashed' && s.boundary === 'receive.after_commit'),
    'the exported trace carries the crash').toBe(true);
});
