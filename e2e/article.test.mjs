// End-to-end: the sample article (www/article.html, built beside the playground) with three embedded instances,
// each opening its experiment with only its section's panels, sized to its content, from one download of each
// of the module's three files.
import path from 'node:path';
import { test, expect, ROOT, recordHeights, postedHeights, sizedToContent } from './fixtures.mjs';
import { firstLoad, parts } from './sizes.mjs';

const FRAMES = {
  'embed-order': { preset: 3, shown: ['lane', 'projection-A'], hidden: ['advance-A', 'diagram', 'mode-select'],
    says: [['projection-A', 'new · last_seq=0 · held=0'], ['step-result', 'gap']] },
  'embed-crash': { preset: 9, shown: ['crash-select', 'restart', 'diagram'], hidden: ['lane', 'mode-select', 'advance-A'],
    crashes: 10 },
  'embed-wrong': { preset: 5, shown: ['diagram', 'event-log', 'explain'], hidden: ['lane', 'crash-select'],
    violation: 1 },
};

for (const width of [360, 960]) {
  test(`the sample article at ${width} px: three embeds, each its preset and view, sized to fit, one download`, async ({ browser, serveDir }) => {
    const wasm = [];
    // Served as a host would serve Trunk's hashed files: cacheable.
    const server = await serveDir(path.join(ROOT, 'dist'), {
      headers: { 'cache-control': 'public, max-age=3600' },
      onRequest: (p) => { if (p.endsWith('.wasm')) wasm.push(p); },
    });
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    await recordHeights(context);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${server.url}article.html`);
    for (const [id, want] of Object.entries(FRAMES)) {
      await test.step(id, async () => {
        const frame = page.locator(`#${id}`);
        // Lazily loaded: the frame starts when the reader comes near it.
        await frame.scrollIntoViewIfNeeded();
        const inside = page.frameLocator(`#${id}`);
        for (const testid of want.shown) {
          await expect(inside.getByTestId(testid).first(), `${id} shows ${testid}`).toBeVisible({ timeout: 30_000 });
        }
        for (const testid of want.hidden) {
          await expect(inside.getByTestId(testid), `${id} hides ${testid}`).toHaveCount(0);
        }
        for (const [testid, text] of want.says ?? []) {
          await expect(inside.getByTestId(testid)).toContainText(text);
        }
        if (want.crashes) await expect(inside.locator('[data-kind="crash"]')).toHaveCount(want.crashes);
        if (want.violation) await expect(inside.locator('[data-kind="violation"]')).toHaveCount(want.violation);
        // The preset is the one named, with the invariant as the article says.
        await expect(inside.getByTestId('invariant')).toHaveAttribute('data-holds', want.preset === 5 ? 'false' : 'true');
        // Sized to its content: no scrollbar inside the frame.
        const height = await sizedToContent(frame);
        const handle = await (await frame.elementHandle()).contentFrame();
        expect(await handle.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight)).toBe(true);
        // Resized once, straight to its whole height: not at each part the page draws (an empty page's height
        // first, then growing), which moved the article around it as the frames loaded.
        expect(await postedHeights(page, id), `${id}: the heights it posted`).toEqual([height]);
      });
    }
    // The module is in three files (the first load, its history and rest parts: scripts/split-wasm.mjs); each
    // comes once.
    const files = [...firstLoad().filter((f) => f.file.endsWith('.wasm')), ...parts()].map((f) => `/${f?.file}`);
    expect(files, 'index.html names the first load and both parts').toHaveLength(3);
    expect(wasm.sort(), 'each part of the module is downloaded once for all three frames').toEqual(files.sort());
    expect(errors).toEqual([]);
    await context.close();
  });
}

