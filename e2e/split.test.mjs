// End-to-end: the module in two files (scripts/split-wasm.mjs). The first load alone starts the page (every
// function start-up runs is in it), and the rest, which the page asks for once its player is drawn, is loaded
// on first use: from the compiled copy once it has arrived, synchronously before that, and with a message when
// it cannot be.
import { test, expect } from './fixtures.mjs';

const REST = /_rest\.wasm$/;
// A failed request is a console error of its own; the tests that fail one on purpose expect exactly that.
const notTheRest = (errors) => errors.filter((e) => !/Failed to load resource/.test(e));

async function page(browser, url, route, lang = 'en') {
  const context = await browser.newContext();
  await context.addInitScript((l) => localStorage.setItem('lang', l), lang);
  const errors = [];
  const requests = [];
  await context.route(REST, (r) => { requests.push(r.request()); return route(r); });
  const p = await context.newPage();
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await p.goto(url);
  return { page: p, errors, requests, context };
}

test('the first load alone starts the page: the player, the diagram and the twelve experiments', async ({ browser, dist }) => {
  const { page: p, errors, requests, context } = await page(browser, dist.url, (r) => r.abort());
  await expect(p.getByTestId('experiments-summary')).toContainText('12/12');
  await expect(p.getByTestId('lane')).toBeVisible();
  await expect(p.getByTestId('diagram')).toBeVisible();
  // Once the browser finds the page idle, start-up's last slices have run too.
  await p.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 })));
  // The page asked for the rest once its player was drawn (and was refused here), and nothing it ran needed it.
  expect(requests.length, 'the rest is asked for once').toBe(1);
  await expect(p.getByTestId('rest-failed')).toHaveCount(0);
  expect(notTheRest(errors)).toEqual([]);
  await context.close();
});

// The article's embeds (www/article.html): each starts from the first load alone too.
for (const search of ['?embed&preset=3&view=wire,consumer', '?embed&preset=9&view=crash,consumer,diagram',
  '?embed&preset=5&view=diagram,log']) {
  test(`the first load alone starts the embed ${search}`, async ({ browser, dist }) => {
    const { page: p, errors, requests, context } = await page(browser, `${dist.url}${search}`, (r) => r.abort());
    await expect(p.getByTestId('invariant')).toHaveAttribute('data-holds', search.includes('preset=5') ? 'false' : 'true');
    await expect(p.getByTestId('diagram').or(p.getByTestId('lane')).first()).toBeVisible();
    await expect.poll(() => requests.length, 'the rest is asked for once').toBe(1);
    await expect(p.getByTestId('rest-failed')).toHaveCount(0);
    expect(notTheRest(errors)).toEqual([]);
    await context.close();
  });
}

test('once the rest has arrived, a click that needs it makes no request of its own', async ({ browser, dist }) => {
  const { page: p, errors, requests, context } = await page(browser, `${dist.url}?view=explorer`, (r) => r.continue());
  await expect(p.locator('html')).toHaveAttribute('data-rest', 'compiled');
  await p.getByTestId('explorer-run').click();
  await expect(p.getByTestId('matrix-summary-strict')).toHaveAttribute('data-failed', '0', { timeout: 60_000 });
  expect(requests.length, 'the page\'s own request for the rest, and no other').toBe(1);
  expect(errors).toEqual([]);
  await context.close();
});

// The page's own request for the rest is held back; a second request (the synchronous one) goes through.
const BEFORE_IT_ARRIVES = [
  ['a click that needs it loads it on the spot', '?view=explorer', 'explorer-run',
    (p) => expect(p.getByTestId('matrix-summary-strict')).toHaveAttribute('data-failed', '0', { timeout: 60_000 })],
  ['the checker loads it and hands it to its worker', '?view=checker', 'gallery-greater_than',
    (p) => expect(p.getByTestId('check-result')).toHaveAttribute('data-verdict', 'violated', { timeout: 60_000 })],
];
for (const [what, search, button, done] of BEFORE_IT_ARRIVES) {
  test(`before the rest has arrived, ${what}`, async ({ browser, dist }) => {
    let held = null;
    const { page: p, errors, requests, context } = await page(browser, `${dist.url}${search}`, (r) => {
      if (!held) { held = r; return undefined; }
      return r.continue();
    });
    await expect.poll(() => held !== null, 'the page asked for the rest').toBe(true);
    await p.getByTestId(button).click();
    await done(p);
    expect(requests.length, 'the held request, then the one that loaded the rest').toBe(2);
    await held.continue();
    expect(errors).toEqual([]);
    await context.close();
  });
}

for (const [lang, says] of [['en', /Part of the playground could not be loaded \(.*_rest\.wasm.*\)\. Reload the page/],
  ['zh-Hans', /部分代码未能加载（.*_rest\.wasm.*），请重新加载页面/]]) {
  test(`offline, a feature in the rest says the page could not load it (${lang})`, async ({ browser, dist }) => {
    const { page: p, errors, context } = await page(browser, `${dist.url}?view=checker`, (r) => r.abort(), lang);
    await expect(p.getByTestId('gallery-greater_than')).toBeVisible();
    await p.getByTestId('gallery-greater_than').click();
    const panel = p.getByTestId('rest-failed');
    await expect(panel).toBeVisible();
    await expect(panel).toContainText(says);
    // The action itself cannot go on (the module stops it: a trap, not a Rust panic); the page stays as it was.
    expect(notTheRest(errors).filter((e) => !/^RuntimeError/.test(e))).toEqual([]);
    await expect(p.getByTestId('gallery-greater_than')).toBeVisible();
    await context.close();
  });
}
