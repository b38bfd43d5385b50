// Takes the README's screenshots from the release build (dist/): `node e2e/screenshots.mjs`.
// Chinese text needs a CJK font on the machine (Debian: fonts-noto-cjk).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { launch, openPage } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = await serve(path.join(ROOT, 'dist'));
const browser = await launch();

async function shot(name, { lang = 'en', width = 1400, height = 1000, mobile = false } = {}) {
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

await shot('playground');
await shot('playground-zh', { lang: 'zh' });
await shot('playground-phone', { width: 390, height: 844, mobile: true });
await shot('playground-phone-zh', { lang: 'zh', width: 390, height: 844, mobile: true });
await browser.close();
await server.close();
