// BENCHMARKS.md's section on every engine, from bench/engines.mjs's JSON: one column per engine, each figure's
// ratio to Chromium's beside it. report.mjs writes it with the rest; `node bench/engines-report.mjs JSON
// BENCHMARKS.md` rewrites only this section (in place, or at the end where there is none).
import fs from 'node:fs';

const f = (x, d = 0) => Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const GOAL = 1.5;
export const HEADING = '## Every engine';

/** The figures, each `[name, key, digits, unit]` of bench/engines.mjs's samples. */
const FIGURES = [
  ['first visit to interactive (navigation → `playground-ready`), a fresh profile each load', 'tti', 0, ' ms'],
  ['one UI step (deliver or apply, with re-render)', 'step', 1, ' ms'],
  ['the explorer\'s first click (a fresh page, Run, the sliced run)', 'explorer_first', 0, ' ms'],
  ['the checker\'s default configuration in the page (*Check* → verdict, in that engine\'s worker)', 'check_wall', 0, ' ms'],
];

const engineName = (e, version = '') =>
  `${{ chromium: 'Chromium', firefox: 'Firefox ESR', webkit: 'WebKitGTK' }[e] ?? e}${version ? ` ${version}` : ''}`;

export function enginesReport(r, when = 'in the same run') {
  const others = r.engines.filter((e) => e !== 'chromium');
  const cell = (e, key, d, unit) => {
    const s = r[e][key];
    const base = r.chromium[key].median;
    const ratio = e === 'chromium' ? '' : `, **${f(s.median / base, 2)}×**`;
    return `${f(s.median, d)}${unit} (${f(s.min, d)}–${f(s.max, d)})${ratio}`;
  };
  const met = (key) => others.every((e) => r[e][key].median / r.chromium[key].median <= GOAL) ? 'met' : '**missed**';
  const rows = FIGURES.map(([name, key, d, unit]) =>
    `| ${name}, ${r.chromium[key].samples} samples | ${r.engines.map((e) => cell(e, key, d, unit)).join(' | ')} | ≤ ${GOAL}× | ${met(key)} |`);
  const counts = r.engines.map((e) => r.counts[e]);
  const same = counts.every((c) => JSON.stringify(c) === JSON.stringify(counts[0]));
  const core = (e) => r[e].core.median;
  const check = (e) => r[e].check_worker.median;
  const wk = r.webkit ?? {};
  const diagnosis = ['no_omg', 'sync_jit'].filter((k) => wk[`explorer_first_${k}`]).map((k) => {
    const s = wk[`explorer_first_${k}`];
    const what = k === 'no_omg' ? 'JavaScriptCore\'s optimizing wasm tier off (`JSC_useOMGJIT=0`)'
      : 'its compilers on the page\'s thread, not beside it (`JSC_useConcurrentJIT=0`)';
    const cell = `${f(s.median)} ms (${f(s.min)}–${f(s.max)}), ${f(s.median / r.chromium.explorer_first.median, 2)}×`;
    return `| where WebKit's time goes: the explorer's first click with ${what}, a diagnosis | ${r.engines.map((e) => (e === 'webkit' ? cell : '—')).join(' | ')} | — | |\n`;
  }).join('');
  const crossings = (e) => {
    const c = r.crossings?.[e];
    if (!c?.crossings) return 'not measured';
    const total = Object.values(c.crossings).reduce((x, y) => x + y, 0);
    return `${f(total / c.transitions, 3)} (${f(total)} in the whole search)`;
  };

  return `
${HEADING}
\`bench/engines.mjs\` (\`scripts/bench.sh\`), ${when}: each engine is its stock Debian browser over its own WebDriver
(${r.engines.map((e) => engineName(e, r.versions[e])).join(', ')}; WebKitGTK under Xvfb), 1280 × 900, the
release build served with brotli; each figure's samples alternate between the engines. Median (min–max), and
the ratio to Chromium. The checker's verdict and counts: ${same ? `the same in every engine (${counts[0].verdict}, ${f(counts[0].states)} states, ${f(counts[0].transitions)} transitions)` : `**they differ**: ${JSON.stringify(r.counts)}`}.

| figure | ${r.engines.map((e) => engineName(e)).join(' | ')} | goal | |
|---|${r.engines.map(() => '---|').join('')}---|---|
${rows.join('\n')}
| where the time goes: the wasm core alone, warm (\`bench_explorer\`: the explorer's runs at once, no UI, worker or timer) | ${r.engines.map((e) => `${f(core(e))} ms${e === 'chromium' ? '' : `, ${f(core(e) / core('chromium'), 2)}×`}`).join(' | ')} | — | |
| crossings from the wasm into JavaScript per transition of that search (the glue's imports, counted) | ${r.engines.map((e) => crossings(e)).join(' | ')} | — | |
${diagnosis}${r.hops ? `| one yield to the browser: a \`MessageChannel\` hop, and a message to the window itself (the page's), 100 in a row | ${r.engines.map((e) => `${f(r.hops[e].channel, 2)} ms, ${f(r.hops[e].window, 2)} ms`).join(' | ')} | — | |\n` : ''}| the checker's search alone (the worker's own time, without start-up and messages) | ${r.engines.map((e) => `${f(check(e))} ms${e === 'chromium' ? '' : `, ${f(check(e) / check('chromium'), 2)}×`}`).join(' | ')} | — | |

What limits them: once its code is warm, WebKit runs the wasm core at Chromium's pace (the rows on the core
alone and the search alone), and the search crosses into JavaScript about once in a hundred transitions (the
clock and the progress messages: SQLite's memory file system is inside the module), so neither crossings nor
the worker's messages are where its time goes. The explorer's first click is: JavaScriptCore compiles each hot
wasm function again with its optimizing tier (OMG), seconds of compiling for the explorer's functions (the
click with the compilers on the page's thread), on background threads that share this machine's two cores
with the page; with OMG off the same click is near Chromium's. A page cannot choose an engine's tiers; a phone
with six cores compiles beside the page.${r.hops?.webkit ? ` A \`MessageChannel\` hop costs ${f(r.hops.webkit.channel, 2)} ms in WebKit
in this run (a port's message goes through another process; ~2 ms in a busy page) against ${f(r.hops.chromium.channel, 2)} ms in Chromium,
so the page yields by a message to its own window (${f(r.hops.webkit.window, 2)} ms).` : ''}
`;
}

// Run directly: replace (or add) this section of an existing BENCHMARKS.md.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [json, out] = process.argv.slice(2);
  const r = JSON.parse(fs.readFileSync(json, 'utf8'));
  const md = fs.readFileSync(out, 'utf8');
  const when = `measured ${new Date().toISOString().slice(0, 10)} apart from the figures above (\`node bench/engines-report.mjs\`)`;
  const section = enginesReport(r, when);
  const at = md.indexOf(`\n${HEADING}`);
  if (at < 0) {
    fs.writeFileSync(out, `${md.replace(/\n$/, '')}\n${section}`);
  } else {
    const next = md.indexOf('\n## ', at + 1);
    fs.writeFileSync(out, md.slice(0, at) + section + (next < 0 ? '' : md.slice(next)));
  }
}
