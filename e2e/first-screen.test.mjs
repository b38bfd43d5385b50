// End-to-end: the first screen (the header) is in the HTML the server sends (src/bin/prerender.rs), so it paints
// before the module has arrived, in the reader's language, and the page takes it over without moving anything.
import { test, expect } from './fixtures.mjs';

const TITLE = { en: 'Ordered outbox / inbox playground', zh: '有序 outbox / inbox 实验台' };

for (const lang of ['en', 'zh']) {
  test(`the first screen paints without the module, in ${lang}`, async ({ browser, dist }) => {
    const context = await browser.newContext();
    if (lang === 'zh') await context.addInitScript((tag) => localStorage.setItem('lang', tag), 'zh-Hans');
    // The module never arrives: what shows is the HTML alone.
    await context.route('**/*.wasm', (route) => route.abort());
    const page = await context.newPage();
    await page.goto(dist.url);
    const shown = page.locator('header.top:visible');
    await expect(shown).toHaveCount(1);
    await expect(shown.locator('h1')).toHaveText(TITLE[lang]);
    await expect(shown.locator('.intro')).not.toBeEmpty();
    await expect(page.locator('html')).toHaveAttribute('lang', lang === 'zh' ? 'zh-Hans' : 'en');
    // The copies carry no test id: those name the live page's elements.
    await expect(page.locator('[data-prerender] [data-testid]')).toHaveCount(0);
    // Below it, the page says the module did not come, rather than staying blank.
    await expect(page.getByTestId('module-failed')).toContainText(
      lang === 'zh' ? '实验台未能加载' : 'The playground could not be loaded');
    await expect(page.getByTestId('module-failed')).toContainText(lang === 'zh' ? '请重新加载页面再试' : 'Reload the page');
    // Its language button works before the module: the other copy shows, and the choice is remembered.
    await shown.locator('button.lang').click();
    const other = lang === 'zh' ? 'en' : 'zh';
    await expect(page.locator('header.top:visible h1')).toHaveText(TITLE[other]);
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe(other === 'zh' ? 'zh-Hans' : 'en');
    // An embed has no header, before the module as after it.
    await page.goto(`${dist.url}?embed&preset=3`);
    await expect(page.locator('html')).toHaveClass(/embed/);
    await expect(page.locator('header.top:visible')).toHaveCount(0);
    // A name spelled with a percent-escape is not `embed`, for the start-up script as for the module (which
    // names it in a notice): the first screen shows.
    await page.goto(`${dist.url}?%65mbed`);
    await expect(page.locator('html')).not.toHaveClass(/embed/);
    await expect(page.locator('header.top:visible')).toHaveCount(1);
    await context.close();
  });

  test(`the prerendered header's language button switches the whole page once the module runs (${lang})`, async ({ open, dist }) => {
    const other = lang === 'zh' ? 'en' : 'zh';
    const page = await open(dist.url, {
      ...(lang === 'zh' ? { locale: 'zh-CN' } : {}),
      // Clicked the moment the player is interactive: the page draws its own header only after its databases
      // are open, so the button there is still the prerendered one.
      init: () => {
        new PerformanceObserver((list, observer) => {
          if (!list.getEntries().some((e) => e.name === 'playground-ready')) return;
          observer.disconnect();
          const button = [...document.querySelectorAll('[data-prerender] button.lang')].find((b) => b.getClientRects().length);
          window.__clickedPrerendered = !!button;
          button?.click();
        }).observe({ type: 'mark', buffered: true });
      },
    });
    await expect(page.locator('header.top')).toHaveCount(1);
    expect(await page.evaluate(() => window.__clickedPrerendered), 'the prerendered button was there to click').toBe(true);
    // The page switched, not only its header: the live header, the controls, the remembered choice.
    await expect(page.locator('header.top h1')).toHaveText(TITLE[other]);
    await expect(page.getByTestId('deliver-all')).toHaveText(other === 'zh' ? '全部投递' : 'Deliver all');
    await expect(page.locator('html')).toHaveAttribute('lang', other === 'zh' ? 'zh-Hans' : 'en');
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe(other === 'zh' ? 'zh-Hans' : 'en');
  });

  test(`a remembered language that is neither falls back to the browser's (${lang})`, async ({ browser, dist }) => {
    const context = await browser.newContext({ locale: lang === 'zh' ? 'zh-CN' : 'en-GB' });
    await context.addInitScript(() => localStorage.setItem('lang', 'fr'));
    await context.route('**/*.wasm', (route) => route.abort());
    const page = await context.newPage();
    await page.goto(dist.url);
    await expect(page.locator('header.top:visible h1')).toHaveText(TITLE[lang]);
    await context.close();
  });

  test(`a phone's first screen is the player, with the settings one tap away (${lang})`, async ({ open, dist }) => {
    const page = await open(dist.url, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true,
      ...(lang === 'zh' ? { locale: 'zh-CN' } : {}) });
    await expect(page.getByTestId('lane')).toBeVisible();
    // The wire whole, the consumer's actions, and the consumer's inbox table begun, above the fold; the producer
    // after them.
    const box = (locator) => locator.evaluate((e) => e.getBoundingClientRect().toJSON());
    expect((await box(page.locator('section.wire'))).bottom).toBeLessThanOrEqual(844);
    for (const id of ['deliver-next', 'apply-A', 'process-all']) {
      expect((await box(page.getByTestId(id))).bottom, id).toBeLessThanOrEqual(844);
    }
    expect((await box(page.locator('section.consumer table').first())).top).toBeLessThan(844);
    expect((await box(page.locator('section.producer'))).top)
      .toBeGreaterThan((await box(page.locator('section.consumer'))).top);
    // The settings are folded: what they are set to shows beside the button; Restart stays out.
    const toggle = page.getByTestId('settings-toggle');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(page.locator('.settings-now')).toHaveText('strict · FULL');
    for (const id of ['mode-select', 'crash-select', 'reset', 'synchronous-select']) await expect(page.getByTestId(id)).toBeHidden();
    await expect(page.getByTestId('restart')).toBeVisible();
    // One tap opens them, and they work.
    await toggle.tap();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await page.getByTestId('mode-select').selectOption('dedupe_only');
    await expect(page.locator('.settings-now')).toHaveText('dedupe_only · FULL');
    await toggle.tap();
    await expect(page.getByTestId('mode-select')).toBeHidden();
    // A wider screen shows them all, and no button.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(page.getByTestId('mode-select')).toBeVisible();
    await expect(toggle).toBeHidden();
  });

  // The last one with a clock that jumps 17 ms at each reading: Yew's scheduler then yields to the browser at every
  // point it may (it does after 16 ms of work), as a busy machine makes it do now and then.
  for (const [width, busy] of [[360, false], [390, false], [1280, false], [1600, false], [1280, true]]) {
    test(`the page takes over the first screen without moving it (${lang}, ${width} px${busy ? ', Yew yielding' : ''})`, async ({ open, dist }) => {
      // A zh reader here by the browser's language (the other test remembers the choice instead).
      const page = await open(dist.url, {
        viewport: { width, height: 800 },
        initArg: busy,
        init: (busy) => {
          if (busy) {
            const now = Date.now;
            let skew = 0;
            Date.now = () => now() + (skew += 17);
          }
          window.__shifts = [];
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) {
              if (e.hadRecentInput) continue;
              window.__shifts.push(e.value);
              // What moved, for the failure's message: a shift seen once in a long run is diagnosed from it.
              (window.__moved ??= []).push(e.sources.map((s) => `${s.node?.nodeName}.${s.node?.className} `
                + `${JSON.stringify(s.previousRect)} → ${JSON.stringify(s.currentRect)} at ${Math.round(e.startTime)} ms`));
            }
          }).observe({ type: 'layout-shift', buffered: true });
          window.__lcp = [];
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) window.__lcp.push(e.startTime);
          }).observe({ type: 'largest-contentful-paint', buffered: true });
          // Where the prerendered header's parts are, as the HTML alone lays them out: read once the document is
          // parsed, or at its first paint if that comes first. The page takes the header over only after its own
          // observer of that paint has run (`www/page-start.js`), and this one, registered before it, runs first
          // in the same task; a module that starts before DOMContentLoaded may take it over right after.
          const snap = () => {
            if (window.__before) return;
            const shown = [...document.querySelectorAll('header[data-prerender]')].find((h) => h.getClientRects().length);
            window.__before = shown && ['h1', '.intro', 'button.lang'].map((s) => {
              const r = shown.querySelector(s).getBoundingClientRect();
              return [s, r.x, r.y, r.width, r.height, shown.querySelector(s).textContent];
            });
          };
          document.addEventListener('DOMContentLoaded', snap);
          new PerformanceObserver(snap).observe({ type: 'largest-contentful-paint', buffered: true });
        },
        ...(lang === 'zh' ? { locale: 'zh-CN' } : {}),
      });
      await expect(page.locator('header.top')).toHaveCount(1);
      await expect(page.locator('[data-prerender]')).toHaveCount(0);
      await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
      const { before, after, shifts, lcp, fcp } = await page.evaluate(() => {
        const header = document.querySelector('header.top');
        return {
          before: window.__before,
          after: ['h1', '.intro', 'button.lang'].map((s) => {
            const r = header.querySelector(s).getBoundingClientRect();
            return [s, r.x, r.y, r.width, r.height, header.querySelector(s).textContent];
          }),
          shifts: window.__shifts,
          lcp: window.__lcp,
          fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        };
      });
      expect(before, 'the prerendered header was laid out').toBeTruthy();
      expect(after[0][5]).toBe(TITLE[lang]);
      expect(after, 'the live header sits exactly where the prerendered one did').toEqual(before);
      const moved = await page.evaluate(() => window.__moved ?? []);
      expect(shifts.reduce((a, b) => a + b, 0), `cumulative layout shift: ${JSON.stringify(moved)}`).toBe(0);
      // The largest contentful paint is the prerendered first screen at first paint, not the page's own header
      // as late as the module: the page replaces it only once the browser has recorded that paint.
      expect(fcp, 'first contentful paint').toBeGreaterThan(0);
      expect(lcp.length, 'largest contentful paint entries').toBeGreaterThan(0);
      expect(lcp.at(-1), 'largest contentful paint').toBe(fcp);
    });
  }
}
