// The end-to-end tests (e2e/*.test.mjs): Playwright's runner driving Debian's Chromium (no browser download)
// against the release build in dist/, which the tests serve themselves (e2e/fixtures.mjs). `npx playwright test`.
import { defineConfig } from '@playwright/test';
import { LAUNCH_OPTIONS } from './e2e/browser.mjs';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.test.mjs',
  outputDir: 'test-results',
  // One at a time: the machine has two cores, and the checker tests time the page's main thread.
  workers: 1,
  fullyParallel: false,
  // The checker's searches and the explorer run for minutes on a slow machine; an assertion waits up to 10 s
  // for the page to show what it expects (the long runs say so where they wait longer).
  timeout: 300_000,
  expect: { timeout: 10_000 },
  forbidOnly: !!process.env.CI,
  reporter: 'list',
  use: {
    browserName: 'chromium',
    launchOptions: LAUNCH_OPTIONS,
    actionTimeout: 30_000,
    // For each failure: a trace of every browser context the test opened and a screenshot of every open page,
    // kept in test-results/ (`npx playwright show-trace test-results/…/trace.zip`).
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'chromium', testMatch: '*.test.mjs' },
    // The journeys in every engine a reader uses, each its stock Debian browser over WebDriver (e2e/engines/).
    // One retry, taken only when the first attempt ended on the engine crashing (e2e/engines/fixtures.mjs).
    ...['chromium', 'firefox', 'webkit'].map((engine) => ({
      name: `journeys-${engine}`, testDir: 'e2e/engines', testMatch: '*.journey.mjs', use: { engine }, retries: 1,
    })),
    { name: 'journeys-webkit-phone', testDir: 'e2e/engines', testMatch: '*.journey.mjs', retries: 1,
      use: { engine: 'webkit', size: { width: 390, height: 844 } } },
  ],
});