for (const [file, goal] of [['article.html', 'Your goal'], ['article.zh.html', '你的目标']]) {
  test(`the sample article (${file}) embeds two levels beside their sections, each with its goal and the code it attacks`, async ({ browser, serveDir }) => {
    const server = await serveDir(path.join(ROOT, 'dist'));
    const context = await browser.newContext({ viewport: { width: 960, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}${file}`);
    for (const [id, section] of [['embed-level-3', '#order'], ['embed-level-2', '#wrong']]) {
      const frame = page.locator(`#${id}`);
      // Each stands in the section the level's lesson belongs to.
      expect(await frame.evaluate((el, s) => {
        let h = el.previousElementSibling;
        while (h && h.tagName !== 'H2') h = h.previousElementSibling;
        return h && `#${h.id}` === s;
      }, section), `${id} under ${section}`).toBe(true);
      await frame.scrollIntoViewIfNeeded();
      const inside = page.frameLocator(`#${id}`);
      await expect(inside.getByTestId('level-goal')).toContainText(goal, { timeout: 30_000 });
      await expect(inside.getByTestId('level-code').locator('details[open] [data-testid="level-code-line"]').first()).toBeVisible();
      await expect(inside.getByTestId('level-leave')).toHaveCount(0);
    }
    await context.close();
  });
}

// Views whose content changes a moment after it is drawn: the experiments' checks fill in (the summary's text,
// each line's mark), and the checker's and the experiments' sections had a 480 px placeholder height
// (`content-visibility`) until the growing frame brought them into view. Each frame still posts one height.
for (const width of [360, 960]) {
  test(`an embed of the experiments or the checker posts one height at ${width} px`, async ({ browser, dist, parentPage }) => {
    const views = { 'embed-experiments': 'view=experiments', 'embed-checker': 'view=checker' };
    // Another origin than the playground's, as an article's host would be, with the README's line of script.
    const parent = await parentPage(Object.entries(views).map(([id, view]) =>
      `<iframe id="${id}" data-outbox-playground src="${dist.url}?embed&${view}" style="width:100%;height:900px;border:0"></iframe>`).join(''));
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    await recordHeights(context);
    const page = await context.newPage();
    await page.goto(parent.url);
    await expect(page.frameLocator('#embed-experiments').getByTestId('experiments-summary')).toContainText('12/12');
    await expect(page.frameLocator('#embed-checker').getByTestId('check-run')).toBeVisible();
    // The session's status line (its latest step, the invariant) belongs with the player, which neither shows.
    for (const id of Object.keys(views)) {
      await expect(page.frameLocator(`#${id}`).getByTestId('invariant'), `${id}: no status line`).toHaveCount(0);
    }
    for (const id of Object.keys(views)) {
      const height = await sizedToContent(page.locator(`#${id}`));
      expect(await postedHeights(page, id), `${id}: the heights it posted`).toEqual([height]);
    }
    // Alone in its view, a panel takes the frame's width, at 960 px too (where two panels sit side by side).
    for (const [id, panel] of [['embed-experiments', '.library'], ['embed-checker', '.checker']]) {
      const share = await page.frameLocator(`#${id}`).locator(panel)
        .evaluate((el) => el.getBoundingClientRect().width / document.documentElement.clientWidth);
      expect(share, `${id}: the share of the frame's width its panel takes`).toBeGreaterThan(0.9);
    }
    await context.close();
  });
}

test('an embed of the experiments alone still says what was wrong with its link, without the session\'s status line', async ({ browser, dist }) => {
  const context = await browser.newContext({ viewport: { width: 960, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${dist.url}?embed&view=experiments#t=AAAAAAAA`);
  await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
  await expect(page.getByTestId('notice')).toContainText('the data is not a packed trace');
  await expect(page.getByTestId('invariant')).toHaveCount(0);
  await context.close();
});

test('an embed ignores what it does not know, with a notice, and Copy embed code writes the frame for this view', async ({ dist, open }) => {
  const page = await open(`${dist.url}?embed&preset=3&view=wire,bogus,consumer&colour=red`, { viewport: { width: 960, height: 800 } });
  await expect(page.getByTestId('address-notice')).toContainText('view=bogus');
  await expect(page.getByTestId('address-notice')).toContainText('colour');
  // It opens where its section is: A3 waiting at the gap (e2e/first-minute.test.mjs goes on from there).
  await expect(page.getByTestId('projection-A')).toContainText('new · last_seq=0 · held=0');
  await expect(page.getByTestId('step-result')).toHaveText('gap');
  await expect(page.getByTestId('advance-A')).toHaveCount(0);
  await expect(page.getByTestId('invariant'), 'the session\'s status line, with the wire and the consumer').toHaveAttribute('data-holds', 'true');
  await expect(page.getByTestId('diagram')).toHaveCount(0);
  // An out-of-range preset is named too, and the page opens empty.
  const other = await open(`${dist.url}?embed&preset=99`, { viewport: { width: 960, height: 800 } });
  await expect(other.getByTestId('address-notice')).toContainText('preset=99');
  await expect(other.getByTestId('event-log').locator('li')).toHaveCount(0);
  // A name spelled with a percent-escape is a name the page does not know: the notice names it, and the page
  // and its start-up script agree that it is not an embed (e2e/first-screen.test.mjs: the first screen shows).
  const escaped = await open(`${dist.url}?%65mbed`, { viewport: { width: 960, height: 800 } });
  await expect(escaped.getByTestId('address-notice')).toContainText('%65mbed');
  await expect(escaped.locator('html')).not.toHaveClass(/embed/);
  // On the full page, the embed code names the preset while the session is exactly it (at the step shown), and a
  // link once it is not.
  const full = await open(`${dist.url}?view=wire,consumer,share,experiments`, { viewport: { width: 1280, height: 900 } });
  await full.getByTestId('preset-03').click();
  await full.getByTestId('copy-embed').click();
  const code = full.getByTestId('embed-code');
  await expect(code).toHaveValue(/<iframe data-outbox-playground src="[^"]*\?embed&view=wire,consumer,share,experiments&preset=3&step=12&lang=en"/);
  // One line of script beside the frame: the playground's own embed.js, which sizes every frame of the page.
  await expect(code).toHaveValue(new RegExp(`<script src="${dist.url.replace(/[.?]/g, '\\$&')}embed\\.js" defer></script>$`));
  await full.getByTestId('process-all').click();
  await full.getByTestId('copy-embed').click();
  await expect(code).toHaveValue(/\?embed&view=wire,consumer,share,experiments&lang=en#t=/);
});
