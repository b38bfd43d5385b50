// End-to-end: the module in three files (scripts/split-wasm.mjs). The first load alone starts the page and runs
// its player (every function that runs until the player and its panels are drawn, and the player's own
// buttons, crash and diagram, is in it). Two parts come after: `history`, what replaying a preset's or a
// link's history needs, and `rest`. The page asks for both once its player is interactive and draws the tools
// below it when they are in; an address that starts from a history fetches `history` beside the first load.
// Anything else that calls into a part before it has arrived loads it synchronously; a page that cannot load a
// part says so.
import { test, expect } from './fixtures.mjs';

const PART = /_(history|rest)\.wasm$/;
const partOf = (request) => PART.exec(request.url())[1];
// A failed request is a console error of its own; the tests that fail one on purpose expect exactly that.
const notTheRest = (errors) => errors.filter((e) => !/Failed to load resource/.test(e));

// A reader's first steps on the player: an arrival order, one delivery; the timeline moves on.
async function step(p) {
  await p.getByTestId('order-312').click();
  const before = await p.getByTestId('position').textContent();
  await p.getByTestId('deliver-next').click();
  await expect(p.getByTestId('position')).not.toHaveText(before);
}

async function page(browser, url, route, lang = 'en') {
  const context = await browser.newContext();
  await context.addInitScript((l) => localStorage.setItem('lang', l), lang);
  const errors = [];
  const requests = [];
  await context.route(PART, (r) => { requests.push(r.request()); return route(r); });
  const p = await context.newPage();
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await p.goto(url);
  return { page: p, errors, requests, context };
}

test('the first load alone starts the page and runs its player; the tools wait for the other parts', async ({ browser, dist }) => {
  const { page: p, errors, requests, context } = await page(browser, dist.url, (r) => r.abort());
  await expect(p.getByTestId('lane')).toBeVisible();
  await expect(p.getByTestId('diagram')).toBeVisible();
  // The player's buttons, with nothing more downloaded.
  await step(p);
  // Both parts were asked for once the player was drawn, and refused: the tools below say so instead of drawing.
  await expect(p.getByTestId('rest-failed')).toBeVisible();
  await expect(p.getByTestId('experiments-summary')).toHaveCount(0);
  expect(requests.map(partOf).sort(), 'each part is asked for once').toEqual(['history', 'rest']);
  expect(notTheRest(errors)).toEqual([]);
  await context.close();
});

// The article's embeds (www/article.html) start from a preset's history: that part comes beside the first load.
for (const search of ['?embed&preset=3&view=wire,consumer', '?embed&preset=9&view=crash,consumer,diagram',
  '?embed&preset=5&view=diagram,log']) {
  test(`the embed ${search} fetches its history beside the first load`, async ({ browser, dist }) => {
    const { page: p, errors, requests, context } = await page(browser, `${dist.url}${search}`, (r) => r.continue());
    await expect(p.getByTestId('invariant')).toHaveAttribute('data-holds', search.includes('preset=5') ? 'false' : 'true');
    await expect(p.getByTestId('diagram').or(p.getByTestId('lane')).first()).toBeVisible();
    await expect(p.locator('html')).toHaveAttribute('data-rest', 'compiled');
    expect(requests.map(partOf).sort(), 'each part is asked for once').toEqual(['history', 'rest']);
    // The history part as the document was read, not once the module had arrived and started.
    const [history, start] = await p.evaluate(() => [performance.getEntriesByType('resource')
      .find((r) => r.name.endsWith('_history.wasm')).startTime, performance.getEntriesByName('playground-start')[0].startTime]);
    expect(history, 'the history part is requested before the module starts').toBeLessThan(start);
    expect(errors).toEqual([]);
    await context.close();
  });
}

test('an embed that starts from a preset says so when its history cannot be loaded', async ({ browser, dist }) => {
  const { page: p, errors, context } = await page(browser, `${dist.url}?embed&preset=3`, (r) => r.abort());
  await expect(p.getByTestId('rest-failed')).toBeVisible();
  // Once the page is idle, it has not drawn a player it could not fill.
  await p.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 })));
  await expect(p.getByTestId('lane')).toHaveCount(0);
  expect(notTheRest(errors)).toEqual([]);
  await context.close();
});

