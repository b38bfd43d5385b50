// The first load's files (html + js + wasm + css) and their sizes raw, gzip -9 and brotli 11.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** The files the page loads first, found in dist/index.html. */
export function firstLoad() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  // Attribute values quoted or not (Trunk's release build minifies the HTML and drops the quotes).
  const names = new Set([...html.matchAll(/(?:href|src)=["']?\/?([^"'#?\s>]+\.(?:js|wasm|css))/g)].map((m) => m[1]));
  // The module, which the head's script asks for (scripts/compile-early.mjs names it in a meta, release builds).
  const module = named(html, 'module');
  if (module) names.add(module);
  return ['index.html', ...names].map(measure);
}

/** A file of dist/: its name, and its size raw, gzip -9 and brotli 11. */
function measure(file) {
  const data = fs.readFileSync(path.join(DIST, file));
  return {
    file, raw: data.length,
    gzip: zlib.gzipSync(data, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

/** The parts of a split module (scripts/split-wasm.mjs) that index.html names, `history` then `rest`: the code
 * the page does not run until its player is drawn, which it downloads once the player is interactive (or, for
 * an address that starts from a history, `history` beside the first load). Empty for a build that is not
 * split. */
export function parts() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  return ['history', 'rest'].map((name) => named(html, name))
    .filter(Boolean).map((file) => ({ ...measure(file), part: /_(\w+)\.wasm$/.exec(file)[1] }));
}

/** The .wasm file `<meta name="outbox-playground-NAME">` names in index.html (its file name), or undefined. */
function named(html, name) {
  return new RegExp(`<meta name=["']?outbox-playground-${name}["']? content=["']?\\/?(?:[^"'\\s>]*\\/)?([^"'\\s>/]+\\.wasm)`)
    .exec(html)?.[1];
}
