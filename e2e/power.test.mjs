// End-to-end: a power cut in the page (issue 39). Under NORMAL the consumer's disk forgets the commit it had
// not synced, the producer keeps accepted = 1, and the badge (no_loss) turns red with a paragraph that says
// why; under FULL nothing committed is lost; experiment 1's unsafe dual write is red at once.
import { test, expect, experiments, step } from './fixtures.mjs';
import fs from 'node:fs';

const VIEW = { viewport: { width: 1280, height: 900 } };

async function deliverAndCut(page, mode) {
  await page.getByTestId('synchronous-select').selectOption(mode);
  await expect(page.getByTestId('step-result')).toHaveText('ok');
  await step(page, 'advance-A', 'committed');
  await step(page, 'deliver-next', 'accepted');
  await page.getByTestId('power-cut').click();
  await step(page, 'power-cut-consumer', 'ok');
}

test('under NORMAL a power cut of the consumer loses an acknowledged event; the badge and the paragraph say so', async ({ dist, open }, testInfo) => {
  const page = await open(dist.url, VIEW);
  await deliverAndCut(page, 'normal');
  await expect(page.getByTestId('notice')).toContainText('committed rows lost: 1');
  const badge = page.getByTestId('invariant');
  await expect(badge).toHaveAttribute('data-holds', 'false');
  await expect(badge).toContainText('no_loss: A1 is marked accepted but the inbox does not hold it');
  await expect(badge.getByTestId('explain')).toContainText('Step 4 (power cut) then took away what the consumer\'s disk had not synced');
  await expect(page.getByTestId('inbox-row-A1')).toHaveCount(0);
  await expect(page.locator('[data-kind="power_cut"]')).toHaveAttribute('data-databases', 'consumer');
  // The menu closed once the reader chose.
  await expect(page.getByTestId('power-cut-consumer')).toBeHidden();
  // Nothing will send A1 again: the producer believes it delivered, so a restarted relay resends nothing.
  await expect(page.getByTestId('lane').locator('li.card')).toHaveCount(0);
  await page.getByTestId('restart').click();
  await expect(page.getByTestId('notice')).toContainText('nothing in flight');
  await expect(page.getByTestId('lane').locator('li.card')).toHaveCount(0);

  // The exported trace carries the cut, and the CLI replays the same loss.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const file = testInfo.outputPath('power.json');
  await download.saveAs(file);
  const trace = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(trace.steps.map((s) => s.op)).toEqual(['set_synchronous', 'advance', 'relay', 'power_cut']);
  expect(trace.steps[3].databases).toEqual(['consumer']);
  const doc = JSON.parse(experiments(['replay', file]));
  expect(doc.consumer.inbox).toEqual([]);
  expect(doc.producer.outbox.map((r) => [r.event_id, r.accepted])).toEqual([['A1', 1]]);
});

test('under NORMAL a checkpoint before the cut keeps everything; under FULL a cut loses nothing and says why', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('synchronous-select').selectOption('normal');
  await step(page, 'advance-A', 'committed');
  await step(page, 'deliver-next', 'accepted');
  await step(page, 'checkpoint', 'ok');
  await page.getByTestId('power-cut').click();
  await step(page, 'power-cut-both', 'ok');
  await expect(page.getByTestId('notice')).toContainText('nothing was lost');
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'true');
  await expect(page.getByTestId('inbox-row-A1')).toBeVisible();

  await page.getByTestId('reset').click();
  await deliverAndCut(page, 'full');
  await expect(page.getByTestId('notice')).toContainText('Under synchronous=FULL every commit is on the disk before it returns');
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'true');
  await expect(page.getByTestId('inbox-row-A1')).toBeVisible();
});

test('the Chinese page names the power cut and its loss', async ({ dist, open }) => {
  const page = await open(dist.url, { ...VIEW, locale: 'zh-CN' });
  const result = page.getByTestId('step-result');
  await page.getByTestId('synchronous-select').selectOption('normal');
  await expect(result).toHaveText('ok');
  await page.getByTestId('advance-A').click();
  await expect(result).toHaveText('committed');
  await page.getByTestId('deliver-next').click();
  await expect(result).toHaveText('accepted');
  await page.getByTestId('power-cut').click();
  await page.getByTestId('power-cut-consumer').click();
  await expect(page.locator('[data-kind="power_cut"]')).toHaveCount(1);
  await expect(page.getByTestId('notice')).toContainText('丢失了 1 行已提交的数据');
  await expect(page.getByTestId('invariant').getByTestId('explain')).toContainText('第 4 步（断电）');
});

test('experiment 1, the unsafe dual write, turns the badge red: no_loss', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('preset-01').click();
  const badge = page.getByTestId('invariant');
  await expect(badge).toHaveAttribute('data-holds', 'false');
  await expect(badge).toContainText('no_loss: flow A committed seq 1 but the outbox holds 0 of its events');
  await expect(badge.getByTestId('explain')).toContainText('committed flow A\'s change to reserved (seq 1) on its own');
});
