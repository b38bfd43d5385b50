// What every end-to-end test gets: the release build (dist/) served on loopback, a way to open the playground in
// a fresh browser context whose page errors and console errors fail the test, and a few page helpers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { test as base, expect } from '@playwright/test';
import { serve } from './server.mjs';
import { ROOT } from './browser.mjs';

export { expect, ROOT };
export const DIST = path.join(ROOT, 'dist');

export const test = base.extend({
  /** dist/ at the root of a loopback server, once per worker: `dist.url`. */
  dist: [async ({}, use) => {
    const server = await serve(DIST);
    await use(server);
    await server.close();
  }, { scope: 'worker' }],

  /** Another server for one test (a sub-path, extra headers): `await serveDir(root, { prefix, headers })`. */
  serveDir: async ({}, use) => {
    const servers = [];
    await use(async (root, options) => {
      const server = await serve(root, options);
      servers.push(server);
      return server;
    });
    for (const server of servers) await server.close();
  },

  /**
   * An article's page for one test, on another origin than the playground's, as a blog's host would be:
   * `await parentPage(frames)` serves `frames` (the frames' HTML, in the page's body) with the README's line of
   * script after them, exactly as an author copies it (and `embed.js` where it points), and returns the server.
   */
  parentPage: async ({ serveDir }, use) => {
    const dirs = [];
    await use(async (frames) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'embed-parent-'));
      dirs.push(dir);
      fs.writeFileSync(path.join(dir, 'index.html'),
        `<!doctype html><meta charset="utf-8"><body style="margin:0">${frames}${readmeEmbed().listener}</body>`);
      hostEmbedScript(dir);
      return serveDir(dir);
    });
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  },

  /**
   * `await open(url, contextOptions)`: a new browser context (so a trace per context on failure) with one page,
   * navigated to `url` and waited on until the playground has rendered. Every page error and console error
   * lands in `page.errors`, and the test fails unless each page's list is empty when it ends (a test that
   * provokes errors on purpose empties the list itself). `init` runs in the page before its own scripts, given
   * `initArg`.
   */
  open: async ({ browser }, use) => {
    const pages = [];
    await use(async (url, { init, initArg, ...options } = {}) => {
      const context = await browser.newContext({ acceptDownloads: true, ...options });
      if (init) await context.addInitScript(init, initArg);
      const page = await context.newPage();
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
      pages.push(page);
      await page.goto(url);
      await expect(page.getByTestId('lane')).toBeVisible();
      return page;
    });
    const errors = pages.flatMap((page, i) => page.errors.map((e) => `page ${i + 1}: ${e}`));
    for (const page of pages) await page.context().close();
    expect(errors, 'page errors and console errors').toEqual([]);
  },
});

/**
 * Resolves once the page has run every task queued before this call, and rendered a frame after them. The
 * playground's slices and replays yield by messages to their own window (`ui::yield_then`), so anything they had
 * pending has run before a message posted the same way after them: a check that "nothing else happened" made
 * after it is not racing them.
 */
export function pendingTasksRun(page) {
  return page.evaluate(() => new Promise((resolve) => {
    const hop = (then) => {
      const key = `pending-tasks:${Math.random()}`;
      const heard = (e) => {
        if (e.data !== key) return;
        removeEventListener('message', heard);
        then();
      };
      addEventListener('message', heard);
      postMessage(key, '*');
    };
    hop(() => requestAnimationFrame(() => hop(resolve)));
  }));
}

/** `experiments ARGS` through cargo (the release build), from the repository root. */
export function experiments(args) {
  return execFileSync('cargo', ['run', '--release', '--quiet', '--bin', 'experiments', '--', ...args],
    { cwd: ROOT, encoding: 'utf8' });
}

/** How many steps the session has taken, at the end of its history ("after step n of n"). */
export async function stepsTaken(page) {
  const [, pos, len] = (await page.getByTestId('position').innerText()).match(/after step (\d+) of (\d+)/);
  expect(pos, 'at the end of the history').toBe(len);
  return Number(len);
}

/**
 * Does `action` (one step of the session: a click, a key, a tap), waits until the page has taken that step, and
 * returns its result as the page shows it.
 */
export async function took(page, action) {
  const n = await stepsTaken(page);
  await action();
  await expect(page.getByTestId('position')).toHaveText(`after step ${n + 1} of ${n + 1}`);
  return page.getByTestId('step-result').innerText();
}

/** Clicks a one-step action and expects this result. */
export async function step(page, id, want) {
  await took(page, () => page.getByTestId(id).click());
  await expect(page.getByTestId('step-result')).toHaveText(want);
}

/** The README's embed snippet: its `<iframe>`, its one line of script (`<script src=… defer>`) and that src. */
export function readmeEmbed() {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const snippet = readme.match(/```html\n(<iframe data-outbox-playground[\s\S]*?<\/iframe>)\s*(<script src="([^"]+)" defer><\/script>)\n```/);
  if (!snippet) throw new Error('README.md has no embed snippet (an <iframe data-outbox-playground> and a <script src>)');
  return { frame: snippet[1], listener: snippet[2], src: snippet[3] };
}

/**
 * Puts the built `embed.js` in `dir` where the README's line asks for it (`/blog/outbox-playground/embed.js`),
 * as an author copies `dist/` to that path.
 */
export function hostEmbedScript(dir) {
  const to = path.join(dir, readmeEmbed().src);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'dist', 'embed.js'), to);
}

/**
 * Records, in every page of `context`, each height an embedded frame posts (`outbox-playground:height`), by the
 * frame's id, as a parent's listener hears them; `postedHeights(page, id)` reads them back.
 */
export function recordHeights(context) {
  return context.addInitScript(() => {
    window.__heights = {};
    addEventListener('message', (event) => {
      if (event.data?.type !== 'outbox-playground:height') return;
      const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === event.source);
      (window.__heights[frame?.id] ??= []).push(event.data.height);
    });
  });
}

/** The heights the frame `id` has posted so far (`recordHeights`). */
export function postedHeights(page, id) {
  return page.evaluate((frame) => window.__heights[frame], id);
}

/**
 * Waits until the iframe `frame` (a locator) is exactly as tall as its page's content, as the embed's height
 * messages size it, and returns that height.
 */
export async function sizedToContent(frame) {
  const inside = await (await frame.elementHandle()).contentFrame();
  const content = () => inside.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  const box = () => frame.evaluate((f) => f.getBoundingClientRect().height);
  await expect.poll(async () => (await box()) - (await content())).toBe(0);
  return box();
}
