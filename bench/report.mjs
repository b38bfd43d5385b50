// Writes BENCHMARKS.md from the files scripts/bench.sh produced in one run: the machine's speed, one table (figure,
// goal, this run, the previous run, met or not), and a few lines per figure on what limits it. What was tried and
// dropped is in ARCHITECTURE.md's Decisions, not here. Rows measured by hand are carried over as they were.
import fs from 'node:fs';
import os from 'node:os';

const [nativeFile, browserFile, outFile, soakFile, checkOneFile, checkAllFile, checkLargeFile, checkSymFile, checkPageFile,
  previousFile, lighthouseFile, enginesFile] = process.argv.slice(2);
const read = (file) => (file && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null);
const n = read(nativeFile);
const b = read(browserFile);
const budget = read('size-budget.json');
const f = (x, d = 0) => Number(x).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const mmm = (s, d = 0, unit = '') => `${f(s.median, d)}${unit} (${f(s.min, d)}–${f(s.max, d)})`;
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const mark = (ok) => (ok ? 'met' : '**missed**');

const rows = [];
/** A row: `name` is also how the next run finds this one's value for its previous-run column. */
const row = (name, goal, value, met = '') => rows.push({ name, goal, value, met });

// Size and start-up.
const gz = b.size.reduce((s, x) => s + x.gzip, 0);
const part = (name) => (b.parts ?? []).find((p) => p.part === name);
row('first load, gzip -9', `≤ ${f(budget.target_gzip_bytes)} B`, `${f(gz)} B (ceiling ${f(budget.ceiling_gzip_bytes)} B)${part('rest') ? `; later: rest ${f(part('rest').gzip)} B, history ${f(part('history')?.gzip ?? 0)} B` : ''}`,
  mark(gz <= budget.target_gzip_bytes));
const floor = b.static_fcp_ms.median;
const ph = b.tti_phases_ms;
row('first paint against the static floor', '≤ 1.1×', `${f(ph.paint.median / floor, 2)}×: ${f(ph.paint.median)} against ${f(floor)} ms`, mark(ph.paint.median / floor <= 1.1));
row('interactive against the static floor', 'tracked', `${f(b.tti_ms.median / floor, 2)}×: ${f(b.tti_ms.median)} against ${f(floor)} ms`);
row('interactive, first visit', '≤ 200 ms', mmm(b.tti_ms, 0, ' ms'), mark(b.tti_ms.median <= 200));
row('interactive, return visit', '≤ 200 ms', mmm(b.tti_warm_ms, 0, ' ms'), mark(b.tti_warm_ms.median <= 200));
row('start-up\'s longest main-thread task', '≤ 50 ms', mmm(b.startup_longest_task_ms, 0, ' ms'), mark(b.startup_longest_task_ms.median <= 50));
row('one UI step, median / p95', '≤ 8 / 16 ms', `${f(b.step_ms.median, 1)} / ${f(b.step_ms.p95, 1)} ms`, mark(b.step_ms.median <= 8 && b.step_ms.p95 <= 16));
row('explorer, full run in the page, warm', '≤ 300 ms', mmm(b.explorer_wasm_ms, 0, ' ms'), mark(b.explorer_wasm_ms.median <= 300));
row('explorer, the reader\'s first click', '≤ 300 ms', mmm(b.explorer_first_click_ms, 0, ' ms'), mark(b.explorer_first_click_ms.median <= 300));
const wasmRatio = b.explorer_wasm_runs_per_s.median / n.explorer_runs_per_s.median;
row('wasm core against native, explorer workload', '≥ 0.5×', `${f(wasmRatio, 2)}×`, mark(wasmRatio >= 0.5));
row('core transaction against a bare one', '≤ 2×', `${f(n.core_over_bare.median, 2)}×: ${f(n.core_us_per_txn.median, 1)} against ${f(n.bare_us_per_txn.median, 1)} µs`, mark(n.core_over_bare.median <= 2));

// Lighthouse.
const lh = read(lighthouseFile);
if (lh?.forms?.mobile) {
  const perf = (form) => lh.forms[form]?.performance?.median;
  row('Lighthouse performance, mobile', '≥ 95', f(perf('mobile')), mark(perf('mobile') >= 95));
  row('Lighthouse performance, desktop', '≥ 98', f(perf('desktop')), mark(perf('desktop') >= 98));
  const others = ['accessibility', 'best-practices', 'seo'].flatMap((c) => ['mobile', 'desktop'].map((form) => lh.forms[form]?.[c]?.median));
  row('Lighthouse accessibility, best practices, SEO', '100', others.every((x) => x === 100) ? 'all 100' : others.map((x) => f(x)).join(' / '),
    mark(others.every((x) => x === 100)));
}

