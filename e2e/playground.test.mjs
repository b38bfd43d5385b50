// End-to-end: the playground as a reader uses it, in headless Chromium against the release build (dist/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openPage, servedDist, ROOT } from './browser.mjs';

const env = servedDist();

async function fresh() {
  return openPage(env.browser, env.server.url, { viewport: { width: 1280, height: 900 } });
}

const result = (page) => page.getByTestId('step-result').innerText();
const laneIds = async (page) =>
  page.getByTestId('lane').locator('li.card .id').allInnerTexts();
const effects = async (page) =>
  (await page.getByTestId('effect-row').allInnerTexts()).map((t) => t.split(/\s+/).filter(Boolean));
const projection = (page, flow) => page.getByTestId(`projection-${flow}`).innerText();

async function click(page, id) {
  await page.getByTestId(id).click();
  return result(page);
}

test('arrival 3, 1, 2 by dragging cards reproduces the article §5 table row by row', async () => {
  const page = await fresh();
  for (let i = 0; i < 3; i++) assert.equal(await click(page, 'advance-A'), 'committed');
  assert.deepEqual(await laneIds(page), ['A1', 'A2', 'A3']);
  await page.getByTestId('card-A3').dragTo(page.getByTestId('card-A1'));
  assert.deepEqual(await laneIds(page), ['A3', 'A1', 'A2']);

  // Row 1: only 3 arrived — nothing applied, stop at gap, empty prefix.
  assert.equal(await click(page, 'deliver-next'), 'accepted');
  assert.equal(await click(page, 'apply-A'), 'gap');
  assert.deepEqual(await effects(page), []);
  // Row 2: then 1 — one applied, gap, prefix 1.
  assert.equal(await click(page, 'deliver-next'), 'accepted');
  assert.equal(await click(page, 'apply-A'), 'applied');
  assert.equal(await click(page, 'apply-A'), 'gap');
  assert.deepEqual((await effects(page)).map((r) => r[0]), ['A1']);
  // Row 3: then 2 — two applied, idle, prefix 1, 2, 3.
  assert.equal(await click(page, 'deliver-next'), 'accepted');
  assert.equal(await click(page, 'apply-A'), 'applied');
  assert.equal(await click(page, 'apply-A'), 'applied');
  assert.equal(await click(page, 'apply-A'), 'idle');
  assert.deepEqual(await effects(page), [
    ['A1', '1', 'reserved', '3'], ['A2', '2', 'confirmed', '3'], ['A3', '3', 'released', '0']]);
  assert.match(await projection(page, 'A'), /released · last_seq=3 · held=0/);
  assert.equal(await page.getByTestId('invariant').getAttribute('data-holds'), 'true');
  for (const id of ['A1', 'A2', 'A3']) {
    assert.equal(await page.getByTestId(`inbox-row-${id}`).getAttribute('data-state'), 'applied');
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

const BOUNDARIES = ['producer.after_state', 'producer.after_outbox', 'producer.after_commit',
  'receive.after_insert', 'receive.after_commit', 'relay.after_mark', 'relay.after_mark_commit',
  'apply.after_projection', 'apply.after_effect', 'apply.after_commit'];

test('a crash at each of the ten boundaries, then restart and recovery to exactly one effect', async () => {
  const page = await fresh();
  const options = await page.getByTestId('crash-select').locator('option').evaluateAll(
    (os) => os.map((o) => o.value).filter(Boolean));
  assert.deepEqual(options, BOUNDARIES);
  for (const boundary of BOUNDARIES) {
    await page.getByTestId('reset').click();
    await page.getByTestId('crash-select').selectOption(boundary);
    let crashed = false;
    for (const action of ['advance-A', 'deliver-next', 'apply-A']) {
      if ((await click(page, action)) === `crashed at ${boundary}`) { crashed = true; break; }
    }
    assert.ok(crashed, `${boundary} fired`);
    await page.getByTestId('down').waitFor();
    await page.getByTestId('restart').click();
    assert.equal(await page.getByTestId('down').count(), 0);
    // Recovery from what was committed: resubmit if the producer lost it, resend what is on the wire, process.
    if ((await page.getByTestId('outbox-row-A1').count()) === 0) await click(page, 'advance-A');
    if ((await laneIds(page)).length > 0) await click(page, 'deliver-all');
    await click(page, 'process-all');
    assert.deepEqual(await effects(page), [['A1', '1', 'reserved', '3']], boundary);
    assert.match(await projection(page, 'A'), /reserved · last_seq=1 · held=3/, boundary);
    assert.equal(await page.getByTestId('invariant').getAttribute('data-holds'), 'true', boundary);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the dedupe-only control ends confirmed, last_seq=2, held=3 with the invariant badge red', async () => {
  const page = await fresh();
  await page.getByTestId('mode-select').selectOption('dedupe_only');
  await page.getByTestId('order-312').click();
  assert.deepEqual(await laneIds(page), ['A3', 'A1', 'A2']);
  // Resend A3 at the end: duplicate its card, then drag the copy after A2.
  await page.getByRole('button', { name: 'Duplicate A3 (resend)' }).click();
  await page.getByTestId('card-A3').nth(1).dragTo(page.getByTestId('card-A2'));
  assert.deepEqual(await laneIds(page), ['A3', 'A1', 'A2', 'A3']);
  await page.getByTestId('deliver-all').click();
  assert.equal(await result(page), 'duplicate');
  assert.match(await projection(page, 'A'), /confirmed · last_seq=2 · held=3/);
  const badge = page.getByTestId('invariant');
  assert.equal(await badge.getAttribute('data-holds'), 'false');
  assert.match(await badge.innerText(), /flow A/);
  await page.context().close();
});

test('the greater-than consumer applies 3 before 1 and 2 and the invariant badge turns red', async () => {
  const page = await fresh();
  await page.getByTestId('mode-select').selectOption('greater_than');
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('apply-A').click();
  // "3 is greater than 0, so apply it" (§5): released first, where strict would answer gap. Each wait
  // retries until the page shows it (or the test times out).
  await page.getByTestId('projection-A').filter({ hasText: 'released · last_seq=3 · held=0' }).waitFor();
  await page.locator('[data-testid="invariant"][data-holds="false"]').filter({ hasText: 'flow A' }).waitFor();
  assert.equal(await page.getByTestId('mode-select').inputValue(), 'greater_than');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('an exported trace replayed by the CLI gives the same final tables as the page', async () => {
  const page = await fresh();
  await page.getByTestId('add-flow-B').click();
  for (let i = 0; i < 2; i++) await click(page, 'advance-A');
  await click(page, 'advance-B');
  await page.getByTestId('card-B1').dragTo(page.getByTestId('card-A1'));
  await page.getByTestId('crash-select').selectOption('receive.after_commit');
  await click(page, 'deliver-all');
  await page.getByTestId('restart').click();
  await click(page, 'deliver-all');
  await click(page, 'process-all');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const file = path.join(ROOT, 'target', 'e2e-export.json');
  await download.saveAs(file);
  const out = execFileSync('cargo', ['run', '--release', '--quiet', '--bin', 'experiments', '--', 'replay', file],
    { cwd: ROOT, encoding: 'utf8' });
  const doc = JSON.parse(out);
  // The page's tables, as the reader sees them.
  const inbox = {};
  for (const row of await page.locator('[data-testid^="inbox-row-"]').all()) {
    inbox[(await row.getAttribute('data-testid')).slice('inbox-row-'.length)] = await row.getAttribute('data-state');
  }
  assert.deepEqual(inbox, Object.fromEntries(doc.consumer.inbox.map((r) => [r.event_id, r.state])));
  assert.deepEqual(await effects(page), doc.consumer.effect.map((e) => [e.event_id, String(e.seq), e.kind, String(e.held)]));
  for (const p of doc.consumer.projection) {
    assert.match(await projection(page, p.flow_id), new RegExp(`${p.state} · last_seq=${p.last_seq} · held=${p.held}`));
  }
  const outbox = (await page.locator('[data-testid^="outbox-row-"]').allInnerTexts()).map((t) => t.split(/\s+/).filter(Boolean));
  assert.deepEqual(outbox.map((r) => [r[0], r[3]]), doc.producer.outbox.map((r) => [r.event_id, String(r.accepted)]));
  assert.equal(String(doc.invariant.holds), await page.getByTestId('invariant').getAttribute('data-holds'));
  assert.ok(doc.steps.some((s) => s.result === 'crashed' && s.boundary === 'receive.after_commit'));
  await page.context().close();
});
