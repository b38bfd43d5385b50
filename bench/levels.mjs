// Break-it levels in the page (issue 56), in Chromium and WebKitGTK over WebDriver (e2e/engines/webdriver.mjs),
// against the release build served with brotli; samples alternate between the engines. Prints JSON.
//
// - a hint's first press: a fresh page (a new session) on each level's start, *Hint* pressed as soon as the
//   moves are drawn, to its text (the level's worker may still be starting: this is a reader's first press);
// - a warm hint: in the same page, one move made, then *Hint*: a search from there in the worker, now warm;
// - the proof: a fresh page on the protocol's level, *I give up* pressed as soon as it is drawn, to the proof;
// - the bytes the levels add to what is fetched later: `levels.json` and `levels.css`, gzip -9.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { serve } from '../e2e/server.mjs';
import { launchEngine } from '../e2e/engines/webdriver.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENGINES = (process.env.ENGINES ?? 'chromium,webkit').split(',');
const PROOFS = Number(process.env.PROOFS ?? 3);
const log = (...args) => console.error('[levels]', ...args);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const server = await serve(path.join(ROOT, 'dist'), { compress: true });
const levels = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'levels.json'), 'utf8')).levels.map((l) => l.id);

// Clicks `id` and resolves with the milliseconds until `done` (a CSS selector) matches, measured in the page.
const TIMED = `const [id, done, finish] = arguments;
  const t0 = performance.now();
  document.querySelector('[data-testid="' + id + '"]').click();
  const poll = () => document.querySelector(done) ? finish(performance.now() - t0) : requestAnimationFrame(poll);
  poll();`;
const HINTED = '[data-testid="level-hint-text"]:not([data-stage="0"])';

async function session(engine, url) {
  const s = await launchEngine(engine, { width: 1280, height: 900 });
  await s.call('POST', '/timeouts', { script: 120_000 });
  await s.goto(url);
  await s.until(() => s.run('return !!document.querySelector(\'.level .moves button\')'), { timeout: 60_000, what: 'the moves' });
  return s;
}

const out = { engines: ENGINES, levels, first: {}, warm: {}, proof: {}, bytes: {} };
for (const engine of ENGINES) Object.assign(out.first, { [engine]: {} }) && Object.assign(out.warm, { [engine]: [] });
for (const [i, id] of levels.entries()) {
  for (const engine of ENGINES) {
    const s = await session(engine, `${server.url}?level=${i + 1}`);
    try {
      out.first[engine][id] = await s.runAsync(TIMED, 'level-hint', HINTED);
      await s.run('document.querySelector(\'.level .moves button\').click()');
      await s.until(() => s.run('return document.querySelector(\'[data-testid="level-moves"]\')?.textContent === "1"'), { what: 'one move made' });
      if (await s.run('return !!document.querySelector(\'[data-testid="level-hint"]:not([disabled])\')')) {
        out.warm[engine].push(await s.runAsync(TIMED, 'level-hint', HINTED));
      }
    } finally {
      await s.quit();
    }
  }
  log(id, ENGINES.map((e) => `${e} ${out.first[e][id].toFixed(0)} ms`).join(', '));
}
const strict = levels.indexOf('strict') + 1;
for (let k = 0; k < PROOFS; k++) {
  for (const engine of ENGINES) {
    const s = await session(engine, `${server.url}?level=${strict}`);
    try {
      (out.proof[engine] ??= []).push(await s.runAsync(TIMED, 'level-giveup', '[data-testid="level-proof"][data-states]'));
    } finally {
      await s.quit();
    }
  }
  log('proof', k + 1, ENGINES.map((e) => `${e} ${out.proof[e].at(-1).toFixed(0)} ms`).join(', '));
}
for (const file of ['levels.json', 'levels.css']) {
  out.bytes[file] = zlib.gzipSync(fs.readFileSync(path.join(ROOT, 'dist', file)), { level: 9 }).length;
}
out.summary = Object.fromEntries(ENGINES.map((e) => [e, {
  first_median_ms: median(Object.values(out.first[e])),
  first_max_ms: Math.max(...Object.values(out.first[e])),
  warm_median_ms: median(out.warm[e]),
  proof_median_ms: median(out.proof[e]),
}]));
server.close();
console.log(JSON.stringify(out, null, 2));