// The checker.
const [one, all, large, sym] = [checkOneFile, checkAllFile, checkLargeFile, checkSymFile].map(read);
const c = n.checker;
if (c) {
  row('checker: a transition in bare transactions, natively, one thread', '≤ 2.5', `${f(c.bare_txns_per_transition.median, 2)} (${f(c.us_per_transition.median, 1)} µs a transition)`,
    mark(c.bare_txns_per_transition.median <= 2.5));
  row('checker: two threads against one, natively', '≥ 1.8×', `${f(c.two_threads_speedup.median, 2)}×: ${f(c.two_threads_ms.median)} against ${f(c.one_thread_ms.median)} ms`,
    mark(c.two_threads_speedup.median >= 1.8));
}
const page = read(checkPageFile);
if (page) {
  row('checker in the page: two workers against one', '≥ 1.6×', `${f(page.two_workers_speedup, 2)}×: ${f(page.workers[2].wall_ms)} against ${f(page.workers[1].wall_ms)} ms`,
    mark(page.two_workers_speedup >= 1.6));
  if (page.large_symmetry) {
    const l = page.large_symmetry;
    row('checker in the page: 3 flows × 3 events × 1 × 1 with symmetry', 'finishes, with progress', `${l.verdict} in ${f(l.wall_ms / 1000)} s (${f(Number(l.states))} classes)`,
      mark(l.verdict === 'holds'));
  }
  if (c) {
    const wall = median(page.page.map((r) => r.wall_ms));
    row('checker in the page: the default verdict against native one thread', '≤ 0.7×', `${f(wall / c.one_thread_ms.median, 2)}×: ${f(wall)} against ${f(c.one_thread_ms.median)} ms`,
      mark(wall / c.one_thread_ms.median <= 0.7));
  }
}
if (large) {
  const mib = large.peak_memory_kib / 1024;
  row('checker: 3 flows × 3 events × 1 × 1, natively', '≤ 3 min, ≤ 300 MiB', `${f(large.elapsed_ms / 1000)} s, ${f(mib)} MiB (${large.threads} threads; ${f(large.counts.states)} states)`,
    mark(large.elapsed_ms <= 180_000 && mib <= 300));
}
if (sym) row('checker: the same with symmetry, natively', 'tracked', `${f(sym.elapsed_ms / 1000)} s, ${f(sym.peak_memory_kib / 1024)} MiB (${f(sym.counts.states)} classes)`);
const ruleRuns = (prefix) => [1, 2, 3, 4, 5].map((i) => read(`target/bench-rule-${prefix}${i}.json`)).filter(Boolean);
const [ruled, builtin] = [ruleRuns(''), ruleRuns('builtin-')];
if (ruled.length && builtin.length) {
  const ratio = median(ruled.map((r) => r.elapsed_ms)) / median(builtin.map((r) => r.elapsed_ms));
  const same = JSON.stringify(ruled[0].counts) === JSON.stringify(builtin[0].counts);
  row('the reader\'s strict rule against built-in strict, checker, natively', '≤ 1.5×', `${f(ratio, 2)}×${same ? '' : ' (**the counts differ**)'}`, mark(ratio <= 1.5 && same));
}

// Real processes.
const soak = soakFile && fs.existsSync(soakFile) ? fs.readFileSync(soakFile, 'utf8') : '';
if (soak) {
  const kills = Number(/(\d+) killed with SIGKILL/.exec(soak)?.[1] ?? 0);
  const lost = !/nothing lost: holds/.test(soak) || !/invariant: holds/.test(soak);
  row('kill -9 soak: kills in 60 s, nothing lost', '≥ 100, nothing lost', `${f(kills)} kills, ${lost ? '**a loss**' : 'nothing lost'}`, mark(kills >= 100 && !lost));
}

// Every engine.
const eng = read(enginesFile);
const ENGINE_FIGURES = [['first visit to interactive', 'tti'], ['one UI step', 'step'], ['the explorer\'s first click', 'explorer_first'],
  ['the checker\'s default configuration in the page', 'check_wall']];
if (eng) {
  const others = eng.engines.filter((e) => e !== 'chromium');
  const name = { firefox: 'Firefox', webkit: 'WebKit' };
  for (const [label, key] of ENGINE_FIGURES) {
    const ratios = others.map((e) => [e, eng[e][key].median / eng.chromium[key].median]);
    row(`${label}: each engine against Chromium`, '≤ 1.5×', ratios.map(([e, r]) => `${name[e] ?? e} ${f(r, 2)}×`).join(', '),
      mark(ratios.every(([, r]) => r <= 1.5)));
  }
}

// The previous run: its table's "this run" column by figure (or, in the older layout, its "measured" column).
const prevText = previousFile && fs.existsSync(previousFile) ? fs.readFileSync(previousFile, 'utf8') : '';
const prev = new Map();
const newLayout = prevText.includes('| figure | goal | this run | previous run |');
for (const line of prevText.split('\n')) {
  const cells = line.split(' | ');
  if (!line.startsWith('| ') || cells.length < 4) continue;
  prev.set(cells[0].slice(2), newLayout ? cells[2] : cells[1]);
}
const prevBare = /takes ([\d.]+) µs/.exec(prevText)?.[1];
const prevDate = /Measured (\d{4}-\d{2}-\d{2})/.exec(prevText)?.[1];

