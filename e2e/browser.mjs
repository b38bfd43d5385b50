// Launches Debian's Chromium headless through playwright-core (no browser download: TOOLCHAIN.md).
import path from 'node:path';
import { before, after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

/** A page that records every page error and console error, so tests can assert there were none. */
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

/** For a test file: serves dist/ and launches Chromium before its tests, closes both after. */
export function servedDist() {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await serve(path.join(ROOT, 'dist'));
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}
