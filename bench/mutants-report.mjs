// Sums scripts/mutants.sh's runs (target/mutants/<run>/{core,workspace}/mutants.out/*.txt) by module of
// outbox-core: a mutant the core's tests missed and the root package's caught counts as caught, and a missed one
// listed in mutants-equivalent.txt counts as equivalent. Prints a Markdown table for BENCHMARKS.md, then the
// mutants still missed. `node bench/mutants-report.mjs [DIR]`.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2] ?? 'target/mutants';
const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const outcome = new Map();
// Runs whose core phase finished (scripts/mutants.sh marks it `core.done`; `done` once the root package's phase
// has run too). Across runs a mutant caught once counts as caught.
const all = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
const marked = (r, mark) => fs.existsSync(path.join(dir, r, mark));
// Oldest first: a later run of whole files (its `filters`, as scripts/mutants.sh wrote them, name files and no
// mutants) replaces what earlier runs said of those files, whose lines may have moved since.
const finished = (r) => fs.statSync(path.join(dir, r, marked(r, 'core.done') ? 'core.done' : 'done')).mtimeMs;
const runs = all.filter((r) => marked(r, 'core.done') || marked(r, 'done')).sort((a, b) => finished(a) - finished(b));
const glob = (g) => new RegExp(`^${g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\0').replace(/\*/g, '[^/]*').replace(/\0/g, '.*')}$`);
/** The globs of the files a run mutated whole, or none (a group that excludes, or a run of named mutants). */
const wholeFiles = (r) => {
  const args = read(path.join(dir, r, 'filters'));
  if (args.some((a) => a === '--re' || a === '-e' || a === '--exclude')) return [];
  return args.filter((a, i) => i > 0 && (args[i - 1] === '-f' || args[i - 1] === '--file')).map(glob);
};
const coreOnly = runs.filter((r) => !marked(r, 'done'));
// The commit each run's first phase mutated (its mark holds it): a run of an older core may name mutants by lines
// that have moved since.
const commitOf = (r) => {
  const mark = path.join(dir, r, 'core.done');
  return (fs.existsSync(mark) && fs.readFileSync(mark, 'utf8').trim().slice(0, 10)) || 'commit unrecorded';
};
const unfinished = all.filter((r) => !runs.includes(r));
// What a run mutated: core/src at its commit, without the unit-test files beside the modules (`*_tests.rs`,
// which hold no mutant), so that runs of one source with more tests at later commits are seen as one source.
const sourceOf = (r) => {
  const mark = path.join(dir, r, 'core.done');
  try {
    const commit = fs.readFileSync(mark, 'utf8').trim();
    const files = execFileSync('git', ['ls-tree', '-r', commit, 'core/src'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l && !l.endsWith('_tests.rs'));
    return crypto.createHash('sha1').update(files.join('\n')).digest('hex').slice(0, 10);
  } catch {
    return null;
  }
};
const rank = { caught: 3, timeout: 2, unviable: 1, missed: 0 };
for (const run of runs) {
  const whole = wholeFiles(run);
  for (const name of [...outcome.keys()]) {
    if (whole.some((g) => g.test(name.split(':')[0]))) outcome.delete(name);
  }
  const out = (phase, kind) => read(path.join(dir, run, phase, 'mutants.out', `${kind}.txt`));
  for (const kind of ['caught', 'missed', 'unviable', 'timeout']) {
    for (const name of out('core', kind)) {
      if (!outcome.has(name) || rank[kind] > rank[outcome.get(name)]) outcome.set(name, kind);
    }
  }
  for (const kind of ['caught', 'timeout']) {
    // The second phase: the core's tests again (`recheck`), then the workspace's on what those still missed.
    for (const phase of ['recheck', 'workspace']) {
      for (const name of out(phase, kind)) if (outcome.get(name) === 'missed') outcome.set(name, kind);
    }
  }
  // A miss the recheck no longer finds by its name: its code was removed or moved since the first phase.
  if (marked(run, 'recheck.done')) {
    const file = path.join(dir, run, 'recheck', 'mutants.out', 'mutants.json');
    const found = new Set(fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).map((m) => m.name) : []);
    for (const name of out('core', 'missed')) {
      if (outcome.get(name) === 'missed' && !found.has(name)) outcome.set(name, 'gone');
    }
  }
}
const gone = [...outcome].filter(([, kind]) => kind === 'gone').map(([name]) => name).sort();
for (const name of gone) outcome.delete(name);

