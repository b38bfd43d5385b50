// End-to-end: both languages, keyboard only, touch on a phone, and an axe-core audit of the main views.
import { createRequire } from 'node:module';
import { test, expect, took, stepsTaken } from './fixtures.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const VIEW = { viewport: { width: 1280, height: 900 } };

const lane = (page) => page.getByTestId('lane').locator('li.card .id');
// The first cell of each effect row: its event id.
const effectIds = (page) => page.getByTestId('effect-row').locator('td:first-child');
const html = (page) => page.locator('html');

/** Visible text nodes outside `translate="no"` (identifiers, SQL, table data), with what they belong to. */
function visibleTexts(page) {
  return page.evaluate(() => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = n.textContent.trim();
      if (!text || el.closest('[translate="no"], script, style, noscript, textarea')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      out.push(text);
    }
    for (const el of document.querySelectorAll('[aria-label], [title]')) {
      if (el.closest('[translate="no"]')) continue;
      for (const a of ['aria-label', 'title']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
    }
    return out;
  });
}

test('the language switch changes every visible string and is remembered across reload', async ({ dist, open }) => {
  const page = await open(dist.url, { ...VIEW, locale: 'en-US' });
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('crash-select').selectOption('apply.after_commit');
  await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
  await page.getByTestId('preset-06').click();
  await expect(page.getByTestId('preset').locator('h3')).toHaveText(/^✓\s*06\s/);
  await expect(html(page)).toHaveAttribute('lang', 'en');
  const english = await visibleTexts(page);
  await page.getByTestId('lang-switch').click();
  await expect(html(page)).toHaveAttribute('lang', 'zh-Hans');
  // No English phrase is left outside the identifiers: two English words in a row would be one.
  await expect.poll(async () => (await visibleTexts(page))
    .filter((s) => /[A-Za-z]{3,}[ ,.']+[A-Za-z]{3,}/.test(s) && !/[\u4e00-\u9fff]/.test(s))).toEqual([]);
  const chinese = await visibleTexts(page);
  const unchanged = english.filter((s) => /[A-Za-z]{4,} [A-Za-z]{3,}/.test(s) && chinese.includes(s));
  expect(unchanged).toEqual([]);
  await page.reload();
  await expect(page.getByTestId('lane')).toBeVisible();
  await expect(html(page)).toHaveAttribute('lang', 'zh-Hans');
  await expect(page).toHaveTitle(/实验台/);
  await expect(page.getByTestId('deliver-next')).toContainText('投递');
  await page.getByTestId('lang-switch').click();
  await expect(html(page)).toHaveAttribute('lang', 'en');
  await expect(page.getByTestId('deliver-next')).not.toContainText('投递');
});

test('a Chinese browser starts in Chinese', async ({ dist, open }) => {
  const page = await open(dist.url, { locale: 'zh-CN' });
  await expect(html(page)).toHaveAttribute('lang', 'zh-Hans');
  await expect(page.getByTestId('process-all')).toContainText('处理全部');
});

/** Presses Tab until the element with this test id has focus. */
async function tabTo(page, testid, limit = 250) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((id) => document.activeElement?.dataset?.testid === id, testid)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${testid}`);
}

test('arrival 3, 1, 2 with the keyboard alone', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  for (let i = 0; i < 3; i++) {
    await tabTo(page, 'advance-A');
    expect(await took(page, () => page.keyboard.press('Enter'))).toBe('committed');
  }
  await expect(lane(page)).toHaveText(['A1', 'A2', 'A3']);
  await tabTo(page, 'card-A3');
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  expect(ring, 'a visible focus ring').not.toBe('none');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(lane(page)).toHaveText(['A3', 'A1', 'A2']);
  await expect(page.getByTestId('announce')).toHaveText('A3 moved to position 1');
  await expect(page.getByTestId('card-A3'), 'focus follows the card').toBeFocused();
  const stages = [['gap', []], ['gap', ['A1']], ['idle', ['A1', 'A2', 'A3']]];
  for (const [stop, prefix] of stages) {
    expect(await took(page, () => page.keyboard.press('n')), 'n delivers the next card').toBe('accepted');
    await tabTo(page, 'apply-A');
    let last = '';
    for (let i = 0; i < 4 && last !== stop; i++) last = await took(page, () => page.keyboard.press('Enter'));
    expect(last).toBe(stop);
    await expect(effectIds(page)).toHaveText(prefix);
  }
  await expect(page.getByTestId('projection-A')).toContainText('released · last_seq=3 · held=0');
  // [ goes one step back in time: from the end of the history (the idle apply) to the step before it.
  const n = await stepsTaken(page);
  await page.keyboard.press('[');
  await expect(page.getByTestId('position')).toHaveText(`after step ${n - 1} of ${n}`);
  await expect(page.getByTestId('step-result')).toHaveText('applied');
});

test('arrival 3, 1, 2 by touch on a phone', async ({ dist, open }) => {
  const page = await open(dist.url, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  for (let i = 0; i < 3; i++) expect(await took(page, () => page.getByTestId('advance-A').tap())).toBe('committed');
  await expect(lane(page)).toHaveText(['A1', 'A2', 'A3']);
  const cdp = await page.context().newCDPSession(page);
  const center = async (locator) => {
    await locator.scrollIntoViewIfNeeded();
    const b = await locator.boundingBox();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  };
  // A finger drags A3 onto A1: real touch events, from which Chromium makes pointer events.
  const from = await center(page.getByTestId('card-A3').locator('.id'));
  const to = await center(page.getByTestId('card-A1').locator('.id'));
  // Like a finger: it moves over a third of a second and rests before lifting (a flick would start a fling, and
  // Chromium spends the next tap on stopping it). The events carry those times, so the test need not sleep them.
  let t = Date.now() / 1000;
  const touch = (type, touchPoints, dt = 0) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints, timestamp: (t += dt) });
  await touch('touchStart', [from]);
  for (let k = 1; k <= 10; k++) {
    await touch('touchMove', [{ x: from.x + ((to.x - from.x) * k) / 10, y: from.y + ((to.y - from.y) * k) / 10 }], 0.03);
  }
  await touch('touchMove', [to], 0.3);
  await touch('touchEnd', [], 0.01);
  await expect(lane(page)).toHaveText(['A3', 'A1', 'A2']);
  for (const [stop, prefix] of [['gap', []], ['gap', ['A1']], ['idle', ['A1', 'A2', 'A3']]]) {
    expect(await took(page, () => page.getByTestId('deliver-next').tap())).toBe('accepted');
    let last = '';
    for (let i = 0; i < 4 && last !== stop; i++) last = await took(page, () => page.getByTestId('apply-A').tap());
    expect(last).toBe(stop);
    await expect(effectIds(page)).toHaveText(prefix);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, 'sideways scrolling in px').toBeLessThanOrEqual(0);
});

async function audit(page, label) {
  await page.addScriptTag({ path: AXE });
  // The WCAG 2.0, 2.1 and 2.2 rules (A and AA) and axe's best practices, plus label-in-name (WCAG 2.5.3), which
  // axe still ships as experimental and runs only when asked.
  const { violations, passes } = await page.evaluate(() => window.axe.run(document, {
    resultTypes: ['violations'],
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'] },
    rules: { 'label-content-name-mismatch': { enabled: true } },
  }));
  expect(passes.length, `${label}: axe ran its rules`).toBeGreaterThan(10);
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} (${v.impact}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad).toEqual([]);
}

for (const [lang, locale] of [['en', 'en-US'], ['zh', 'zh-CN']]) {
  for (const scheme of ['light', 'dark']) {
    test(`axe-core finds no serious or critical violation (${lang}, ${scheme})`, async ({ dist, open }) => {
      const page = await open(dist.url, { ...VIEW, locale, colorScheme: scheme });
      await audit(page, `${lang} ${scheme} start`);
      await page.getByTestId('order-312').click();
      await page.getByTestId('deliver-next').click();
      await page.getByTestId('crash-select').selectOption('receive.after_commit');
      await page.getByTestId('deliver-next').click();
      await expect(page.getByTestId('down')).toBeVisible();
      await audit(page, `${lang} ${scheme} crashed`);
      await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
      await page.getByTestId('preset-05').click();
      await expect(page.getByTestId('preset').locator('h3')).toHaveText(/^✓\s*05\s/);
      await page.getByTestId('explorer-run').click();
      await expect(page.getByTestId('explorer-progress')).toHaveAttribute('data-running', 'false', { timeout: 120_000 });
      await audit(page, `${lang} ${scheme} preset and explorer`);
      await page.getByTestId('gallery-skip_blocked').click();
      await expect(page.getByTestId('gallery-skip_blocked-result')).toBeVisible({ timeout: 120_000 });
      await audit(page, `${lang} ${scheme} checker`);
    });
  }
}
