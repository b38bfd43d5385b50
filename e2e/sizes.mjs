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

/** The rest of a split module (scripts/split-wasm.mjs): the file index.html names for the code start-up does
 * not run, which the page downloads once its player is drawn. `null` for a build that is not split. */
export function rest() {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const m = /<meta name=["']?outbox-playground-rest["']? content=["']?\/?(?:[^"'\s>]*\/)?([^"'\s>/]+\.wasm)/.exec(html);
  return m ? measure(m[1]) : null;
}
