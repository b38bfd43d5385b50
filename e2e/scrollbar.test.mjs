// End-to-end: drawing the page moves nothing where scrollbars take room, as a desktop browser's do.
import { test, expect } from './fixtures.mjs';
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
          for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value);
        }).observe({ type: 'layout-shift', buffered: true });
      },
    });
    await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
    const { scrollbar, shifts } = await page.evaluate(() => ({
      scrollbar: window.innerWidth - document.documentElement.clientWidth,
      shifts: window.__shifts,
    }));
    expect(scrollbar, 'the scrollbar takes room here').toBeGreaterThan(0);
    expect(shifts.reduce((a, b) => a + b, 0), 'cumulative layout shift').toBe(0);
  });
}