// mutants-equivalent.txt: `name without its line and column  # why it cannot change what a user sees`, or with
// them where one function has several such mutants and only one is equivalent.
const nameKey = (name) => name.replace(/:\d+:\d+:/, ':');
const equivalents = new Map();
for (const line of read(new URL('../mutants-equivalent.txt', import.meta.url))) {
  if (line.startsWith('#')) continue;
  const [name, why] = line.split(/\s+#\s+/);
  if (!why) throw new Error(`mutants-equivalent.txt: no reason after " # " in: ${line}`);
  if (equivalents.has(name.trim())) throw new Error(`mutants-equivalent.txt: ${name.trim()} is listed twice`);
  equivalents.set(name.trim(), why.trim());
}
const unused = new Set(equivalents.keys());
for (const [name, kind] of outcome) {
  // An entry with its line and column is that mutant only (where a function has several alike).
  const entry = [name, nameKey(name)].find((n) => equivalents.has(n));
  if (kind === 'missed' && entry) {
    outcome.set(name, 'equivalent');
    unused.delete(entry);
  }
}

/** `protocol/` for a file in a folder of core/src, else the file. */
const moduleOf = (name) => {
  const file = name.split(':')[0].replace(/^core\/src\//, '');
  return file.includes('/') ? `${file.split('/')[0]}/` : file;
};
const modules = new Map();
for (const [name, kind] of outcome) {
  const m = modules.get(moduleOf(name)) ?? { caught: 0, missed: 0, equivalent: 0, unviable: 0, timeout: 0 };
  m[kind] += 1;
  modules.set(moduleOf(name), m);
}
const score = (m) => {
  const viable = m.caught + m.missed + m.timeout;
  return viable ? `${((100 * (m.caught + m.timeout)) / viable).toFixed(1)} %` : '—';
};
const total = { caught: 0, missed: 0, equivalent: 0, unviable: 0, timeout: 0 };
const rows = [...modules].sort(([a], [b]) => a.localeCompare(b)).map(([name, m]) => {
  for (const k of Object.keys(total)) total[k] += m[k];
  return `| \`${name}\` | ${m.caught} | ${m.missed} | ${m.equivalent} | ${m.unviable} | ${m.timeout} | ${score(m)} |`;
});
console.log(`${outcome.size} mutants of outbox-core from ${runs.length} run(s) of scripts/mutants.sh (${runs.map((r) => `${r} at ${commitOf(r)}`).join(', ')})${coreOnly.length ? ` (${coreOnly.length} with the core's tests only)` : ''}${unfinished.length ? `; not counted, unfinished: ${unfinished.join(', ')}` : ''}.

| module | caught | missed | equivalent | unviable | timeout | caught of viable, not equivalent |
|---|---|---|---|---|---|---|
${rows.join('\n')}
| **all** | ${total.caught} | ${total.missed} | ${total.equivalent} | ${total.unviable} | ${total.timeout} | ${score(total)} |
`);
const sourceByRun = new Map(runs.map((r) => [r, sourceOf(r)]));
const sources = new Set(sourceByRun.values());
console.log(
  sources.size === 1 && !sources.has(null)
    ? `Every run mutated the same source (core/src without its \`*_tests.rs\`, ${[...sources][0]}).\n`
    : `The runs mutated ${sources.size} different sources (core/src without its \`*_tests.rs\`): ${runs.map((r) => `${r} ${sourceByRun.get(r) ?? 'unknown'}`).join(', ')}.\n`,
);
// Only of the files these runs mutated: a run of some groups says nothing of the others' entries.
const mutated = new Set([...outcome.keys()].map((name) => name.split(':')[0]));
const stale = [...unused].filter((n) => mutated.has(n.split(':')[0]));
if (stale.length) console.log(`Listed in mutants-equivalent.txt but not missed in these runs:\n${stale.map((n) => `- ${n}`).join('\n')}\n`);
if (gone.length) console.log(`Missed by a first phase, then removed or moved before the recheck (not counted) (${gone.length}):\n${gone.map((n) => `- ${n}`).join('\n')}\n`);
const missed = [...outcome].filter(([, kind]) => kind === 'missed').map(([name]) => name).sort();
if (missed.length) console.log(`Missed (${missed.length}):\n${missed.map((n) => `- ${n}`).join('\n')}`);
