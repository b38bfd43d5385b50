// End-to-end: both languages, keyboard only, touch on a phone, and an axe-core audit of the main views.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { openPage, servedDist, ROOT } from './browser.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const env = servedDist();

const result = (page) => page.getByTestId('step-result').innerText();
const laneIds = (page) => page.getByTestId('lane').locator('li.card .id').allInnerTexts();
const effectIds = async (page) => (await page.getByTestId('effect-row').allInnerTexts()).map((t) => t.trim().split(/\s+/)[0]);

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

test('the language switch changes every visible string and is remembered across reload', async () => {
  const page = await openPage(env.browser, env.server.url, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('crash-select').selectOption('apply.after_commit');
  await page.getByTestId('experiments-summary').filter({ hasText: '12/12' }).waitFor();
  await page.getByTestId('preset-06').click();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  const english = await visibleTexts(page);
  await page.getByTestId('lang-switch').click();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-Hans');
  const chinese = await visibleTexts(page);
  // No English phrase is left outside the identifiers: two English words in a row would be one.
  const leftovers = chinese.filter((s) => /[A-Za-z]{3,}[ ,.']+[A-Za-z]{3,}/.test(s) && !/[\u4e00-\u9fff]/.test(s));
  assert.deepEqual(leftovers, []);
  const unchanged = english.filter((s) => /[A-Za-z]{4,} [A-Za-z]{3,}/.test(s) && chinese.includes(s));
  assert.deepEqual(unchanged, []);
  await page.reload();
  await page.getByTestId('lane').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-Hans');
  assert.match(await page.title(), /实验台/);
  assert.match(await page.getByTestId('deliver-next').innerText(), /投递/);
  await page.getByTestId('lang-switch').click();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a Chinese browser starts in Chinese', async () => {
  const page = await openPage(env.browser, env.server.url, { locale: 'zh-CN' });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-Hans');
  assert.match(await page.getByTestId('process-all').innerText(), /处理全部/);
  await page.context().close();
});

/** Presses Tab until the element with this test id has focus. */
async function tabTo(page, testid, limit = 250) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((id) => document.activeElement?.dataset?.testid === id, testid)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${testid}`);
}

test('arrival 3, 1, 2 with the keyboard alone', async () => {
  const page = await openPage(env.browser, env.server.url, { viewport: { width: 1280, height: 900 } });
  for (let i = 0; i < 3; i++) {
    await tabTo(page, 'advance-A');
    await page.keyboard.press('Enter');
  }
  assert.deepEqual(await laneIds(page), ['A1', 'A2', 'A3']);
  await tabTo(page, 'card-A3');
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(ring, 'none', 'a visible focus ring');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.deepEqual(await laneIds(page), ['A3', 'A1', 'A2']);
  assert.equal(await page.getByTestId('announce').innerText(), 'A3 moved to position 1');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.testid), 'card-A3', 'focus follows the card');
  const stages = [[0, 'gap', []], [1, 'gap', ['A1']], [2, 'idle', ['A1', 'A2', 'A3']]];
  for (const [, stop, prefix] of stages) {
    await page.keyboard.press('n'); // deliver next
    await tabTo(page, 'apply-A');
    let last = '';
    for (let i = 0; i < 4 && last !== stop; i++) {
      await page.keyboard.press('Enter');
      last = await result(page);
    }
    assert.equal(last, stop);
    assert.deepEqual(await effectIds(page), prefix);
  }
  assert.match(await page.getByTestId('projection-A').innerText(), /released · last_seq=3 · held=0/);
  await page.keyboard.press('[');
  assert.match(await page.getByTestId('position').innerText(), /after step \d+ of \d+/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('arrival 3, 1, 2 by touch on a phone', async () => {
  const page = await openPage(env.browser, env.server.url, {
    viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2,
  });
  for (let i = 0; i < 3; i++) await page.getByTestId('advance-A').tap();
  const cdp = await page.context().newCDPSession(page);
  const center = async (locator) => {
    await locator.scrollIntoViewIfNeeded();
    const b = await locator.boundingBox();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  };
  // A finger drags A3 onto A1: real touch events, from which Chromium makes pointer events.
  const from = await center(page.getByTestId('card-A3').locator('.id'));
  const to = await center(page.getByTestId('card-A1').locator('.id'));
  // Like a finger: it moves over a third of a second and rests before lifting (a flick would start a fling,
  // and Chromium spends the next tap on stopping it).
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [from] });
  for (let k = 1; k <= 10; k++) {
    const p = { x: from.x + ((to.x - from.x) * k) / 10, y: from.y + ((to.y - from.y) * k) / 10 };
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [p] });
    await page.waitForTimeout(30);
  }
  await page.waitForTimeout(300);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [to] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  assert.deepEqual(await laneIds(page), ['A3', 'A1', 'A2']);
  for (const [stop, prefix] of [['gap', []], ['gap', ['A1']], ['idle', ['A1', 'A2', 'A3']]]) {
    await page.getByTestId('deliver-next').tap();
    let last = '';
    for (let i = 0; i < 4 && last !== stop; i++) {
      await page.getByTestId('apply-A').tap();
      last = await result(page);
    }
    assert.equal(last, stop);
    assert.deepEqual(await effectIds(page), prefix);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling (${overflow}px)`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
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
  assert.ok(passes.length > 10, `${label}: axe ran its rules (${passes.length} passed)`);
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} (${v.impact}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(bad, []);
}

for (const [lang, locale] of [['en', 'en-US'], ['zh', 'zh-CN']]) {
  for (const scheme of ['light', 'dark']) {
    test(`axe-core finds no serious or critical violation (${lang}, ${scheme})`, async () => {
      const page = await openPage(env.browser, env.server.url, { viewport: { width: 1280, height: 900 }, locale, colorScheme: scheme });
      await audit(page, `${lang} ${scheme} start`);
      await page.getByTestId('order-312').click();
      await page.getByTestId('deliver-next').click();
      await page.getByTestId('crash-select').selectOption('receive.after_commit');
      await page.getByTestId('deliver-next').click();
      await audit(page, `${lang} ${scheme} crashed`);
      await page.getByTestId('experiments-summary').filter({ hasText: '12/12' }).waitFor();
      await page.getByTestId('preset-05').click();
      await page.getByTestId('explorer-run').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="explorer-progress"]')?.dataset.running === 'false',
        null, { timeout: 120_000 });
      await audit(page, `${lang} ${scheme} preset and explorer`);
      await page.getByTestId('gallery-skip_blocked').click();
      await page.getByTestId('gallery-skip_blocked-result').waitFor();
      await audit(page, `${lang} ${scheme} checker`);
      await page.context().close();
    });
  }
}
