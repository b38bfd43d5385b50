// Trunk post_build hook (Trunk.toml), release builds: splits the page's wasm module in two, so the first load
// carries only the code that start-up runs.
//
// 1. Profile: a copy of the module in which every function marks its first call in a memory of its own is
//    loaded in headless Chromium on the pages a reader first opens (VISITS) until the player and its panels
//    are drawn, and the player's buttons pressed. What ran, and the small functions it calls (directly or
//    through the table), stays; the other functions are the rest, which the tools below the player (the
//    experiments and their check, share, explorer, checker) wait for (`outboxSplit.whenLoaded`).
// 2. Split: the primary module (the file Trunk named, which the page preloads) keeps every function, but each
//    of the rest becomes a stub that loads the rest module if it has not been loaded yet, then calls the real
//    function through the function table. The rest module (`…_rest.wasm`, named in index.html by
//    `<meta name="outbox-playground-rest">`) imports the primary's memory, tables, globals and functions, and
//    its instantiation writes its functions into the table slots the stubs call. A function smaller than a stub
//    moves too when only moved code calls it, and the text only one part's code names goes into that part's own
//    data segments (split-text.mjs), written into the shared memory as the part is instantiated.
// 3. `www/page-start.js` (`outboxSplit`) compiles the rest module once the player is interactive, then draws
//    the tools; a stub that runs before that loads it synchronously. The checker's worker gets the compiled
//    rest module with the primary.
//
// Functions are text here (binaryen's `wasm-opt --print`, then assembled back by wasm-opt): binaryen 132 reads
// everything wasm-bindgen writes, and its printed functions are one top-level item each.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { movableText, escape } from './split-text.mjs';

const FEATURES = ['--enable-bulk-memory', '--enable-sign-ext', '--enable-mutable-globals',
  '--enable-nontrapping-float-to-int', '--enable-reference-types', '--enable-multivalue'];
// Binaryen 132 from npm (scripts/setup.sh), whatever else is on PATH (TOOLCHAIN.md: never Debian's 108).
const WASM_OPT = fileURLToPath(new URL('../node_modules/.bin/wasm-opt', import.meta.url));
/** Functions smaller than a stub stay whole in the primary when the primary calls them: a stub would save
 * nothing. */
const MIN_TEXT = 400;
/** What a function that ran calls directly, up to two calls deep, stays in the primary when it is this small
 * (in text): a branch the profile did not take, but a load might, such as a hash map's key comparison, which
 * runs only when two keys' hashes collide, and hashes are seeded anew on each load (1 load in 12 reached one
 * before this rule). Measured: this rule kept 209 more functions in the primary (first load +3.4 KB gzip),
 * the one below for the table 132 more (+2.0 KB); no load of 25 has needed the rest at start-up since. */
const CALLEE_TEXT = 1000;
/** The import the stubs call: `outboxSplit.loadRest` (src/ui/split.rs). */
const LOAD_IMPORT = /"__wbg_loadRest_[0-9a-f]+"/;

/** A module's text as its top-level items (each a string of whole lines), after the `(module` line. */
export function parse(text) {
  const lines = text.split('\n');
  if (lines[0] !== '(module') throw new Error('split-wasm: not a module in wasm-opt --print form');
  const items = [];
  for (const line of lines.slice(1)) {
    if (line === ')' || line === '') continue;
    if (line.startsWith(' (') || line.startsWith(' ;;')) items.push([line]);
    else if (line.startsWith('  ') || line.startsWith(' )')) items[items.length - 1].push(line);
    else throw new Error(`split-wasm: unexpected line ${line.slice(0, 60)}`);
  }
  return items.map((l) => l.join('\n'));
}

