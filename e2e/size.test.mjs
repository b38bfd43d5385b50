// The first load's size (html + js + wasm + css, gzip -9) against the ceiling in size-budget.json, and a
// module that imports nothing from `env` (an unresolved C symbol would stop the page from starting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');

/** The files the page loads first, found in dist/index.html. */
export function firstLoad() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const names = new Set([...html.matchAll(/(?:href|src)="\/?([^"#?]+\.(?:js|wasm|css))"/g)].map((m) => m[1]));
  const files = ['index.html', ...names];
  return files.map((f) => {
    const data = fs.readFileSync(path.join(DIST, f));
    return {
      file: f, raw: data.length,
      gzip: zlib.gzipSync(data, { level: 9 }).length,
      brotli: zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  });
}

test('the first load stays under the size ceiling', () => {
  const files = firstLoad();
  assert.ok(files.some((f) => f.file.endsWith('.wasm')) && files.some((f) => f.file.endsWith('.js')), JSON.stringify(files));
  const total = files.reduce((s, f) => s + f.gzip, 0);
  const { ceiling_gzip_bytes: ceiling } = JSON.parse(fs.readFileSync(path.join(ROOT, 'size-budget.json'), 'utf8'));
  console.log(`first load: ${files.map((f) => `${f.file} ${f.gzip} B gz`).join(', ')}; total ${total} B gzip -9`);
  assert.ok(total <= ceiling, `first load is ${total} bytes gzip -9, over the ceiling of ${ceiling}`);
});

test('the wasm module imports nothing from env', () => {
  const wasm = firstLoad().find((f) => f.file.endsWith('.wasm')).file;
  const module = new WebAssembly.Module(fs.readFileSync(path.join(DIST, wasm)));
  assert.deepEqual(WebAssembly.Module.imports(module).filter((i) => i.module === 'env'), []);
});