// What limits each figure, a few lines each (ARCHITECTURE.md's Decisions holds what was tried).
const limits = [
  ['First load', `the primary part of the split module (\`scripts/split-wasm.mjs\`): everything start-up runs, and a stub or, when small, the whole of every other function. SQLite is about half the code, Yew most of the rest.`],
  ['Interactive, first visit', `the module starts at ${f(ph.start.median)} ms (files in by ${f(ph.files.median)} ms); Yew's first render after it is the rest of the gap to the floor (${f(b.tti_ms.median - ph.start.median)} ms). The goal "≤ 1.3× the floor" is retired: tracked above.`],
  ['Start-up\'s longest task and the UI step', `each step is real SQLite transactions, the five tables read back, the invariant checked and the page re-rendered; the machine's speed (the bare transaction) moves these most.`],
  ['Explorer', `${b.explorer_runs} runs, ${f(n.explorer_steps)} steps of real SQLite in wasm (~${f((b.explorer_wasm_ms.median * 1000) / n.explorer_steps)} µs a step); the first click also compiles its code (V8 compiles a wasm function on its first call).`],
  ['Checker, natively', `a transition is the real step (one to three write transactions), then the tables SQLite's hooks saw it commit are read back and only the rows that differ are written back. Two threads: ${c ? `${f(c.two_threads_speedup.median, 2)}×, against ${f(c.two_searches_at_once?.median ?? 0, 2)}× for two independent one-thread searches at once (this machine's own ceiling: two cores shared with its host)` : '—'}.`],
  ['Checker in the page', `one search shared by workers (each owns the states whose fingerprint falls to it; a level is exchanged by message). One worker takes ${page && c ? `${f(page.workers[1].wall_ms / c.one_thread_ms.median, 2)}×` : '—'} the native thread's time (the page's SQLite is compiled for size, in the first load), so two workers on two cores reach about the native one-thread time: 0.7× needs a third core (the page uses up to four) or SQLite built for speed, at a cost to the first load.`],
  ['Checker, 3 flows', `every state's fingerprint stays in memory; the states themselves only while on the frontier.`],
  ['The reader\'s rule', `per apply (a third of a transition, profiled), \`waiting\` is filled in a scratch database, in one transaction, and the rule's statement run there; that work did not shrink when the built-in's transitions did.`],
  ['Engines', `WebKit's explorer first click is JavaScriptCore recompiling hot wasm functions with its optimizing tier (OMG) on background threads sharing the two cores: with OMG off the same click is near Chromium's (bench/engines.mjs measures both).`],
  ['Soak', `every commit waits for its fsync (\`synchronous=FULL\`) and four writers share one write lock per file: the disk's commit rate more than the code's.`],
];

// Figures measured by hand (their names say so and when) are rows of the one table, carried over as they were,
// and so are their lines under it (after the bench's own).
const byHandRows = prevText.split('\n').filter((l) => l.startsWith('| ') && /\(by hand, \d{4}-\d{2}-\d{2}\)/.test(l))
  .filter((l) => !rows.some((r) => l.startsWith(`| ${r.name} |`)));
const ownLimits = new Set(limits.map(([what]) => what));
const byHandLimits = (prevText.split('## What limits each figure')[1] ?? '').split('\n')
  .filter((l) => l.startsWith('- **') && !ownLimits.has(/^- \*\*(.*?)\.\*\*/.exec(l)?.[1]));
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const md = `# Benchmarks

Measured ${new Date().toISOString().slice(0, 10)} on this project's machine (${os.cpus().length} × ${cpu}, ${f(os.totalmem() / 2 ** 30)} GiB, Chromium ${b.chromium}
headless), the release build; medians of samples taken in one run, interleaved so noise falls on each alike.
**The machine's speed:** a bare rusqlite \`BEGIN IMMEDIATE\`, 2 inserts, \`COMMIT\` takes ${f(n.bare_us_per_txn.median, 1)} µs natively
(previous run${prevDate ? `, ${prevDate}` : ''}: ${prevBare ?? '—'} µs). It moves up to 3× from one day to the next: compare ratios, and a time only
with this line beside it. Reproduce: \`scripts/bench.sh\`. The size ceiling the tests enforce: \`size-budget.json\`.

| figure | goal | this run | previous run | |
|---|---|---|---|---|
${[...rows.map((r) => `| ${r.name} | ${r.goal} | ${r.value} | ${prev.get(r.name) ?? '—'} | ${r.met} |`), ...byHandRows].join('\n')}

## What limits each figure
${[...limits.map(([what, text]) => `- **${what}.** ${text[0].toUpperCase()}${text.slice(1)}`), ...byHandLimits].join('\n')}
`;
fs.writeFileSync(outFile, md);
console.log(md);
