// Every engine side by side (issue 37): Chromium, Firefox ESR and WebKitGTK, each its stock Debian browser over
// its own WebDriver (e2e/engines/webdriver.mjs), against the release build served with brotli. Each figure's
// samples alternate between the engines, so the machine's drift falls on all three alike. Prints JSON.
//
// - first visit to interactive: navigation start → the page's `playground-ready` mark, a new session (a fresh
//   profile) for every load;
// - one UI step: a click on deliver or apply → the reducer, SQLite and the re-render, up to the next task;
// - the explorer's first click: a fresh page, Run, the page's sliced run (`data-elapsed-ms`);
// - the checker's default configuration in the page: Check clicked → the verdict, in that engine's worker;
// - where the time goes: the wasm core alone (`bench_explorer`, no UI, no worker, no timer) in each engine.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../e2e/server.mjs';
import { launchEngine } from '../e2e/engines/webdriver.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENGINES = (process.env.ENGINES ?? 'chromium,firefox,webkit').split(',');
const LOADS = Number(process.env.LOADS ?? 7);
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  const mid = s.length / 2;
  const median = s.length % 2 ? s[Math.floor(mid)] : (s[mid - 1] + s[mid]) / 2;
  return { median, p95: at(0.95), min: s[0], max: s[s.length - 1], samples: s.length };
};
const log = (...args) => console.error('[engines]', ...args);

const server = await serve(path.join(ROOT, 'dist'), { compress: true });
const samples = Object.fromEntries(ENGINES.map((e) => [e, {
  tti: [], start: [], step: [], explorer_first: [], check_wall: [], check_worker: [], core: [],
}]));
// Each engine's Debian package version (WebKit's user agent is frozen at 605.1.15, Chromium's at x.0.0.0).
const PACKAGES = { chromium: 'chromium', firefox: 'firefox-esr', webkit: 'libwebkit2gtk-4.1-0' };
const version = (pkg) => {
  try {
    return execFileSync('dpkg-query', ['-W', '-f', '${Version}', pkg], { encoding: 'utf8' }).replace(/[-+~].*$/, '');
  } catch { return ''; }
};
const out = { engines: ENGINES, versions: Object.fromEntries(ENGINES.map((e) => [e, version(PACKAGES[e])])), counts: {} };

async function withPage(engine, f, env = {}) {
  const session = await launchEngine(engine, { width: 1280, height: 900, env });
  try {
    return await f(session);
  } finally {
    await session.quit();
  }
}
const mark = (session, name) => session.until(
  () => session.run('return performance.getEntriesByName(arguments[0])[0]?.startTime ?? null', name),
  { timeout: 60_000, what: `the mark ${name}` });
const attr = (session, id, name, want, timeout = 60_000) => session.until(async () => {
  const v = await session.run('return document.querySelector(arguments[0])?.getAttribute(arguments[1]) ?? null',
    `[data-testid="${id}"]`, name);
  return want.test(v ?? '') ? v : null;
}, { timeout, what: `${id}[${name}] ~ ${want}` });

// First visits: the load's marks only; nothing runs in the page until it has set them.
for (let i = 0; i < LOADS; i++) {
  for (const engine of ENGINES) {
    await withPage(engine, async (session) => {
      await session.goto(server.url);
      samples[engine].tti.push(await mark(session, 'playground-ready'));
      samples[engine].start.push(await mark(session, 'playground-start'));
    });
  }
  log('first visit', i + 1, ENGINES.map((e) => `${e} ${samples[e].tti.at(-1).toFixed(0)} ms`).join(', '));
}