test('once the parts have arrived, a click that needs them makes no request of its own', async ({ browser, dist }) => {
  const { page: p, errors, requests, context } = await page(browser, `${dist.url}?view=explorer`, (r) => r.continue());
  await expect(p.locator('html')).toHaveAttribute('data-rest', 'compiled');
  await p.getByTestId('explorer-run').click();
  await expect(p.getByTestId('matrix-summary-strict')).toHaveAttribute('data-failed', '0', { timeout: 60_000 });
  expect(requests.map(partOf).sort(), 'the page\'s own requests for the parts, and no other').toEqual(['history', 'rest']);
  expect(errors).toEqual([]);
  await context.close();
});

// The page's own requests for the parts are held back; a second request for one (the synchronous one) goes
// through.
test('before the parts have arrived, the player works, the tools wait, and a click that needs one loads it on the spot', async ({ browser, dist }) => {
  const held = new Map();
  const { page: p, errors, requests, context } = await page(browser, dist.url, (r) => {
    const part = partOf(r.request());
    if (!held.has(part)) { held.set(part, r); return undefined; }
    return r.continue();
  });
  await expect.poll(() => held.size, 'the page asked for both parts').toBe(2);
  await step(p);
  expect(requests.length, 'the player needs no more than the first load').toBe(2);
  await expect(p.getByTestId('experiments-summary')).toHaveCount(0);
  // Exporting the session writes a trace, which the player never does: its code is in the rest (and some of
  // what it calls in the history part).
  const [download] = await Promise.all([p.waitForEvent('download'), p.getByTestId('export').click()]);
  expect(await download.failure()).toBeNull();
  expect(requests.length, 'the held requests, then the ones that loaded what the export needed').toBeGreaterThan(2);
  const loaded = requests.slice(2).map(partOf);
  expect(loaded, 'the rest among them').toContain('rest');
  // The tools wait for both parts: with the history's still held, not drawn; once it is in, drawn, and the
  // experiments are checked.
  if (!loaded.includes('history')) {
    await p.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 })));
    await expect(p.getByTestId('experiments-summary')).toHaveCount(0);
  }
  await held.get('history').continue();
  await expect(p.getByTestId('experiments-summary')).toContainText('12/12');
  await held.get('rest').continue();
  expect(errors).toEqual([]);
  await context.close();
});

test('a part refused once comes through on the next call that needs it, and the page recovers', async ({ browser, dist }) => {
  const refused = new Set();
  const { page: p, errors, context } = await page(browser, dist.url, (r) => {
    const part = partOf(r.request());
    if (!refused.has(part)) { refused.add(part); return r.abort(); }
    return r.continue();
  });
  await expect(p.getByTestId('rest-failed')).toBeVisible();
  await expect(p.getByTestId('experiments-summary')).toHaveCount(0);
  // A click that needs the rest loads it (the network is back); the other part is asked for again, and the
  // tools the page could not draw are drawn.
  const [download] = await Promise.all([p.waitForEvent('download'), p.getByTestId('export').click()]);
  expect(await download.failure()).toBeNull();
  await expect(p.getByTestId('experiments-summary')).toContainText('12/12');
  await expect(p.getByTestId('rest-failed')).toHaveCount(0);
  expect(notTheRest(errors)).toEqual([]);
  await context.close();
});

for (const [lang, says] of [['en', /Part of the playground could not be loaded \(.*_(history|rest)\.wasm.*\)\. Reload the page/],
  ['zh-Hans', /部分代码未能加载（.*_(history|rest)\.wasm.*），请重新加载页面/]]) {
  test(`offline, the page says it could not load the other parts, and its player still works (${lang})`, async ({ browser, dist }) => {
    const { page: p, errors, context } = await page(browser, dist.url, (r) => r.abort(), lang);
    const panel = p.getByTestId('rest-failed');
    await expect(panel).toBeVisible();
    await expect(panel).toContainText(says);
    await step(p);
    // A click that needs a part cannot go on (the module stops it: a trap, not a Rust panic); the page stays
    // as it was.
    await p.getByTestId('export').click();
    expect(notTheRest(errors).filter((e) => !/^RuntimeError/.test(e))).toEqual([]);
    await expect(p.getByTestId('lane')).toBeVisible();
    await context.close();
  });
}
