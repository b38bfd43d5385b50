// Debian's Chromium, headless, with no browser download (TOOLCHAIN.md): the launch options the end-to-end tests
// use (playwright.config.mjs) and, through playwright-core, the benchmark scripts and the screenshots.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export const LAUNCH_OPTIONS = {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
};

export async function launch() {
  return chromium.launch(LAUNCH_OPTIONS);
}

/** A page that records every page error and console error in `page.errors`, opened on `url` once it has rendered. */
export async function openPage(browser, url, options = {}) {
  const context = await browser.newContext({ acceptDownloads: true, ...options });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  await page.goto(url);
  await page.getByTestId('lane').waitFor();
  return page;
}
