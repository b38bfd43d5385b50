// End-to-end: no English sentence reaches the Chinese page. A reader's session in Chinese — a crash and its
// restart, the wrong control and its broken invariant, a consumer switch, the checker's counterexample and its
// explanation — and every Latin word the page shows (its text, titles and labels) is one of the identifiers the
// article keeps in English (`core/src/lang/glossary.rs`'s KEPT). The SQL as it ran, the rule's editor, and the
// interleavings' statements, answers and step names are code, and are left out; what their checks found is not.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, ROOT } from './fixtures.mjs';
import { SEARCH } from './checker-shared.mjs';

const GLOSSARY = fs.readFileSync(path.join(ROOT, 'core/src/lang/glossary.rs'), 'utf8');
const KEPT = new Set([...GLOSSARY.slice(GLOSSARY.indexOf('pub const KEPT')).matchAll(/"([^"]+)"/g)].map((m) => m[1]));

/** Every Latin word the page shows that the glossary does not keep, with the text it stands in. */
function english(page) {
  return page.evaluate((kept) => {
    const out = [];
    const look = (text, where) => {
      for (const word of text.match(/[A-Za-z_]+/g) ?? []) {
        if (word.length > 1 && !kept.includes(word)) out.push(`${word} in ${where}: ${text.trim().slice(0, 120)}`);
      }
    };
    const code = 'script, style, textarea, .rule-edit, ol.statements, .pg pre, .pg strong code';
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const el = walker.currentNode.parentElement;
      if (el && !el.closest(code) && el.checkVisibility()) look(walker.currentNode.textContent, el.tagName.toLowerCase());
    }
    for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
      if (el.closest(code) || !el.checkVisibility()) continue;
      for (const name of ['title', 'aria-label', 'placeholder']) {
        const value = el.getAttribute(name);
        if (value) look(value, `${el.tagName.toLowerCase()}[${name}]`);
      }
    }
    return out;
  }, [...KEPT]);
}

test('the Chinese page shows no English sentence through a session, the wrong control and the checker', async ({ dist, open }) => {
  expect(KEPT.size, 'the glossary was read').toBeGreaterThan(50);
  const page = await open(`${dist.url}?lang=zh`, { viewport: { width: 1280, height: 900 } });
  const seen = [];
  const check = async () => seen.push(...await english(page));
  await check();
  await page.getByTestId('crash-select').selectOption('apply.after_effect');
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-all').click();
  await page.getByTestId('apply-A').click();
  await expect(page.getByTestId('down')).toBeVisible();
  await check();
  await page.getByTestId('restart').click();
  await page.getByTestId('process-all').click();
  await check();
  await page.getByTestId('mode-select').selectOption('dedupe_only');
  await expect(page.getByTestId('backwards')).toBeVisible();
  await check();
  await page.getByTestId('check-consumer').selectOption('dedupe_only');
  await page.getByTestId('check-run').click();
  await expect(page.getByTestId('check-result')).toHaveAttribute('data-verdict', 'violated', SEARCH);
  await check();
  // The interleavings recorded on PostgreSQL: the table, a lock wait, and an order SQLite's writer forbids.
  await page.locator('[data-testid=pg-panel] summary').click();
  await page.getByTestId('pg-cell-inbox-conflict-protocol-read-committed').click();
  await expect(page.locator('.pg-line.waiting')).toHaveCount(1);
  await check();
  await page.getByTestId('pg-cell-double-apply-wrong-sqlite').click();
  await expect(page.getByTestId('pg-permutation')).toContainText('在这里不可能发生');
  await check();
  // What broke, in Chinese: the consumer's invariant (two effects) and no_loss (a row marked sent, not sent).
  await page.getByTestId('pg-cell-double-apply-wrong-read-committed').click();
  await expect(page.locator('.pg li.breaks')).toContainText('事件 A3 有不止一条执行记录');
  await check();
  await page.getByTestId('pg-cell-late-commit-wrong-read-committed').click();
  await expect(page.locator('.pg li.breaks')).toContainText('A1 已标为 accepted，但 inbox 里没有它');
  await check();
  expect([...new Set(seen)]).toEqual([]);
});

test('a level in Chinese shows no English sentence through its walk: the bet, a dead end, the win, the proof and two refusals', async ({ dist, open }) => {
  const page = await open(`${dist.url}?level=1&lang=zh`, { viewport: { width: 1280, height: 900 } });
  await expect(page.getByTestId('level-goal')).toBeVisible();
  const seen = [];
  // The code under attack is code, and is left out as the SQL panel is.
  const check = async () => seen.push(...(await english(page)).filter((w) => !/ in (code|pre)\b/.test(w)));
  await check();
  await page.getByTestId('level-bet-break').click();
  await check();
  await page.getByTestId('advance-A').click();
  await expect(page.getByTestId('level-deadend')).toBeVisible();
  await check();
  await page.getByTestId('level-deadend-restart').click();
  await page.getByTestId('unsafe-A').click();
  await expect(page.getByTestId('level-win')).toBeVisible();
  await check();
  const proof = await open(`${dist.url}?level=7&lang=zh`, { viewport: { width: 1280, height: 900 } });
  await proof.getByTestId('level-bet-hold').click();
  await proof.getByTestId('level-giveup').click();
  await expect(proof.getByTestId('level-proof-bounds')).toBeVisible({ timeout: 60_000 });
  seen.push(...(await english(proof)).filter((w) => !/ in (code|pre)\b/.test(w)));
  // A refusal is a level screen too: a hand-edited challenge link, and a file that is not progress. What they
  // quote of the reader's file (its field names and values, between backticks) is the reader's own, not the
  // page's English: a word is let through only where no use of it stands outside the quotes.
  const quoted = (w) => {
    if (/ in (code|pre)\b/.test(w)) return true;
    const word = w.split(' ')[0];
    const text = w.slice(w.indexOf(': ') + 2);
    const outside = text.replace(/`[^`]*`/g, ' ');
    return text !== outside && !new RegExp(`\\b${word}\\b`).test(outside);
  };
  const refused = await open(`${dist.url}?lang=zh#level=AAAAAAAAAAAAAAAA`, { viewport: { width: 1280, height: 900 } });
  await expect(refused.getByTestId('level-error')).toContainText('挑战链接：');
  seen.push(...(await english(refused)).filter((w) => !quoted(w)));
  const imported = await open(`${dist.url}?level=2&lang=zh`, { viewport: { width: 1280, height: 900 } });
  await imported.getByTestId('progress-import').setInputFiles({ name: 'wrong.json', mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ format: 'outbox-playground-progress/1', levels: { x: { best: -1 } } })) });
  await expect(imported.getByTestId('progress-message')).toContainText('关卡 `x`');
  seen.push(...(await english(imported)).filter((w) => !quoted(w)));
  expect([...new Set(seen)]).toEqual([]);
});
