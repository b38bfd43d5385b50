// End-to-end: the reader's rule (RULE.md, issue 36). One rule for the page, written in its editor, refused with
// SQLite's reason and place, run by the player and the checker (in its worker), carried by a share link, and
// stopped when it runs away — the page staying responsive.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, step } from './fixtures.mjs';
import { VIEW, SEARCH, cli, setKnobs, expectSameAsCli } from './checker-shared.mjs';

const QUEUE = "SELECT event_id, 'apply' FROM waiting WHERE state = 'pending' ORDER BY arrival LIMIT 1";

/** A rule file for the CLI's `--rule`. */
function ruleFile(sql) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-rule-')), 'rule.sql');
  fs.writeFileSync(file, sql);
  return file;
}

/** Types `sql` as the page's rule and waits for SQLite's verdict on that text (not the one before it). */
async function writeRule(page, sql) {
  await page.getByTestId('rule-editor').fill(sql);
  await expect(page.locator('#rule-verdict')).toHaveAttribute('data-checked', sql);
  await expect(page.getByTestId('rule-ok').or(page.getByTestId('rule-error'))).toBeVisible();
}

test('the arrival-order queue written in the page is caught with the CLI\'s counterexample and a paragraph that says why', async ({ dist, open }) => {
  const knobs = { flows: 1, events: 3, resends: 0, crashes: 0 };
  const want = cli({ ...knobs, rule: ruleFile(QUEUE) });
  expect(want.verdict).toBe('violated');
  expect(want.property).toBe('consumer_invariant');

  const page = await open(dist.url, VIEW);
  await writeRule(page, QUEUE);
  await expect(page.getByTestId('rule-ok')).toContainText('reads arrival');
  await setKnobs(page, { ...knobs, consumer: 'rule' });
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, want);
  await expect(page.getByTestId('check-steps').locator('li')).toHaveCount(want.counterexample.steps.length);
  await expect(page.locator('.checker [data-testid="explain"]')).toContainText(`${want.property}: `);
  await expect(page.locator('.checker [data-testid="explain"]')).toContainText('applied A2');
  await expect(page.getByTestId('check-result')).not.toHaveAttribute('data-stale', 'true');

  // In the player: the history, the consumer the rule, the badge red.
  await page.getByTestId('check-open').click();
  await expect(page.getByTestId('mode-select')).toHaveValue('rule');
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'false');

  // The text changes: the result shown was computed with another rule.
  await page.getByTestId('rule-editor').fill(QUEUE.replace('LIMIT 1', 'LIMIT 2'));
  await expect(page.getByTestId('check-result')).toHaveAttribute('data-stale', 'true');
  await expect(page.getByTestId('check-stale')).toBeVisible();
  await page.getByTestId('check-run').click();
  await expect(page.getByTestId('check-result')).toHaveAttribute('data-verdict', 'violated', SEARCH);
  await expect(page.getByTestId('check-result')).not.toHaveAttribute('data-stale', 'true');
});

test('a rule that reads arrival gets CHECKER.md\'s counts in the page\'s workers, apply offered once per flow', async ({ dist, open }) => {
  const sql = "SELECT event_id, CASE WHEN problem IS NULL THEN 'apply' ELSE 'block' END FROM waiting WHERE seq = last_seq + 1 ORDER BY arrival LIMIT 1";
  const knobs = { flows: 2, events: 2, resends: 0, crashes: 0 };
  const want = cli({ ...knobs, rule: ruleFile(sql) });
  // The independent reference's counts for this configuration (issue 54: 2,676 transitions before the fix).
  expect([want.verdict, want.counts.states, want.counts.transitions]).toEqual(['holds', 841, 2136]);
  const page = await open(dist.url, VIEW);
  await writeRule(page, sql);
  await expect(page.getByTestId('rule-ok')).toContainText('reads arrival');
  await setKnobs(page, { ...knobs, consumer: 'rule' });
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, want);
});

