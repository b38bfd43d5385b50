// The journeys a reader takes, in every engine (playwright.config.mjs runs this file once per engine: Chromium,
// Firefox, WebKit, and WebKit at a phone's width). The Playwright suite (e2e/*.test.mjs) is the deep Chromium
// suite; this one proves the same journeys everywhere, through WebDriver, as a reader's browser runs them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from './fixtures.mjs';
import { KEYS } from './webdriver.mjs';
import { readmeEmbed, hostEmbedScript } from '../fixtures.mjs';
import { serve } from '../server.mjs';
import { cli } from '../checker-shared.mjs';

const LANE = '[data-testid="lane"] li.card .id';
const EFFECTS = '[data-testid="effect-row"]';
// Long enough for the slowest engine's search of the default configuration on a slow day.
const SEARCH = { timeout: 240_000 };

/** Every table the reader sees, row by row. */
const tables = (page) => page.texts('[data-testid^="inbox-row-"], [data-testid^="outbox-row-"], [data-testid^="projection-"], [data-testid="effect-row"]');

/** On a phone the diagram is a tab beside the tables: shows it (and is a no-op where both are shown). */
async function showDiagram(page) {
  const tab = await page.run(`const t = document.querySelector('[data-testid="tab-diagram"]'); return !!t && t.checkVisibility();`);
  if (tab) await page.click('tab-diagram');
}

test('the page loads and reproduces the article\'s twelve experiments', async ({ page, dist }) => {
  await page.open(dist.url);
  await page.text('experiments-summary', /^12\/12 article experiments reproduced in this browser$/, { timeout: 60_000 });
});

for (const by of ['drag', 'keyboard']) {
  test(`the order 3-1-2 by ${by}, then deliver all and process all to released with three effects in order`, async ({ page, dist }) => {
    await page.open(dist.url);
    for (let i = 0; i < 3; i++) await page.step('advance-A', 'committed');
    await page.textsOf(LANE, ['A1', 'A2', 'A3']);
    if (by === 'drag') {
      await page.drag('A3', 'A1');
    } else {
      await (await page.find('card-A3')).type(KEYS.up);
      await page.textsOf(LANE, ['A1', 'A3', 'A2']);
      // Focus follows the card, so the next key moves it again.
      await page.until(() => page.run('return document.activeElement?.dataset.testid === "card-A3"'), { what: 'focus on A3' });
      await (await page.find('card-A3')).type(KEYS.up);
      await page.text('announce', 'A3 moved to position 1');
    }
    await page.textsOf(LANE, ['A3', 'A1', 'A2']);
    await page.click('deliver-all');
    await page.textsOf(LANE, []);
    await page.click('process-all');
    await page.textsOf(EFFECTS, ['A1 1 reserved 3', 'A2 2 confirmed 3', 'A3 3 released 0']);
    await page.text('projection-A', /released · last_seq=3 · held=0/);
    await page.attr('invariant', 'data-holds', 'true');
  });
}

test('a crash at apply.after_effect strikes through what SQLite rolled back; Restart process recovers', async ({ page, dist }) => {
  await page.open(dist.url);
  await page.step('advance-A', 'committed');
  await page.select('crash-select', 'apply.after_effect');
  await page.step('deliver-next', 'accepted');
  await page.step('apply-A', 'crashed at apply.after_effect');
  await page.find('down');
  // The statements of the transaction that never committed are struck through, as the reader sees them.
  const struck = await page.until(() => page.run(`
    const rows = [...document.querySelectorAll('[data-testid="sql"] li.rolled-back')];
    return rows.length && rows.map((li) => getComputedStyle(li.querySelector('code')).textDecorationLine);`),
  { what: 'rolled-back statements' });
  expect(struck.length).toBeGreaterThan(1);
  for (const line of struck) expect(line).toContain('line-through');
  await page.textsOf(EFFECTS, []);
  await page.click('restart');
  await page.until(async () => (await page.run('return document.querySelectorAll(\'[data-testid="down"]\').length')) === 0,
    { what: 'the process back up' });
  await page.click('process-all');
  await page.textsOf(EFFECTS, ['A1 1 reserved 3']);
  await page.text('projection-A', /reserved · last_seq=1 · held=3/);
  await page.attr('invariant', 'data-holds', 'true');
});

test('experiment 5 turns the badge red and its paragraph says why', async ({ page, dist }) => {
  await page.open(dist.url);
  await page.click('preset-05');
  await page.text('preset-mark', '✓');
  await page.attr('invariant', 'data-holds', 'false');
  await page.text('invariant', /flow A/);
  await page.until(() => page.run(`const e = document.querySelector('[data-testid="invariant"] [data-testid="explain"]');
    return e && /^Step \\d+ \\(/.test(e.innerText.trim())`), { what: 'the paragraph naming the step that broke' });
});