// The explorer as a reader first meets it: a fresh page, one click on Run. Beside them, where WebKit's time goes:
// the same click with JavaScriptCore's optimizing wasm tier (OMG) off, and with its compilers on the page's own
// thread (not concurrent): diagnoses, no reader's setting.
const DIAGNOSES = { no_omg: { JSC_useOMGJIT: '0' }, sync_jit: { JSC_useConcurrentJIT: '0' } };
const firstClick = (engine, env) => withPage(engine, async (session) => {
  await session.goto(server.url);
  await mark(session, 'playground-ready');
  await session.click('explorer-run');
  await attr(session, 'explorer-progress', 'data-running', /^false$/, 180_000);
  return Number(await attr(session, 'explorer-progress', 'data-elapsed-ms', /^\d+$/));
}, env);
for (let i = 0; i < 3; i++) {
  for (const engine of ENGINES) samples[engine].explorer_first.push(await firstClick(engine));
  if (ENGINES.includes('webkit')) {
    for (const [name, env] of Object.entries(DIAGNOSES)) {
      (samples.webkit[`explorer_first_${name}`] ??= []).push(await firstClick('webkit', env));
    }
  }
  log('explorer', i + 1, ENGINES.map((e) => `${e} ${samples[e].explorer_first.at(-1)} ms`).join(', '));
}