/** A function's name and signature, from its header line (or an import's line). */
function header(item) {
  const first = item.split('\n', 1)[0];
  const m = /\(func (\$[^\s)]+)/.exec(first);
  if (!m) throw new Error(`split-wasm: unexpected function header ${first.slice(0, 80)}`);
  const params = [...first.matchAll(/\(param (?:\$\S+ )?([^)]+)\)/g)].flatMap((p) => p[1].trim().split(/\s+/));
  const results = [...first.matchAll(/\(result ([^)]+)\)/g)].flatMap((r) => r[1].trim().split(/\s+/));
  if (/\(type /.test(first.slice(m.index))) throw new Error(`split-wasm: a function names its type: ${first.slice(0, 80)}`);
  return { name: m[1], params, results };
}

export function wat(file) {
  return execFileSync(WASM_OPT, [file, '--print', ...FEATURES], { maxBuffer: 1 << 30 }).toString();
}

function assemble(text, out, extra = []) {
  const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'split-')), 'm.wat');
  fs.writeFileSync(tmp, text);
  try {
    execFileSync(WASM_OPT, [tmp, ...FEATURES, ...extra, '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    throw new Error(`split-wasm: wasm-opt could not assemble ${tmp} (kept for a look): ${e.stderr}`);
  }
  fs.rmSync(path.dirname(tmp), { recursive: true });
}

/** The module with every function marking its first call: byte i of the exported memory `__profile`. */
export function instrument(items, out) {
  const count = items.filter((it) => it.startsWith(' (func ')).length;
  // One byte a function, in one 64 KiB page.
  if (count > 65536) throw new Error(`split-wasm: ${count} functions do not fit the profile's one page`);
  let i = 0;
  const marked = items.map((item) => {
    if (item.startsWith(' (memory ')) return `${item}\n (memory $__profile 1)\n (export "__profile" (memory $__profile))`;
    if (!item.startsWith(' (func ')) return item;
    const lines = item.split('\n');
    let at = 1;
    while (at < lines.length && lines[at].startsWith('  (local ')) at++;
    const mark = `  (i32.store8 $__profile (i32.const ${i++}) (i32.const 1))`;
    if (lines.length === 1) return `${lines[0].slice(0, -1)}\n${mark}\n )`;
    lines.splice(at, 0, mark);
    return lines.join('\n');
  });
  assemble(`(module\n${marked.join('\n')}\n)\n`, out, ['--enable-multimemory']);
  return i;
}

/** The files the module is split into besides the primary, in the order of their table slots and of the
 * profiles that fill them: `history`, what replaying a preset's or a link's history runs beyond the player
 * (an embed of an experiment needs it as it starts); `rest`, everything else. */
export const PARTS = ['history', 'rest'];

/** Splits the module: `profiles[p][i]` says whether function i ran in profile p (0: the player's, what the
 * primary keeps; 1: a history's, what `history` gets). Returns the primary's text and each part's. */
export function split(items, profiles, id) {
  const funcs = items.filter((it) => it.startsWith(' (func '));
  const heads = funcs.map(header);
  const index = new Map(heads.map((h, i) => [h.name, i]));
  const load = items.find((it) => it.startsWith(' (import ') && LOAD_IMPORT.test(it));
  if (!load) throw new Error('split-wasm: the module imports no outboxSplit.loadRest (src/ui/split.rs)');
  const loadName = /\(func (\$[^\s)]+)/.exec(load)[1];
  if (!/\(param i32\)\)+$/.test(load)) throw new Error('split-wasm: outboxSplit.loadRest takes no part number (src/ui/split.rs)');
  const table = items.find((it) => /^ \(table \$0 \d+ \d+ funcref\)$/.test(it));
  if (!table) throw new Error('split-wasm: no fixed-size function table $0');
  const base = Number(/\$0 (\d+)/.exec(table)[1]);

  // What ran, and the small functions it calls directly, two calls deep.
  const withCallees = (seed) => {
    const set = new Set(seed);
    for (let depth = 0; depth < 2; depth++) {
      for (const i of [...set]) {
        for (const m of funcs[i].matchAll(/\((?:call|return_call) (\$[^\s)]+)/g)) {
          const callee = index.get(m[1]);
          if (callee !== undefined && funcs[callee].length <= CALLEE_TEXT) set.add(callee);
        }
      }
    }
    return set;
  };
  const ran = (p) => [...funcs.keys()].filter((i) => profiles[p][i]);
  // The same for small functions called through the table (closures, trait objects): hashbrown's probe takes
  // its key comparison as a `&dyn FnMut`.
  const tabled = [];
  for (const elem of items.filter((it) => it.startsWith(' (elem '))) {
    for (const m of elem.slice(elem.indexOf(' func ') + 1).matchAll(/\$[^\s)]+/g)) {
      const i = index.get(m[0]);
      if (i !== undefined && funcs[i].length <= CALLEE_TEXT) tabled.push(i);
    }
  }
  const keep = withCallees([...ran(0), ...tabled]);
  const history = withCallees(ran(1));
  // Each moved function's part; the primary keeps the rest of them, and those smaller than a stub.
  const partOf = new Map();
  for (const i of funcs.keys()) {
    if (!keep.has(i) && funcs[i].length >= MIN_TEXT) partOf.set(i, history.has(i) ? 0 : 1);
  }
  // A function smaller than a stub moves too when nothing that stays in the primary names it (only moved code
  // calls it): it then leaves no stub, and nothing at all, in the first load. Found as a fixpoint: each one
  // that must stay may keep the small functions it calls.
  const small = [...funcs.keys()].filter((i) => !keep.has(i) && funcs[i].length < MIN_TEXT);
  small.forEach((i) => partOf.set(i, history.has(i) ? 0 : 1));
  const pinned = new Set();
  for (const it of items) {
    if (!it.startsWith(' (func ')) for (const m of it.matchAll(/\$[^\s)]+/g)) pinned.add(m[0]);
  }
  for (let changed = true; changed;) {
    const named = new Set(pinned);
    funcs.forEach((text, i) => {
      if (!partOf.has(i)) for (const m of text.matchAll(/\((?:call|return_call|ref\.func) (\$[^\s)]+)/g)) named.add(m[1]);
    });
    changed = false;
    for (const i of small) {
      if (partOf.has(i) && named.has(heads[i].name)) {
        partOf.delete(i);
        changed = true;
      }
    }
  }
  const moved = PARTS.map((_, p) => [...partOf].filter(([, q]) => q === p).map(([i]) => i));
  const names = moved.map((list) => new Set(list.map((i) => heads[i].name)));
  const slot = new Map(moved.flat().map((i, k) => [heads[i].name, base + k]));
  const size = base + slot.size;

  // What each part calls or takes the address of outside itself: the primary's functions (a stub, for a
  // function of another part), and imports alike.
  const imports = new Map();
  for (const it of items) {
    if (/^ \(import "[^"]+" "[^"]+" \(func /.test(it)) {
      const h = header(it);
      imports.set(h.name, h);
    }
  }
  const neededBy = moved.map((list, p) => {
    const needed = new Set();
    for (const i of list) {
      for (const m of funcs[i].matchAll(/\((?:call|return_call|ref\.func) (\$[^\s)]+)/g)) {
        if (!names[p].has(m[1])) needed.add(m[1]);
      }
    }
    return needed;
  });
  const needed = [...new Set(neededBy.flatMap((n) => [...n]))];
  const exportOf = new Map(needed.map((n, i) => [n, `~${i.toString(36)}`]));
  const signature = (name) => {
    const h = index.has(name) ? heads[index.get(name)] : imports.get(name);
    if (!h) throw new Error(`split-wasm: the rest calls ${name}, which is neither a function nor an import`);
    return h;
  };
  const globals = items.filter((it) => it.startsWith(' (global '));

  const args = (params) => params.map((_, i) => ` (local.get $${i})`).join('');
  // Parameters named by index (`$0`…), as binaryen prints them, where a function defines them.
  const sig = (h, named = false) => (named ? h.params.map((t, i) => ` (param $${i} ${t})`).join('') : h.params.length ? ` (param ${h.params.join(' ')})` : '')
    + (h.results.length ? ` (result ${h.results.join(' ')})` : '');
  const flag = (p) => `$__${PARTS[p]}_loaded`;
  let f = 0;
  const primary = items.map((it) => {
    if (it === table) return ` (table $0 ${size} ${size} funcref)`;
    if (!it.startsWith(' (func ')) return it;
    const i = f++;
    const h = heads[i];
    if (!partOf.has(i)) return it;
    const p = partOf.get(i);
    return ` (func ${h.name}${sig(h, true)}\n  (call $__ensure_${p})\n`
      + `  (call_indirect $0${sig(h)}${args(h.params)} (i32.const ${slot.get(h.name)}))\n )`;
  });
  // The primary's exports for the parts: short names (there are hundreds) that no Rust or wasm-bindgen export
  // can take (`~` and `^` are no identifier characters).
  const exports = [
    ...PARTS.flatMap((name, p) => [` (global ${flag(p)} (mut i32) (i32.const 0))`,
      ` (export "__${name}_loaded" (global ${flag(p)}))`]),
    // Each stub calls its part's check rather than holding it: three bytes a stub instead of a dozen.
    ...PARTS.map((_, p) => ` (func $__ensure_${p}\n  (if (i32.eqz (global.get ${flag(p)})) (then (call ${loadName} (i32.const ${p}))))\n )`),
    // Named for this build (`id`): a part from another build cannot link against this primary, whose slots it
    // would fill with functions of its own build.
    ` (export "__rest_table_${id}" (table $0))`,
    ...globals.map((g, i) => ` (export "^${i}" (global ${/^ \(global (\$\S+)/.exec(g)[1]}))`),
    ...needed.map((n) => ` (export "${exportOf.get(n)}" (func ${n}))`),
  ];

  const memory = items.find((it) => it.startsWith(' (memory '));
  const externrefs = items.find((it) => /^ \(table \$1 \d+ externref\)$/.test(it));
  const parts = moved.map((list, p) => [
    ...items.filter((it) => it.startsWith(' (type ')),
    ` (import "primary" "memory" (memory $0 ${/^ \(memory \$\S+ (.*)\)$/.exec(memory)[1]}))`,
    ` (import "primary" "__rest_table_${id}" (table $0 ${size} ${size} funcref))`,
    ...(externrefs ? [` (import "primary" "__wbindgen_externrefs" (table $1 ${/\$1 (\d+)/.exec(externrefs)[1]} externref))`] : []),
    ...globals.map((g, i) => {
      const m = /^ \(global (\$\S+) (\(mut \S+\)|\S+) /.exec(g);
      if (!m) throw new Error(`split-wasm: unexpected global ${g.slice(0, 80)}`);
      return ` (import "primary" "^${i}" (global ${m[1]} ${m[2]}))`;
    }),
    ...[...neededBy[p]].map((n) => ` (import "primary" "${exportOf.get(n)}" (func ${n}${sig(signature(n))}))`),
    ...(list.length ? [` (elem (table $0) (i32.const ${slot.get(heads[list[0]].name)}) func ${list.map((i) => heads[i].name).join(' ')})`] : []),
    ...list.map((i) => funcs[i]),
  ]);
  // The data only moved code reads goes with its part (`movableText`): zeroed in the primary, which -Oz then
  // packs away, and written back by the part's own segments as it is instantiated.
  const text = movableText(items, funcs, partOf);
  let blanked = 0;
  for (const [k, { at, bytes }] of text.segments) {
    const runs = text.runs.filter((r) => r.at >= at && r.at < at + bytes.length);
    for (const r of runs) {
      bytes.fill(0, r.at - at, r.at - at + r.bytes.length);
      parts[r.part].push(` (data (i32.const ${r.at}) "${escape(r.bytes)}")`);
      blanked += r.bytes.length;
    }
    if (runs.length) primary[k] = ` (data ${text.names[k]}(i32.const ${at}) "${escape(bytes)}")`;
  }
  // The stubs read the flags: they go with the globals, before the functions.
  const firstFunc = primary.findIndex((it) => it.startsWith(' (func '));
  primary.splice(firstFunc, 0, ...exports);
  return {
    primary: `(module\n${primary.join('\n')}\n)\n`,
    parts: parts.map((part) => `(module\n${part.join('\n')}\n)\n`),
    counts: { functions: funcs.length, moved: moved.map((l) => l.length), imported: needed.length, text: blanked,
      map: { base, slots: moved.flat() } },
  };
}

const sri = (bytes) => `sha384-${crypto.createHash('sha384').update(bytes).digest('base64')}`;

/** The public URL prefix Trunk gave the module's address in index.html (`/`, or `/blog/outbox/`…). */
function prefixOf(html, name) {
  const link = new RegExp(`(?:href|content)=["']?([^"'\\s>]*)${name.replace(/[.]/g, '\\.')}`).exec(html);
  if (!link) throw new Error('split-wasm: index.html does not name the module');
  return link[1];
}

/** Runs the hook on a Trunk staging directory. `profileWith(items, name)` returns the profiles (one per kind
 * of visit, `split`'s): byte i is 1 if function i ran. */
export async function splitStaged(dir, profileWith) {
  const htmlPath = path.join(dir, 'index.html');
  let html = fs.readFileSync(htmlPath, 'utf8');
  const name = fs.readdirSync(dir).find((f) => f.endsWith('_bg.wasm'));
  if (!name) throw new Error(`split-wasm: no *_bg.wasm in ${dir}`);
  const file = path.join(dir, name);
  const before = fs.readFileSync(file);
  const items = parse(wat(file));

  const profiles = await profileWith(items, name);
  // For working on the split itself: the module and its profiles, to split again without a build.
  if (process.env.OUTBOX_SPLIT_KEEP) {
    fs.writeFileSync(`${process.env.OUTBOX_SPLIT_KEEP}.wasm`, before);
    fs.writeFileSync(`${process.env.OUTBOX_SPLIT_KEEP}.json`, JSON.stringify(profiles.map((p) => Array.from(p))));
  }
  const funcs = items.filter((it) => it.startsWith(' (func ')).length;
  const ran = profiles.map((profile) => Array.from({ length: funcs }, (_, i) => profile[i] === 1));
  const id = crypto.createHash('sha256').update(before).update(ran.map((r) => r.map(Number).join('')).join('/'))
    .digest('hex').slice(0, 16);
  const { primary, parts, counts } = split(items, ran, id);
  // For a look at what went where (function indices of the module before the split, per part's slot order).
  if (process.env.OUTBOX_SPLIT_MAP) fs.writeFileSync(process.env.OUTBOX_SPLIT_MAP, JSON.stringify(counts.map));

  // Optimised again as parts (-Oz, as Trunk's wasm-opt did the whole): the stubs and the exports the parts need
  // are new code, and each part loses what only the others used. Measured: the first load 1.2 KB gzip smaller.
  assemble(primary, file, ['-Oz']);
  const oldHash = sri(before);
  if (!html.includes(oldHash)) throw new Error('split-wasm: index.html does not name the module by its hash');
  html = html.replaceAll(oldHash, sri(fs.readFileSync(file)));
  const files = PARTS.map((part, p) => {
    const partName = name.replace(/_bg\.wasm$/, `-${id}_${part}.wasm`);
    assemble(parts[p], path.join(dir, partName), ['-Oz']);
    // With the same public URL prefix as the module's own address.
    html = html.replace('</head>', `<meta name=outbox-playground-${part} content=${prefixOf(html, name)}${partName}></head>`);
    return { name: partName, bytes: fs.statSync(path.join(dir, partName)).size };
  });
  fs.writeFileSync(htmlPath, html);
  return { ...counts, primary: fs.statSync(file).size, files, before: before.length };
}

/** What a reader does with the player before the tools below it have arrived: its buttons, an arrival order,
 * a crash armed and recovered from, time travel, and the diagram scrolled, pointed at, clicked and used with
 * the keyboard. Each step waits for the page to be idle. */
async function usePlayer(page, idle) {
  const act = async (f) => { await f(); await idle(); };
  for (const id of ['order-312', 'deliver-next', 'apply-A', 'back', 'forward', 'deliver-all', 'process-all']) {
    await act(() => page.getByTestId(id).click());
  }
  const rows = page.locator('[data-testid=diagram] g[data-step]');
  if (await rows.first().isVisible()) {
    await act(() => page.locator('.diagram-scroll').hover());
    await act(() => page.mouse.wheel(0, 120));
    await act(() => rows.first().hover());
    await act(() => rows.first().click());
    await act(() => rows.last().focus());
    await act(() => page.keyboard.press('Enter'));
    await act(() => page.keyboard.press('Tab'));
  }
  // On a phone the settings fold behind a button: open them, as the reader does.
  const toggle = page.getByTestId('settings-toggle');
  if (await toggle.isVisible()) await act(() => toggle.click());
  await act(() => page.getByTestId('reset').click());
  await act(() => page.getByTestId('order-312').click());
  const boundary = await page.getByTestId('crash-select').locator('option').nth(3).getAttribute('value');
  await act(() => page.getByTestId('crash-select').selectOption(boundary));
  for (const id of ['deliver-all', 'process-all']) await act(() => page.getByTestId(id).click());
  if (await page.getByTestId('restart').isEnabled()) await act(() => page.getByTestId('restart').click());
  await act(() => page.getByTestId('reset').click());
}

/** The addresses a reader's first visits start from, and what each profiles (`split`'s profiles):
 * 0, the player: the playground in each language, on a phone (the diagram a tab) and wider, embedded whole or
 * a few panels or only a tool, then (`use`) the player as `usePlayer` uses it; and an address that starts from a history (a
 * preset, a link) up to where it waits for that history's code (`waits`: `outboxSplit.beforeStart`).
 * 1, a history: the same addresses drawn, with that code there: each of the twelve experiments as an article
 * embeds it (violations explained, crashes, resends), a share link (`link`: one made in the page first), and a
 * link that cannot be read. */
const VISITS = [
  { search: '', lang: 'en', use: true },
  { search: '', lang: 'zh-Hans', use: true, viewport: { width: 360, height: 740 }, tabs: true },
  { search: '', lang: 'en' },
  { search: '?embed', lang: 'zh-Hans' },
  { search: '?embed&view=crash,consumer,diagram', lang: 'en' },
  // Only a tool (drawn once the parts are in): what the page draws around it first.
  { search: '?view=explorer', lang: 'en' },
  { search: '?embed&view=checker', lang: 'zh-Hans' },
  { search: '?embed&view=diagram,log', lang: 'en' },
  { search: '?embed&preset=3&view=wire,consumer', lang: 'en', waits: true },
  { search: '?preset=5', lang: 'zh-Hans', waits: true },
  { search: '#t=AAAA', lang: 'en', waits: true },
  ...Array.from({ length: 12 }, (_, i) => ({ profile: 1, search: `?embed&preset=${i + 1}`, lang: i % 2 ? 'zh-Hans' : 'en' })),
  { profile: 1, search: '', lang: 'en', link: true },
  { profile: 1, search: '?preset=5', lang: 'zh-Hans' },
  { profile: 1, search: '#t=AAAA', lang: 'en' },
];

/** Loads the instrumented module in headless Chromium on each of VISITS; returns which functions ran, one
 * profile per kind of visit. */
export async function profileInChromium(items, name, dir) {
  const { serve } = await import('../e2e/server.mjs');
  const { launch } = await import('../e2e/browser.mjs');
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'split-profile-'));
  fs.cpSync(dir, copy, { recursive: true });
  const count = instrument(items, path.join(copy, name));
  // The instrumented module is not the one index.html names by its hash.
  const html = path.join(copy, 'index.html');
  fs.writeFileSync(html, fs.readFileSync(html, 'utf8').replace(/ integrity=["']?sha384-[A-Za-z0-9+/=]+["']?/g, ''));
  const server = await serve(copy, { prefix: prefixOf(fs.readFileSync(html, 'utf8'), name) });
  const browser = await launch();
  const ran = [new Uint8Array(count), new Uint8Array(count)];
  try {
    // A session's share link, made as a reader makes one (its clicks are not part of any profile).
    const maker = await browser.newPage();
    await maker.goto(server.url);
    for (const id of ['order-312', 'deliver-all', 'process-all', 'copy-link']) await maker.getByTestId(id).click();
    const fragment = new URL(await maker.getByTestId('share-link').inputValue()).hash;
    if (!/^#t=/.test(fragment)) throw new Error(`split-wasm: no share link to profile (${fragment})`);
    await maker.close();
    for (const visit of VISITS) {
      const context = await browser.newContext({ viewport: visit.viewport ?? { width: 1280, height: 800 } });
      await context.addInitScript(([lang, history]) => {
        localStorage.setItem('lang', lang);
        addEventListener('TrunkApplicationStarted', (e) => { window.__exports = e.detail.wasm; });
        // The rest never arrives here: what waits for it (the tools below the player, the twelve experiments'
        // check; a history, unless this profile is the history's) does not run, and everything else the page
        // does meanwhile does.
        let split;
        Object.defineProperty(window, 'outboxSplit', {
          configurable: true,
          get: () => split,
          set: (loader) => {
            const wait = () => { window.__waiting = true; };
            split = { ...loader, whenLoaded: wait, beforeStart: (f) => (loader.early && !history ? wait() : f()) };
          },
        });
      }, [visit.lang, visit.profile === 1]);
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${server.url}${visit.search}${visit.link ? fragment : ''}`);
      // Start-up is over when the page has drawn its player and its panels, and then the browser finds the
      // main thread idle: every slice of start-up up to the tools has run.
      const idle = async () => {
        for (let i = 0; i < 3; i++) await page.evaluate(() => new Promise((r) => requestIdleCallback(r, { timeout: 1000 })));
      };
      if (visit.waits) await page.waitForFunction(() => window.__waiting, null, { timeout: 60_000 });
      else await page.waitForFunction(() => performance.getEntriesByName('playground-drawn').length > 0, null, { timeout: 60_000 });
      await idle();
      if (await page.getByTestId('experiments-summary').count()) throw new Error('split-wasm: the tools were drawn before the rest arrived');
      if (visit.waits && await page.getByTestId('lane').count()) throw new Error(`split-wasm: ${visit.search} drew its history before the rest arrived`);
      if (visit.tabs) {
        for (const id of ['tab-diagram', 'tab-tables']) {
          await page.getByTestId(id).click();
          await idle();
        }
      }
      if (visit.use) await usePlayer(page, idle);
      if (errors.length) throw new Error(`split-wasm: the profiled page failed: ${errors.join('; ')}`);
      const marks = await page.evaluate((n) => Array.from(new Uint8Array(window.__exports.__profile.buffer, 0, n)), count);
      marks.forEach((m, i) => { ran[visit.profile ?? 0][i] |= m; });
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(copy, { recursive: true });
  }
  return ran;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // OUTBOX_SPLIT=0 builds the module whole, to measure the split against by hand (BENCHMARKS.md's side-by-side
  // figures); the end-to-end tests expect the split build.
  if (process.env.TRUNK_PROFILE !== 'release' || process.env.OUTBOX_SPLIT === '0') process.exit(0);
  const dir = process.env.TRUNK_STAGING_DIR;
  if (!dir) throw new Error('split-wasm: TRUNK_STAGING_DIR is not set (run by Trunk as a post_build hook)');
  const r = await splitStaged(dir, (items, name) => profileInChromium(items, name, dir));
  console.log(`split-wasm: ${r.moved.join(' + ')} of ${r.functions} functions and ${r.text} bytes of text moved out: ${r.before} → ${r.primary} + `
    + r.files.map((f) => `${f.name} ${f.bytes}`).join(' + ') + ' bytes');
}
