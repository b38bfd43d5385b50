// Lighthouse 12 (npm `lighthouse`, pinned at 12.2.3) on the release build served as a blog host serves it:
// brotli, cacheable. Debian's Chromium; mobile (Lighthouse's default: a mid-range phone, slow 4G and a 4×
// slower CPU, simulated) and desktop. Each form factor runs RUNS times in a fresh profile; every figure is the
// median of its runs, with its range. Prints JSON for bench/report.mjs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import * as chromeLauncher from 'chrome-launcher';
import { serve } from '../e2e/server.mjs';
import { CHROMIUM, LAUNCH_OPTIONS } from '../e2e/browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// LIGHTHOUSE_RUNS, LIGHTHOUSE_FORMS (mobile,desktop) and LIGHTHOUSE_DIST (dist/) are there to compare two
// builds by hand; bench.sh uses the defaults.
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const FORMS = (process.env.LIGHTHOUSE_FORMS ?? 'mobile,desktop').split(',');
const DIST = process.env.LIGHTHOUSE_DIST ?? path.join(ROOT, 'dist');
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const METRICS = {
  fcp_ms: 'first-contentful-paint', lcp_ms: 'largest-contentful-paint', tbt_ms: 'total-blocking-time',
  cls: 'cumulative-layout-shift', si_ms: 'speed-index', tti_ms: 'interactive',
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await serve(DIST, { compress: true, headers: { 'cache-control': 'max-age=3600' } });
const out = { runs: RUNS, url: 'dist/ served with brotli (quality 11), cacheable', forms: {} };
for (const form of FORMS) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lighthouse-'));
    const chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM,
      userDataDir: profile,
      chromeFlags: ['--headless=new', ...LAUNCH_OPTIONS.args],
    });
    try {
      const result = await lighthouse(server.url, { port: chrome.port, output: 'json', logLevel: 'error' },
        form === 'desktop' ? desktopConfig : undefined);
      const lhr = result.lhr;
      if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
      const run = { version: lhr.lighthouseVersion, chrome: lhr.environment?.hostUserAgent };
      for (const c of CATEGORIES) {
        const { score } = lhr.categories[c];
        if (score === null) throw new Error(`lighthouse: no ${c} score (an audit failed to run)`);
        run[c] = Math.round(score * 100);
      }
      for (const [k, id] of Object.entries(METRICS)) run[k] = lhr.audits[id].numericValue;
      // What kept a category under 100, for the report: each failing audit's title.
      run.failing = Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c].auditRefs
        .filter((r) => r.weight > 0 && lhr.audits[r.id].score !== null && lhr.audits[r.id].score < 1)
        .map((r) => lhr.audits[r.id].id)]));
      runs.push(run);
    } finally {
      await chrome.kill();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  }
  const summary = { version: runs[0].version };
  for (const k of [...CATEGORIES, ...Object.keys(METRICS)]) {
    const xs = runs.map((r) => r[k]);
    summary[k] = { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
  }
  summary.failing = runs[Math.floor(runs.length / 2)].failing;
  out.forms[form] = summary;
}
await server.close();
console.log(JSON.stringify(out, null, 2));
