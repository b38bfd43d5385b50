// The first load's size (html + js + wasm + css, gzip -9) against the ceiling in size-budget.json, and a
// module that imports nothing from `env` (an unresolved C symbol would stop the page from starting).
import fs from 'node:fs';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { ROOT } from './browser.mjs';
import { firstLoad, parts, DIST } from './sizes.mjs';

test('the first load stays under the size ceiling', () => {
  const files = firstLoad();
  expect(files.some((f) => f.file.endsWith('.wasm')) && files.some((f) => f.file.endsWith('.js')), JSON.stringify(files)).toBe(true);
  const total = files.reduce((s, f) => s + f.gzip, 0);
  const { ceiling_gzip_bytes: ceiling } = JSON.parse(fs.readFileSync(path.join(ROOT, 'size-budget.json'), 'utf8'));
  console.log(`first load: ${files.map((f) => `${f.file} ${f.gzip} B gz`).join(', ')}; total ${total} B gzip -9`);
  expect(total, `first load in bytes gzip -9, against the ceiling of ${ceiling}`).toBeLessThanOrEqual(ceiling);
});

test('the wasm module imports nothing from env', () => {
  const wasm = firstLoad().find((f) => f.file.endsWith('.wasm')).file;
  const module = new WebAssembly.Module(fs.readFileSync(path.join(DIST, wasm)));
  expect(WebAssembly.Module.imports(module).filter((i) => i.module === 'env')).toEqual([]);
});

// The release build is split (scripts/split-wasm.mjs): each part of the module takes everything it needs from
// the primary, and the primary offers all of it, under the same kind (a missing one would fail only when a
// reader first reached that part).
test('each part of the module imports only what the primary exports', () => {
  const found = parts();
  expect(found.map((p) => p.part), 'index.html names both parts of the module').toEqual(['history', 'rest']);
  const primary = new WebAssembly.Module(fs.readFileSync(path.join(DIST, firstLoad().find((f) => f.file.endsWith('.wasm')).file)));
  const offered = new Map(WebAssembly.Module.exports(primary).map((e) => [e.name, e.kind]));
  for (const part of found) {
    const wanted = WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(path.join(DIST, part.file))));
    expect(wanted.length).toBeGreaterThan(0);
    expect(wanted.filter((i) => i.module !== 'primary' || offered.get(i.name) !== i.kind)).toEqual([]);
    console.log(`${part.part} part of the module: ${part.file} ${part.gzip} B gz, ${wanted.length} imports`);
  }
});
