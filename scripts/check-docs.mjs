// The guides cannot drift from the tree or the CLI: every relative link in README.md and docs/*.md names a file
// that exists (and, for a Markdown file, a heading its #fragment names), and every line of a ```sh block that
// starts with `experiments` parses with the release CLI (EXPERIMENTS_PARSE_ONLY: it stops before doing
// anything). It first shows that it catches each fault, on guides written wrong on purpose.
// `node scripts/check-docs.mjs` after `cargo build --release --bin experiments`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'target/release/experiments');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading) => heading.trim().toLowerCase()
  .replace(/[`*_[\]]/g, '').replace(/\]\([^)]*\)/g, '')
  .replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s/g, '-');

function anchors(file) {
  const seen = new Map();
  const out = new Set();
  for (const [, text] of fs.readFileSync(file, 'utf8').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Lines outside fenced blocks, and the fenced blocks with their language. */
function parse(text) {
  const prose = [];
  const blocks = [];
  let block = null;
  text.split('\n').forEach((line, i) => {
    const fence = line.match(/^\s*```(\S*)/);
    if (fence && !block) block = { lang: fence[1], lines: [], start: i + 2 };
    else if (fence && block) { blocks.push(block); block = null; }
    else if (block) block.lines.push(line);
    else prose.push([i + 1, line]);
  });
  return { prose, blocks };
}

/** The arguments of a command line, as a shell would split them (quotes, no expansion). */
function words(line) {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** Every fault in `files` (paths relative to `root`), as `file:line: what`. */
export function check(root, files, cli = CLI) {
  const faults = [];
  for (const rel of files) {
    const file = path.join(root, rel);
    const { prose, blocks } = parse(fs.readFileSync(file, 'utf8'));
    for (const [n, line] of prose) {
      const code = line.replace(/`[^`]*`/g, '');
      for (const m of code.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<img[^>]*\ssrc="([^"]+)"/g)) {
        const target = m[1] ?? m[2];
        if (/^[a-z]+:/i.test(target)) continue;
        const [name, fragment] = target.split('#');
        const to = name ? path.resolve(path.dirname(file), decodeURI(name)) : file;
        if (!fs.existsSync(to)) faults.push(`${rel}:${n}: the link ${target} names no file`);
        else if (fragment && to.endsWith('.md') && !anchors(to).has(fragment)) {
          faults.push(`${rel}:${n}: the link ${target} names no heading of ${path.relative(root, to)}`);
        }
      }
    }
    for (const block of blocks.filter((b) => b.lang === 'sh')) {
      block.lines.forEach((line, k) => {
        const args = words(line.replace(/\s+#.*$/, ''));
        if (args[0] !== 'experiments') return;
        const where = `${rel}:${block.start + k}`;
        const r = spawnSync(cli, args.slice(1), {
          cwd: root, env: { ...process.env, EXPERIMENTS_PARSE_ONLY: '1' }, encoding: 'utf8', timeout: 60_000,
        });
        if (r.status !== 0) {
          faults.push(`${where}: \`${line.trim()}\` does not parse: ${(r.stderr || r.error?.message || '').trim()}`);
        }
        // A file the command reads from the tree must be there (what it writes, after --save, need not).
        args.slice(1).forEach((a, i) => {
          if (args[i] !== '--save' && /\//.test(a) && /\.(json|sql)$/.test(a) && !fs.existsSync(path.join(root, a))) {
            faults.push(`${where}: \`${line.trim()}\` reads ${a}, which is not in the tree`);
          }
        });
      });
    }
  }
  return faults;
}

/** The check, shown failing on each fault it claims to catch. */
function selfTest() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-docs-'));
  fs.mkdirSync(path.join(dir, 'docs'));
  fs.writeFileSync(path.join(dir, 'docs/guide.md'), '# A guide\n\n## Its part\n');
  fs.writeFileSync(path.join(dir, 'README.md'), [
    '# Front', '[good](docs/guide.md#its-part) [gone](docs/missing.md) [no heading](docs/guide.md#nowhere)',
    '`[in code](docs/missing.md)` is not a link', '```sh', 'experiments check --flows 2',
    'experiments check --flowz 2', 'experiments replay experiments/none.json', '```', '',
  ].join('\n'));
  const faults = check(dir, ['README.md']).map((f) => f.replace(/:.*?: /, ': '));
  const want = ['docs/missing.md names no file', 'names no heading', '--flowz', 'experiments/none.json'];
  const missed = want.filter((w) => !faults.some((f) => f.includes(w)));
  const extra = faults.filter((f) => !want.some((w) => f.includes(w)));
  fs.rmSync(dir, { recursive: true });
  if (missed.length || extra.length || faults.length !== want.length) {
    throw new Error(`check-docs' self-test: missed ${JSON.stringify(missed)}, extra ${JSON.stringify(extra)}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  selfTest();
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const files = ['README.md', ...docs];
  const faults = check(ROOT, files);
  for (const f of faults) console.error(f);
  const commands = files.flatMap((f) => parse(fs.readFileSync(path.join(ROOT, f), 'utf8')).blocks)
    .filter((b) => b.lang === 'sh').flatMap((b) => b.lines).filter((l) => words(l)[0] === 'experiments').length;
  console.log(`${files.length} documents, ${commands} experiments commands: ${faults.length ? `${faults.length} faults` : 'every link resolves and every command parses'}`);
  process.exit(faults.length ? 1 : 0);
}
