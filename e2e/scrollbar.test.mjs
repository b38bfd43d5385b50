// End-to-end: drawing the page moves nothing where scrollbars take room, as a desktop browser's do.
import { test, expect, recordHeights, postedHeights, sizedToContent } from './fixtures.mjs';
import { LAUNCH_OPTIONS } from './browser.mjs';

// Headless Chromium hides scrollbars; a desktop browser's take room. The page grows past the window as it draws
// (the player, then its panels, then the tools), and the scrollbar that appears then must not narrow what is
// already painted.
test.use({ launchOptions: { ...LAUNCH_OPTIONS, ignoreDefaultArgs: ['--hide-scrollbars'] } });

for (const [width, height] of [[1350, 940], [1280, 800]]) {
  test(`drawing the page moves nothing (${width} × ${height})`, async ({ open, dist }) => {
    const page = await open(dist.url, {
      viewport: { width, height },
      init: () => {
        window.__shifts = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) {
            if (e.hadRecentInput) continue;
            window.__shifts.push(e.value);
            // What moved, for the failure's message: a shift seen once in a full run and never alone is
            // diagnosed from it.
            (window.__moved ??= []).push(e.sources.map((s) => `${s.node?.nodeName}.${s.node?.className} `
              + `${JSON.stringify(s.previousRect)} → ${JSON.stringify(s.currentRect)} at ${Math.round(e.startTime)} ms`));
          }
        }).observe({ type: 'layout-shift', buffered: true });
      },
    });
    await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
    const { scrollbar, shifts, moved } = await page.evaluate(() => ({
      scrollbar: window.innerWidth - document.documentElement.clientWidth,
      shifts: window.__shifts,
      moved: window.__moved ?? [],
    }));
    expect(scrollbar, 'the scrollbar takes room here').toBeGreaterThan(0);
    expect(shifts.reduce((a, b) => a + b, 0), `cumulative layout shift: ${JSON.stringify(moved)}`).toBe(0);
  });
}

test('an embedded frame is sized once where scrollbars take room (the sample article, 960 × 800)', async ({ browser, dist }) => {
  const context = await browser.newContext({ viewport: { width: 960, height: 800 } });
  // Until it is sized, a frame's page is taller than the frame and may show a scrollbar; if that scrollbar took
  // room, the height posted would be the narrowed page's, and the page would post again once the scrollbar went.
  await recordHeights(context);
  const page = await context.newPage();
  await page.goto(`${dist.url}article.html`);
  for (const frame of await page.locator('iframe[data-outbox-playground]').all()) {
    await frame.scrollIntoViewIfNeeded();
    const id = await frame.getAttribute('id');
    await expect(page.frameLocator(`#${id}`).getByTestId('invariant')).toBeVisible();
    const height = await sizedToContent(frame);
    expect(await postedHeights(page, id), `${id}: the heights it posted`).toEqual([height]);
  }
  await context.close();
});
