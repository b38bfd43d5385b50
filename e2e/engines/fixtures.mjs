// What every journey gets: the release build served on loopback, and `page`, a fresh session of this project's
// engine (WebDriver classic, e2e/engines/webdriver.mjs) with the playground's helpers. A failure saves that
// engine's screenshot in test-results/; a page error (recorded from the page's load on) fails the journey.
import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect } from '@playwright/test';
import { serve } from '../server.mjs';
import { DIST } from '../fixtures.mjs';
import { launchEngine, READ_TEXT } from './webdriver.mjs';

export { expect };

// Page errors, recorded from the moment a helper opens a page (WebDriver classic has no init script).
const RECORD_ERRORS = `
  if (!window.__errors) {
    window.__errors = [];
    addEventListener('error', (e) => window.__errors.push(String(e.message)));
    addEventListener('unhandledrejection', (e) => window.__errors.push(String(e.reason)));
  }`;

/** The playground's helpers over a session: what the Playwright suite's fixtures give its pages. */
class Playground {
  constructor(session) { this.session = session; }
  get engine() { return this.session.engine; }

  /** Opens `url` and waits until the player has rendered. */
  async open(url) {
    await this.session.goto(url);
    await this.session.until(() => this.session.run(`return !!document.querySelector('[data-testid="lane"]')`),
      { timeout: 30_000, what: 'the player' });
    await this.session.run(RECORD_ERRORS);
  }
  run(script, ...args) { return this.session.run(script, ...args); }
  runAsync(script, ...args) { return this.session.runAsync(script, ...args); }
  until(probe, options) { return this.session.until(probe, options); }
  find(id) { return this.session.byTestId(id); }
  async click(id) { await this.reach(id); await this.session.click(id); }
  /** On a phone the settings fold behind a button: a reader taps it to get at one of them. */
  async reach(id) {
    const folded = await this.run(`const e = document.querySelector(arguments[0]);
      return !!e && !e.checkVisibility() && !!e.closest('.controls .settings');`, `[data-testid="${id}"]`);
    if (folded) await this.session.click('settings-toggle');
  }
  /** Waits until the text of `id` (white space collapsed, as a reader sees it) matches `want`. */
  text(id, want, options) { return this.session.textOf(id, want, options); }
  /** Waits until the attribute `name` of the element `id` is `want`; returns it. */
  attr(id, name, want, options = {}) {
    let seen;
    return this.until(async () => {
      seen = await this.run('const e = document.querySelector(arguments[0]); return e && e.getAttribute(arguments[1]);',
        `[data-testid="${id}"]`, name);
      return (want instanceof RegExp ? want.test(seen ?? '') : seen === want) ? seen : null;
    }, { what: () => `${id} to have ${name}=${want} (it had ${seen})`, ...options });
  }
  /** The texts of every element matching `css`, white space collapsed. */
  texts(css) {
    return this.run(`return [...document.querySelectorAll(arguments[0])].map(${READ_TEXT})`, css);
  }
  /** Waits until the texts of `css` equal `want`. */
  async textsOf(css, want, options = {}) {
    let seen;
    await this.until(async () => {
      seen = await this.texts(css);
      return JSON.stringify(seen) === JSON.stringify(want);
    }, { what: () => `${css} to read ${JSON.stringify(want)} (it read ${JSON.stringify(seen)})`, ...options });
  }
  /** How many steps the session has taken, at the end of its history. */
  async steps() {
    const text = await this.text('position', /after step (\d+) of \1$/);
    return Number(text.match(/of (\d+)/)[1]);
  }
  /** Does `action`, waits until the page has taken one more step, and returns the step's result. */
  async took(action) {
    const n = await this.steps();
    await action();
    await this.text('position', `after step ${n + 1} of ${n + 1}`);
    return this.text('step-result', /./);
  }
  /** Clicks a one-step action and expects this result. */
  async step(id, want) {
    await this.took(() => this.click(id));
    await this.text('step-result', want);
  }
  /** Picks `value` in the select `id`, as a reader does: a click on its option. */
  async select(id, value) {
    await this.reach(id);
    const [option] = await this.session.find(`[data-testid="${id}"] option[value="${value}"]`);
    if (!option) throw new Error(`${id} has no option ${value}`);
    await option.click();
    await this.until(() => this.run('return document.querySelector(arguments[0]).value === arguments[1]',
      `[data-testid="${id}"]`, value), { what: `${id} to be ${value}` });
  }
  /** Drags the card `from` onto the card `to` with the DragEvents and the DataTransfer a browser dispatches. */
  async drag(from, to) {
    await this.runAsync(`
      const [from, to, done] = arguments;
      const card = (id) => document.querySelector('[data-testid="card-' + id + '"]');
      const dt = new DataTransfer();
      const fire = (el, type) => el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      fire(card(from), 'dragstart');
      // The page renders the dragged card between dragstart and the drop, as a real drag gives it frames.
      requestAnimationFrame(() => requestAnimationFrame(() => {
        fire(card(to), 'dragenter'); fire(card(to), 'dragover'); fire(card(to), 'drop'); fire(card(from), 'dragend');
        done();
      }));`, from, to);
  }
  /** Errors the page has thrown since it was opened. */
  errors() { return this.run('return window.__errors ?? []'); }
}

/** What WebKitWebDriver answers once the browser's web process has died: seen twice on 2026-12-07, each time with
 * the kernel logging the crash (a segfault in JavaScriptCore in a worker, a GLib abort); the page did nothing
 * wrong, the engine fell over. */
const ENGINE_CRASH = /invalid session id|Could not parse script result/;

/** Where a journey's first attempt leaves word that it ended on the engine crashing (kept for the whole run). */
function crashMark(testInfo) {
  return path.join(testInfo.project.outputDir, 'engine-crashes', testInfo.testId);
}

export const test = base.extend({
  engine: ['chromium', { option: true }],
  // The page's viewport (not Playwright's `viewport`: no Playwright browser runs here).
  size: [{ width: 1280, height: 900 }, { option: true }],

  dist: [async ({}, use) => {
    const server = await serve(DIST);
    await use(server);
    await server.close();
  }, { scope: 'worker' }],

  page: async ({ engine, size }, use, testInfo) => {
    // A journey is tried again only when its first attempt ended on the engine crashing; a failure of its own
    // fails the retry at once, so a retry never hides one.
    const crashed = crashMark(testInfo);
    if (testInfo.retry > 0 && !fs.existsSync(crashed)) {
      throw new Error('not retried: the first attempt failed on its own, not on the engine crashing');
    }
    const session = await launchEngine(engine, size);
    const page = new Playground(session);
    let errors = [];
    try {
      await use(page);
      errors = await page.errors().catch(() => []);
    } finally {
      if (testInfo.status !== testInfo.expectedStatus) {
        if (ENGINE_CRASH.test(testInfo.error?.message ?? '')) {
          fs.mkdirSync(path.dirname(crashed), { recursive: true });
          fs.writeFileSync(crashed, testInfo.error.message);
        }
        const file = testInfo.outputPath(`${engine}.png`);
        await session.screenshot(file).catch(() => {});
        await testInfo.attach(`${engine} screenshot`, { path: file, contentType: 'image/png' }).catch(() => {});
      }
      await session.quit();
    }
    expect(errors, `page errors in ${engine}`).toEqual([]);
  },
});