test('the strict rule holds on the default configuration with the built-in\'s counts', async ({ dist, open }) => {
  const builtin = cli({ flows: 2, events: 3, resends: 1, crashes: 1, consumer: 'strict' });
  expect(builtin.verdict).toBe('holds');
  const page = await open(dist.url, VIEW);
  // Each wrong turn of the gallery, and each built-in in the editor, is one click from its rule.
  await page.getByTestId('rule-from-effect_outside_tx').click();
  await expect(page.getByTestId('rule-editor')).toBeFocused();
  await expect(page.getByTestId('rule-effect')).toHaveValue('outside');
  await page.getByTestId('rule-start-greater_than').click();
  await expect(page.getByTestId('rule-editor')).toHaveValue(/state = 'pending' AND seq > last_seq/);
  await expect(page.getByTestId('rule-effect')).toHaveValue('inside');
  await expect(page.getByTestId('rule-from-dedupe_only')).toHaveCount(0);
  await page.getByTestId('rule-from-strict').click();
  await expect(page.getByTestId('rule-editor')).toHaveValue(/WHERE seq = last_seq \+ 1/);
  await expect(page.getByTestId('rule-ok')).toBeVisible();
  await setKnobs(page, { flows: 2, events: 3, resends: 1, crashes: 1, consumer: 'rule' });
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, builtin);
});

test('a refused rule names what is wrong and where, in both languages, and changes nothing', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await writeRule(page, "SELECT event_id,\n  'apply' FROM waiting WHER seq = 1");
  await expect(page.getByTestId('rule-error')).toHaveText('near "seq": syntax error (line 2, column 29)');
  await expect(page.getByTestId('rule-editor')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('.rule-highlight .err')).toHaveText('seq');
  await expect(page.getByTestId('rule-use')).toBeDisabled();
  for (const [sql, words] of [
    ["SELECT event_id, 'apply' FROM inbox", 'no such table: inbox'],
    ["SELECT event_id, 'apply' FROM waiting WHERE random() > 0", 'the rule calls random()'],
    ["DELETE FROM waiting", 'must be one SELECT'],
    ["SELECT * FROM waiting", 'two columns'],
    ["SELECT event_id, 'apply' FROM waiting; SELECT 1, 2", 'exactly one statement'],
    ["SELECT event_id, 'apply' FROM waiting WHERE seq = 1.5", 'is not an integer'],
    ['x'.repeat(4001), 'at most 4000'],
  ]) {
    await writeRule(page, sql);
    await expect(page.getByTestId('rule-error'), sql.slice(0, 60)).toContainText(words);
  }
  // Chosen as the player's consumer while refused: a message, and the player keeps its consumer.
  await page.getByTestId('mode-select').selectOption('rule');
  await expect(page.getByTestId('notice')).toContainText('Your rule is refused');
  await page.getByTestId('rule-edit').click();
  await expect(page.getByTestId('rule-editor')).toBeFocused();
  await expect(page.getByTestId('rule-ok')).toBeVisible();

  await page.getByTestId('lang-switch').click();
  await writeRule(page, "SELECT event_id, 'apply' FROM inbox");
  await expect(page.getByTestId('rule-error')).toHaveText('没有这张表：inbox');
  await writeRule(page, "SELECT event_id,\n  'apply' FROM waiting WHER seq = 1");
  await expect(page.getByTestId('rule-error')).toHaveText('"seq" 附近有语法错误（第 2 行第 29 列）');
});

