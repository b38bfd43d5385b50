// Takes the README's screenshots from the release build (dist/): `node e2e/screenshots.mjs`.
// Chinese text needs a CJK font on the machine (Debian: fonts-noto-cjk).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { launch, openPage } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = await serve(path.join(ROOT, 'dist'));
const browser = await launch();

async function shot(name, { lang = 'en', width = 1600, height = 1000, mobile = false } = {}) {
  const page = await openPage(browser, server.url, {
    viewport: { width, height }, locale: lang === 'zh' ? 'zh-CN' : 'en-US', hasTouch: mobile, isMobile: mobile,
  });
  for (let i = 0; i < 3; i++) await page.getByTestId('advance-A').click();
  await page.getByTestId('card-A3').dragTo(page.getByTestId('card-A1'));
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('apply-A').click();
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('crash-select').selectOption('apply.after_effect');
  await page.getByTestId('apply-A').click();
  await page.getByTestId('experiments-summary').filter({ hasText: '12' }).waitFor();
  await page.screenshot({ path: path.join(ROOT, 'docs', `${name}.png`), fullPage: !mobile });
  await page.context().close();
}

/** Experiment 5 in the player: the diagram with its broken step, and the paragraph that says why. */
async function diagram(name, { lang = 'en' } = {}) {
  const page = await openPage(browser, server.url, {
    viewport: { width: 1600, height: 900 }, locale: lang === 'zh' ? 'zh-CN' : 'en-US',
  });
  await page.getByTestId('preset-05').click();
  await page.getByTestId('explain').first().waitFor();
  // The invariant's badge with the paragraph, and the stage (tables and diagram) under it.
  const top = await page.locator('.status').boundingBox();
  const stage = await page.locator('.stage').boundingBox();
  const scrolled = await page.evaluate(() => window.scrollY);
  await page.screenshot({ path: path.join(ROOT, 'docs', `${name}.png`), fullPage: true,
    clip: { x: 0, y: scrolled + top.y - 8, width: 1600, height: stage.y + stage.height - top.y + 16 } });
  await page.context().close();
}

await shot('playground');
await diagram('diagram');
await diagram('diagram-zh', { lang: 'zh' });
await shot('playground-zh', { lang: 'zh' });
await shot('playground-phone', { width: 390, height: 844, mobile: true });
await shot('playground-phone-zh', { lang: 'zh', width: 390, height: 844, mobile: true });
await browser.close();
await server.close();