test('the diagram draws the crash and Save SVG writes a file that parses, with no script', async ({ page, dist }) => {
  await page.open(dist.url);
  await page.click('preset-09');
  await page.text('preset-mark', '✓');
  await showDiagram(page);
  await page.until(() => page.run('return document.querySelectorAll(\'[data-testid="diagram"] [data-kind="crash"]\').length === 10'),
    { what: 'ten crash cuts in the diagram' });
  // The file the page hands the browser to save: its blob, read back.
  await page.run(`window.__saved = []; const create = URL.createObjectURL;
    URL.createObjectURL = (blob) => { window.__saved.push(blob); return create.call(URL, blob); };`);
  await page.click('diagram-export');
  await page.until(() => page.run('return window.__saved.length === 1'), { what: 'the saved file' });
  const parsed = await page.runAsync(`const done = arguments[0];
    window.__saved[0].text().then((t) => {
      const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
      const all = [...doc.querySelectorAll('*')];
      done({
        type: window.__saved[0].type,
        error: doc.querySelector('parsererror')?.textContent ?? null,
        root: doc.documentElement.localName,
        scripts: doc.querySelectorAll('script').length,
        handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
        crashes: doc.querySelectorAll('[data-kind="crash"]').length,
      });
    });`);
  expect(parsed).toEqual({ type: 'image/svg+xml', error: null, root: 'svg', scripts: 0, handlers: [], crashes: 10 });
});

test('the explorer: strict passes every cell, dedupe-only fails some', async ({ page, dist }) => {
  await page.open(dist.url);
  await page.click('explorer-run');
  await page.attr('explorer-progress', 'data-running', 'false', { timeout: 180_000 });
  const done = await page.run(`const p = document.querySelector('[data-testid="explorer-progress"]');
    return [p.dataset.done, p.dataset.total];`);
  expect(done[0]).toBe(done[1]);
  await page.attr('matrix-summary-strict', 'data-failed', '0');
  const dedupe = await page.attr('matrix-summary-dedupe_only', 'data-failed', /^[1-9]\d*$/);
  expect(Number(dedupe)).toBeGreaterThan(0);
});

test('the checker\'s default configuration, in this engine\'s worker, has the CLI\'s verdict and counts', async ({ page, dist }) => {
  const want = cli({ flows: 2, events: 3, resends: 1, crashes: 1 });
  expect(want.verdict).toBe('holds');
  await page.open(dist.url);
  await page.text('experiments-summary', /^12\/12/, { timeout: 60_000 });
  await page.click('check-run');
  // A search that fails says so at once, rather than after the whole wait.
  const ended = await page.until(() => page.run(`const error = document.querySelector('[data-testid="check-error"]');
    return error ? 'failed: ' + error.textContent : document.querySelector('[data-testid="check-result"][data-verdict]') && 'ended';`),
  { ...SEARCH, what: 'the check to end' });
  expect(ended).toBe('ended');
  await page.attr('check-result', 'data-verdict', want.verdict);
  await page.attr('check-result', 'data-states', String(want.counts.states));
  await page.attr('check-result', 'data-transitions', String(want.counts.transitions));
});

test('a share link reopens the same session', async ({ page, dist }) => {
  await page.open(dist.url);
  await page.click('add-flow-B');
  await page.click('order-231');
  await page.step('advance-B', 'committed');
  await page.select('crash-select', 'relay.after_mark');
  await page.click('deliver-all');
  await page.find('down');
  await page.click('restart');
  await page.click('deliver-all');
  await page.textsOf(LANE, []);
  await page.step('apply-A', 'applied');
  const want = await tables(page);
  const position = await page.text('position', /after step/);
  await page.click('copy-link');
  const link = await page.until(async () => {
    const value = await page.run('return document.querySelector(\'[data-testid="share-link"]\')?.value');
    return /#t=[A-Za-z0-9_-]+$/.test(value ?? '') && value;
  }, { what: 'the share link' });
  // A fresh document: the same address with its hash would not reload.
  await page.session.goto('about:blank');
  await page.open(link);
  await page.text('position', position);
  await page.until(async () => JSON.stringify(await tables(page)) === JSON.stringify(want), { what: 'the same tables' });
});