// One page per engine, open side by side, for the steps, the checker and the core alone.
const sessions = {};
try {
  for (const engine of ENGINES) {
    sessions[engine] = await launchEngine(engine, { width: 1280, height: 900 });
    // A search in a slow engine can outlast WebDriver's default 30 s for an async script.
    await sessions[engine].call('POST', '/timeouts', { script: 600_000 });
    await sessions[engine].goto(server.url);
    await sessions[engine].textOf('experiments-summary', /^12\/12/, { timeout: 120_000 });
  }
  // One UI step: click → the next task, each step after the page has painted the last.
  const STEP = `const [done] = arguments;
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const click = (id) => document.querySelector('[data-testid="' + id + '"]').click();
    (async () => {
      const times = [];
      click('reset'); await frames();
      click('order-312'); await frames();
      for (const id of ['deliver-next', 'apply-A', 'deliver-next', 'apply-A', 'apply-A', 'deliver-next', 'apply-A', 'apply-A']) {
        times.push(await new Promise((resolve) => {
          // The next task, after the click's microtasks where Yew renders: a message to the window itself (a
          // MessageChannel's would add WebKit's ~2 ms process hop to every sample).
          const key = 'bench:' + Math.random();
          const heard = (e) => {
            if (e.data !== key) return;
            removeEventListener('message', heard);
            resolve(performance.now() - t0);
          };
          addEventListener('message', heard);
          const t0 = performance.now();
          click(id);
          postMessage(key, '*');
        }));
        await frames();
      }
      // The steps did what they claim: three effects, in the order of the sequence.
      const effects = [...document.querySelectorAll('[data-testid="effect-row"]')].map((r) => r.textContent);
      done({ times, effects: effects.length });
    })();`;
  for (let round = 0; round < 12; round++) {
    for (const engine of ENGINES) {
      const { times, effects } = await sessions[engine].runAsync(STEP);
      if (effects !== 3) throw new Error(`${engine}: a round of steps left ${effects} effects, not 3`);
      samples[engine].step.push(...times);
    }
  }
  log('steps', ENGINES.map((e) => `${e} ${stats(samples[e].step).median.toFixed(1)} ms`).join(', '));

  // The checker's default configuration (CHECKER.md), clicked as a reader does, in each engine's worker.
  for (let i = 0; i < 3; i++) {
    for (const engine of ENGINES) {
      const session = sessions[engine];
      const r = await session.runAsync(`const [done] = arguments;
        const sel = '[data-testid=check-result][data-verdict=holds], [data-testid=check-result][data-verdict=violated]';
        for (const e of document.querySelectorAll(sel)) e.removeAttribute('data-verdict');
        const t0 = performance.now();
        document.querySelector('[data-testid=check-run]').click();
        const seen = new MutationObserver(() => {
          const e = document.querySelector(sel);
          if (!e) return;
          seen.disconnect();
          const d = e.dataset;
          done({ wall: performance.now() - t0, worker: Number(d.elapsedMs), verdict: d.verdict,
            states: Number(d.states), transitions: Number(d.transitions) });
        });
        seen.observe(document.body, { subtree: true, childList: true, attributes: true });`);
      samples[engine].check_wall.push(r.wall);
      samples[engine].check_worker.push(r.worker);
      out.counts[engine] = { verdict: r.verdict, states: r.states, transitions: r.transitions };
    }
    log('checker', i + 1, ENGINES.map((e) => `${e} ${samples[e].check_wall.at(-1).toFixed(0)} ms`).join(', '));
  }

  // How often the search crosses from the wasm into JavaScript: the same default search in a worker whose glue's
  // imports count their calls (the split parts' imports of each other are wasm to wasm, and left alone).
  for (const engine of ENGINES) {
    out.crossings ??= {};
    out.crossings[engine] = await sessions[engine].runAsync(`const [done] = arguments;
      (async () => {
        const glue = document.querySelector('link[rel=modulepreload]').href;
        const module = await window.outboxModule;
        const found = await Promise.all(['history', 'rest'].map(async (name) => {
          const url = document.querySelector('meta[name=outbox-playground-' + name + ']')?.content;
          return url && { name, module: await WebAssembly.compileStreaming(fetch(url)) };
        }));
        const source = \`
          const counts = {};
          const wrap = (imports) => Object.fromEntries(Object.entries(imports ?? {}).map(([ns, fns]) => [ns,
            Object.fromEntries(Object.entries(fns).map(([k, f]) => [k, typeof f !== 'function' ? f
              : function (...a) { counts[k] = (counts[k] ?? 0) + 1; return f.apply(this, a); }]))]));
          const instantiate = WebAssembly.instantiate;
          WebAssembly.instantiate = (m, imports) => instantiate(m, wrap(imports));
          const post = self.postMessage.bind(self);
          self.postMessage = (data) => post(data.kind === 'progress' ? data : { ...data, crossings: counts });
          let pending = null;
          self.onmessage = (e) => { pending = e; };
          await import(\${JSON.stringify(new URL('checker-worker.js', glue).href)});
          if (pending) self.onmessage(pending);\`;
        const w = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { type: 'module' });
        w.onmessage = ({ data }) => {
          if (data.kind === 'progress') return;
          w.terminate();
          done({ kind: data.kind, transitions: data.transitions, crossings: data.crossings ?? null });
        };
        w.onerror = (e) => done({ kind: 'failed', message: String(e.message) });
        w.postMessage({ glue, module, rest: found.every(Boolean) ? found : null,
          job: 'flows=2&events=3&resends=1&crashes=1&consumer=strict&producer=atomic' });
      })().catch((e) => done({ kind: 'failed', message: String(e) }));`);
  }
  log('crossings', JSON.stringify(out.crossings));

  // What one yield to the browser costs (the page's slices yield after each): a MessageChannel's message, and a
  // message to the window itself, which the page uses; 100 hops in a row, ms a hop.
  out.hops = {};
  for (const engine of ENGINES) {
    out.hops[engine] = await sessions[engine].runAsync(`const [done] = arguments;
      const hop = {
        channel: (f) => { const c = new MessageChannel(); c.port1.onmessage = f; c.port2.postMessage(0); },
        window: (f) => {
          const key = 'bench:' + Math.random();
          const heard = (e) => { if (e.data === key) { removeEventListener('message', heard); f(); } };
          addEventListener('message', heard);
          postMessage(key, '*');
        },
      };
      (async () => {
        const out = {};
        for (const [name, h] of Object.entries(hop)) {
          const t0 = performance.now();
          for (let i = 0; i < 100; i++) await new Promise((r) => h(r));
          out[name] = (performance.now() - t0) / 100;
        }
        done(out);
      })();`);
  }
  log('hops', JSON.stringify(out.hops));

  // The wasm core alone, warm: the explorer's 285 runs at once, with no UI, no worker and no timer between them.
  for (const engine of ENGINES) await sessions[engine].run('return window.wasmBindings.bench_explorer()');
  for (let i = 0; i < 5; i++) {
    for (const engine of ENGINES) {
      samples[engine].core.push((await sessions[engine].run('return window.wasmBindings.bench_explorer()'))[0]);
    }
  }
  log('core', ENGINES.map((e) => `${e} ${stats(samples[e].core).median.toFixed(0)} ms`).join(', '));
} finally {
  for (const s of Object.values(sessions)) await s.quit();
  await server.close();
}

for (const engine of ENGINES) {
  out[engine] = Object.fromEntries(Object.entries(samples[engine]).map(([k, v]) => [k, stats(v)]));
}
console.log(JSON.stringify(out, null, 2));