test('the player runs the rule, a share link reopens it, and a runaway rule is stopped with the page responsive', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await writeRule(page, QUEUE);
  await page.getByTestId('mode-select').selectOption('rule');
  await expect(page.getByTestId('rule-use')).toHaveText('The player runs this rule');
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-all').click();
  await step(page, 'process-all', 'done');
  // The queue applies in arrival order: released, then reserved, then confirmed — the article's first story.
  await expect(page.getByTestId('effect-log').locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('effect-log').locator('tbody tr').first()).toContainText('A3');
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'false');

  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-link')).toHaveValue(/#t=[A-Za-z0-9_-]+$/);
  const link = await page.getByTestId('share-link').inputValue();
  const other = await open(link, VIEW);
  await expect(other.getByTestId('mode-select')).toHaveValue('rule');
  await expect(other.getByTestId('rule-editor')).toHaveValue(QUEUE);
  await expect(other.getByTestId('effect-log').locator('tbody tr').first()).toContainText('A3');
  await expect(other.getByTestId('invariant')).toHaveAttribute('data-holds', 'false');

  // Sixteen copies of waiting joined: stopped after two million steps, nothing written, and the page answers.
  const joins = 'abcdefghijklmnop'.split('').map((a) => `waiting ${a}`).join(', ');
  await writeRule(page, `SELECT event_id, 'apply' FROM waiting WHERE (SELECT count(*) FROM ${joins}) < 0`);
  await expect(page.getByTestId('rule-ok')).toBeVisible();
  await page.getByTestId('rule-use').click();
  await page.getByTestId('order-123').click();
  await page.getByTestId('deliver-all').click();
  await step(page, 'apply-A', 'rule_error');
  await expect(page.getByTestId('event-log')).toContainText('stopped after 2 million steps');
  await expect(page.getByTestId('effect-log').locator('tbody tr.empty')).toHaveCount(1);
  // The page answers at once: the strict rule, and the same flow applies.
  await page.getByTestId('rule-from-strict').click();
  await page.getByTestId('rule-use').click();
  await page.getByTestId('order-123').click();
  await page.getByTestId('deliver-all').click();
  await step(page, 'apply-A', 'applied');
});

test('an answer the engine cannot carry out breaks rule_answers at the first state that gives it', async ({ dist, open }) => {
  const sql = "SELECT CASE WHEN seq = 2 THEN 'A9' ELSE event_id END, 'apply' FROM waiting ORDER BY seq DESC";
  const knobs = { flows: 1, events: 2, resends: 0, crashes: 0 };
  const want = cli({ ...knobs, rule: ruleFile(sql), effect: 'outside' });
  expect(want.property).toBe('rule_answers');
  expect(want.config.effect).toBe('outside');
  const page = await open(dist.url, VIEW);
  await writeRule(page, sql);
  await page.getByTestId('rule-effect').selectOption('outside');
  await setKnobs(page, { ...knobs, consumer: 'rule' });
  await page.getByTestId('check-run').click();
  await expectSameAsCli(page, want);
  await expect(page.getByTestId('check-result')).toHaveAttribute('data-property', 'rule_answers');
  await expect(page.locator('.check-result').getByTestId('explain')).toContainText("rule_answers: ");
  await expect(page.locator('.check-result').getByTestId('explain')).toContainText("'A9', which is not a waiting row");
});

test('the explorer runs the player\'s rule beside strict: the strict rule passes every cell, the queue fails', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  for (const [sql, fails] of [[null, false], [QUEUE, true]]) {
    if (sql) await writeRule(page, sql); else await page.getByTestId('rule-from-strict').click();
    await page.getByTestId('mode-select').selectOption('rule');
    await expect(page.getByTestId('rule-use')).toBeDisabled();
    await page.getByTestId('explorer-run').click();
    await expect(page.getByTestId('explorer-progress')).toHaveAttribute('data-running', 'false', { timeout: 120_000 });
    await expect(page.getByTestId('matrix-summary-strict')).toHaveAttribute('data-failed', '0');
    const ruled = page.getByTestId('matrix-summary-rule');
    // The strict rule's crashes fire where strict's do: the same runs.
    if (!fails) await expect(ruled).toHaveAttribute('data-runs', await page.getByTestId('matrix-summary-strict').getAttribute('data-runs'));
    await expect.poll(async () => Number(await ruled.getAttribute('data-failed')) > 0, sql ?? 'strict').toBe(fails);
  }
});
