// Sums scripts/mutants.sh's runs (target/mutants/<run>/{core,workspace}/mutants.out/*.txt) by module of
// outbox-core: a mutant the core's tests missed and the workspace's caught counts as caught. Prints a Markdown
// table for BENCHMARKS.md, then the mutants still missed. `node bench/mutants-report.mjs [DIR]`.
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2] ?? 'target/mutants';
const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const outcome = new Map();
// Finished runs only (scripts/mutants.sh marks them `done`): an interrupted one may not have tried the
// workspace's tests on what the core's missed. Across runs a mutant caught once counts as caught.
const runs = fs.existsSync(dir) ? fs.readdirSync(dir).filter((r) => fs.existsSync(path.join(dir, r, 'done'))) : [];
const unfinished = fs.existsSync(dir) ? fs.readdirSync(dir).filter((r) => !runs.includes(r)) : [];
const rank = { caught: 3, timeout: 2, unviable: 1, missed: 0 };
for (const run of runs) {
  const out = (phase, kind) => read(path.join(dir, run, phase, 'mutants.out', `${kind}.txt`));
  for (const kind of ['caught', 'missed', 'unviable', 'timeout']) {
    for (const name of out('core', kind)) {
      if (!outcome.has(name) || rank[kind] > rank[outcome.get(name)]) outcome.set(name, kind);
    }
  }
  for (const kind of ['caught', 'timeout']) {
    for (const name of out('workspace', kind)) if (outcome.get(name) === 'missed') outcome.set(name, kind);
  }
}

/** `protocol/` for a file in a folder of core/src, else the file. */
const moduleOf = (name) => {
  const file = name.split(':')[0].replace(/^core\/src\//, '');
  return file.includes('/') ? `${file.split('/')[0]}/` : file;
};
const modules = new Map();
for (const [name, kind] of outcome) {
  const m = modules.get(moduleOf(name)) ?? { caught: 0, missed: 0, unviable: 0, timeout: 0 };
  m[kind] += 1;
  modules.set(moduleOf(name), m);
}
const score = (m) => {
  const viable = m.caught + m.missed + m.timeout;
  return viable ? `${((100 * (m.caught + m.timeout)) / viable).toFixed(1)} %` : '—';
};
const total = { caught: 0, missed: 0, unviable: 0, timeout: 0 };
const rows = [...modules].sort(([a], [b]) => a.localeCompare(b)).map(([name, m]) => {
  for (const k of Object.keys(total)) total[k] += m[k];
  return `| \`${name}\` | ${m.caught} | ${m.missed} | ${m.unviable} | ${m.timeout} | ${score(m)} |`;
});
console.log(`${outcome.size} mutants of outbox-core from ${runs.length} finished run(s) of scripts/mutants.sh (${runs.join(', ')})${unfinished.length ? `; not counted, unfinished: ${unfinished.join(', ')}` : ''}.

| module | caught | missed | unviable | timeout | caught of viable |
|---|---|---|---|---|---|
${rows.join('\n')}
| **all** | ${total.caught} | ${total.missed} | ${total.unviable} | ${total.timeout} | ${score(total)} |
`);
const missed = [...outcome].filter(([, kind]) => kind === 'missed').map(([name]) => name).sort();
if (missed.length) console.log(`Missed (${missed.length}):\n${missed.map((n) => `- ${n}`).join('\n')}`);
