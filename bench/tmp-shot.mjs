import path from 'node:path';
import { serve } from '../e2e/server.mjs';
import { launch, ROOT } from '../e2e/browser.mjs';
const server = await serve(path.join(ROOT, 'dist'));
const browser = await launch();
const shots = JSON.parse(process.argv[2]);
for (const s of shots) {
  const context = await browser.newContext({ viewport: { width: s.w, height: s.h ?? 900 }, locale: s.lang === 'zh' ? 'zh-CN' : 'en-US' });
  await context.addInitScript((l) => localStorage.setItem('lang', l), s.lang === 'zh' ? 'zh-Hans' : 'en');
  const page = await context.newPage();
  const errs = [];
  page.on('pageerror', (e) => errs.push(String(e)));
  await page.goto(server.url + s.path);
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-drawn') || performance.getEntriesByName('playground-drawn').length, null, { timeout: 30000 });
  if (s.wait) await page.getByTestId(s.wait.id).filter({ hasText: s.wait.text ?? '' }).first().waitFor();
  await page.evaluate(() => new Promise((r) => requestIdleCallback(r)));
  await page.screenshot({ path: `/tmp/shots/${s.name}.png`, fullPage: !s.top });
  console.log(s.name, errs);
  await context.close();
}
await browser.close(); server.close();