test('an embed on another origin posts its height and the frame fits its content', async ({ page, dist }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'embed-parent-'));
  const { frame, listener } = readmeEmbed();
  const snippet = frame.replace('/blog/outbox-playground/?embed', `${dist.url}?embed`).replace(' loading="lazy"', '');
  fs.writeFileSync(path.join(dir, 'index.html'),
    `<!doctype html><meta charset="utf-8"><body style="margin:0">${snippet}${listener}</body>`);
  hostEmbedScript(dir);
  const parent = await serve(dir);
  try {
    await page.session.goto(parent.url);
    const [element] = await page.session.find('iframe[data-outbox-playground]');
    const content = () => page.session.inFrame(element, () => page.run(`
      return document.querySelector('[data-testid="lane"]') ? Math.ceil(document.documentElement.getBoundingClientRect().height) : 0`));
    const box = () => page.run('return document.querySelector("iframe[data-outbox-playground]").getBoundingClientRect().height');
    const height = await page.until(async () => {
      const [inside, outside] = [await content(), await box()];
      return inside > 0 && inside === outside && outside;
    }, { timeout: 30_000, what: 'the frame sized to its content' });
    expect(height, 'the frame was resized from its initial 900 px').not.toBe(900);
  } finally {
    await parent.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the Chinese page', async ({ page, dist }) => {
  await page.open(dist.url);
  await page.click('lang-switch');
  await page.until(() => page.run('return document.documentElement.lang === "zh-Hans"'), { what: 'lang="zh-Hans"' });
  await page.text('process-all', /处理全部/);
  await page.text('experiments-summary', /12\/12/, { timeout: 60_000 });
  expect(await page.run('return document.title')).toMatch(/实验台/);
  await page.click('order-312');
  await page.click('deliver-all');
  await page.click('process-all');
  await page.text('projection-A', /released（释放） · last_seq=3 · held=0/);
});

test('the first minute: a crash armed before an order fires, a consumer switch keeps the one before, no table word breaks, a phone\'s controls are a finger\'s size', async ({ page, dist }) => {
  await page.open(`${dist.url}?lang=en`);
  await page.select('crash-select', 'apply.after_effect');
  await page.click('order-312');
  await page.text('position', 'after step 3 of 3');
  await page.click('deliver-all');
  await page.text('position', 'after step 6 of 6');
  await page.step('apply-A', 'crashed at apply.after_effect');
  await page.click('restart');
  await page.click('process-all');
  await page.text('position', 'after step 8 of 8');
  await page.select('mode-select', 'dedupe_only');
  await page.text('compare', 'With strict: A released · last_seq=3 · 3 effect(s)');
  await page.text('backwards', /^Flow A ran backwards: the producer says released, but the consumer ended at confirmed/);
  await page.text('position', 'after step 8 of 8');
  const broken = await page.run(`return [...document.querySelectorAll('th, td')]
    .filter((c) => c.checkVisibility() && c.textContent.trim())
    .filter((c) => { const r = document.createRange(); r.selectNodeContents(c); return r.getClientRects().length > 1; })
    .map((c) => c.textContent)`);
  expect(broken, 'table cells whose words break').toEqual([]);
  if (await page.run('return window.innerWidth <= 700')) {
    const small = await page.run(`return [...document.querySelectorAll('.timeline button, .columns button, .tabs button, .controls > button')]
      .filter((el) => el.checkVisibility())
      .map((el) => [el, el.getBoundingClientRect()]).filter(([, r]) => r.width < 44 || r.height < 44)
      .map(([el, r]) => (el.dataset.testid || el.textContent) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))`);
    expect(small, 'targets under 44 px').toEqual([]);
  }
});

test('a break-it level: bet, follow the hints to the win in the par, and find it solved after a reload', async ({ page, dist }) => {
  await page.open(`${dist.url}?level=3`);
  await page.click('level-bet-break');
  await page.click('level-bet-consumer_invariant');
  await page.text('level-par', 'par 4', SEARCH);
  for (let move = 1; move <= 4; move++) {
    for (let stage = 1; stage <= 3; stage++) {
      await page.click('level-hint');
      await page.attr('level-hint-text', 'data-stage', String(stage), SEARCH);
    }
    await page.click('level-hint-do');
    await page.text('level-moves', String(move));
  }
  await page.attr('level-win', 'data-property', 'consumer_invariant');
  await page.attr('level-win', 'data-moves', '4');
  await page.text('level-bet-quote', 'You bet it breaks “each flow applied in order, each event once”. Your bet was right.');
  // The code under attack: the last move's statements lit in this engine too.
  const lit = await page.run(`return document.querySelectorAll('[data-testid="level-code-line"][data-ran="true"]').length`);
  expect(lit).toBeGreaterThan(0);
  // Every control of the level and the header is a finger's size on a phone (WCAG 2.5.5): the moves, the list,
  // the language switch and the file picker included.
  const small = await page.run(`return [...document.querySelectorAll('.level button, .level select, .level-list a, .level label.file, header button, header a.lang')]
    .filter((b) => b.checkVisibility()).map((b) => [b, b.getBoundingClientRect()])
    .filter(([, r]) => innerWidth < 700 && (r.height < 44 || r.width < 44))
    .map(([b, r]) => (b.dataset.testid || b.textContent.trim().slice(0, 20)) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))`);
  expect(small, 'targets under 44 px').toEqual([]);
  await page.open(`${dist.url}?level=3`);
  await page.attr('level-greater-than', 'data-solved', 'true');
});
