// The page's verdict on the article's twelve experiments can say no. The module the page loads is served with one
// word of experiment 3's expectation changed (its flow ends `reserved` instead of `released`: the same length,
// so the module stays valid), its integrity attributes dropped; the page must say 11/12, mark experiment 3 and
// name the field, and the preset must show ✗ beside what was expected and what came out. Without this, a
// comparison that always says yes would pass every other test.
import { test, expect } from './fixtures.mjs';

const EXPECTED = Buffer.from('"projection":[{"flow_id":"A","last_seq":3,"state":"released"');
const ALTERED = Buffer.from('"projection":[{"flow_id":"A","last_seq":3,"state":"reserved"');

/** The module's bytes with experiment 3's expected final state altered. */
function alter(wasm) {
  const at = wasm.indexOf('"id":"03"');
  const expected = wasm.indexOf('"expected":', at);
  const field = wasm.indexOf(EXPECTED, expected);
  // Within experiment 3's own expectation: before experiment 4's file begins.
  const next = wasm.indexOf('04-six-permutations.json', at);
  if (at < 0 || expected < 0 || field < 0 || (next >= 0 && field > next)) {
    throw new Error('experiment 3\'s expectation is not in the module as the test knows it');
  }
  const out = Buffer.from(wasm);
  ALTERED.copy(out, field);
  return out;
}

for (const lang of ['en', 'zh']) {
  test(`an altered expectation turns the twelve experiments' verdict and the preset's mark to no (${lang})`, async ({ browser, dist }) => {
    const context = await browser.newContext(lang === 'zh' ? { locale: 'zh-CN' } : {});
    await context.route(/\/[^/]*_bg\.wasm$/, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: alter(await response.body()) });
    });
    await context.route((url) => url.pathname === '/' || url.pathname.endsWith('/index.html'), async (route) => {
      const response = await route.fetch();
      // Quoted or not: the minified page writes the preload's bare.
      const html = (await response.text()).replace(/\s(data-)?integrity=("[^"]*"|'[^']*'|[^\s>]+)/g, '');
      await route.fulfill({ response, body: html });
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(dist.url);
    await expect(page.getByTestId('experiments-summary')).toHaveText(lang === 'en'
      ? '11/12 article experiments reproduced in this browser' : /^11\/12/, { timeout: 60_000 });
    const line = page.getByTestId('experiment-03');
    await expect(line).toHaveAttribute('data-ok', 'false');
    await expect(line).toContainText('/consumer/projection/0/state: expected "reserved", got "released"');
    // Every other experiment still reproduces.
    for (const n of ['01', '02', '04', '05', '06', '07', '08', '09', '10', '11', '12']) {
      await expect(page.getByTestId(`experiment-${n}`)).toHaveAttribute('data-ok', 'true');
    }
    // The preset: its mark, and the two digests side by side differ where the expectation does.
    await page.getByTestId('preset-03').click();
    await expect(page.getByTestId('preset-mark')).toHaveText('✗');
    await expect(page.getByTestId('preset')).toHaveAttribute('data-ok', 'false');
    await expect(page.getByTestId('preset-expected')).toContainText('projection [A=reserved/3/0]');
    await expect(page.getByTestId('preset-got')).toContainText('projection [A=released/3/0]');
    await expect(page.getByTestId('preset').locator('.mismatches li'))
      .toHaveText(['/consumer/projection/0/state: expected "reserved", got "released"']);
    // The session itself is the real one: the flow did end released.
    await expect(page.getByTestId('projection-A')).toContainText(/released/);
    expect(errors).toEqual([]);
    await context.close();
  });
}
