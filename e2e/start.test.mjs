// End-to-end: the module is asked for and compiled from the <head> (www/page-start.js, named there by
// scripts/compile-early.mjs), as its bytes arrive, not once the document is parsed and Trunk's start-up script
// has run; that script starts the page from it. Should that early request fail, or a host serve the module
// without its MIME type, the page still starts. The player draws before its databases open, and a click that comes
// before they do runs.
import { test, expect } from './fixtures.mjs';

const MODULE = /_bg\.wasm$/;

async function load(browser, url, route = (r) => r.continue()) {
  const context = await browser.newContext();
  const requests = [];
  await context.route(MODULE, (r) => { requests.push(r.request().url()); return route(r, requests.length); });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  return { page, requests, errors, context };
}

// A reader's first step on the player: it answers.
async function step(page) {
  await page.getByTestId('order-312').click();
  const before = await page.getByTestId('position').textContent();
  await page.getByTestId('deliver-next').click();
  await expect(page.getByTestId('position')).not.toHaveText(before);
}

test('the module is asked for once, as the document is read, and the page starts from it', async ({ browser, dist }) => {
  const { page, requests, errors, context } = await load(browser, dist.url);
  await expect(page.getByTestId('lane')).toBeVisible();
  await step(page);
  expect(requests, 'one request for the module: the head script takes the preload\'s response').toHaveLength(1);
  const [asked, parsed] = await page.evaluate(() => [
    performance.getEntriesByType('resource').find((r) => /_bg\.wasm$/.test(r.name)).startTime,
    performance.getEntriesByType('navigation')[0].domInteractive,
  ]);
  expect(asked, 'asked for before the document was parsed').toBeLessThan(parsed);
  // What the start-up script took: the module compiled from the head.
  expect(await page.evaluate(async () => (await window.outboxModule) instanceof WebAssembly.Module)).toBe(true);
  expect(errors).toEqual([]);
  await context.close();
});

test('when the early request fails, the page asks again and starts', async ({ browser, dist }) => {
  const { page, requests, errors, context } = await load(browser, dist.url,
    (r, n) => (n === 1 ? r.abort() : r.continue()));
  await expect(page.getByTestId('lane')).toBeVisible();
  await step(page);
  expect(requests).toHaveLength(2);
  // The refused request is a console error of its own, and the only one.
  expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  await context.close();
});

test('a module served without application/wasm is compiled from its bytes, from one request', async ({ browser, dist }) => {
  const { page, requests, errors, context } = await load(browser, dist.url, async (r) => {
    const response = await r.fetch();
    await r.fulfill({ response, headers: { ...response.headers(), 'content-type': 'application/octet-stream' } });
  });
  await expect(page.getByTestId('lane')).toBeVisible();
  await step(page);
  expect(requests).toHaveLength(1);
  expect(errors).toEqual([]);
  await context.close();
});

// The player draws before its databases open (they open once it has painted): a reader's first click can come
// before that, and is not lost. The click is made the moment the produce button is in the DOM (a mutation
// observer's callback, in the same task as the render that drew it), so it always comes first.
test('a click on the player before its databases have opened opens them and runs', async ({ browser, dist }) => {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    new MutationObserver((_, observer) => {
      const button = document.querySelector('[data-testid="advance-A"]');
      if (!button) return;
      observer.disconnect();
      window.__clickedBeforeOpen = performance.getEntriesByName('playground-databases-open').length === 0;
      button.click();
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(dist.url);
  await expect(page.getByTestId('outbox-row-A1')).toBeVisible();
  expect(await page.evaluate(() => window.__clickedBeforeOpen), 'clicked before the databases opened').toBe(true);
  await expect(page.getByTestId('position')).toHaveText(/\b1 of 1\b/);
  // The page's own opening, after, leaves the session as the click made it, and the player goes on.
  await page.waitForFunction(() => performance.getEntriesByName('playground-databases-open').length > 0);
  await expect(page.getByTestId('outbox-row-A1')).toBeVisible();
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('apply-A').click();
  await expect(page.getByTestId('effect-log')).toContainText('A1');
  await expect(page.getByTestId('notice')).toHaveCount(0);
  expect(errors).toEqual([]);
  await context.close();
});
