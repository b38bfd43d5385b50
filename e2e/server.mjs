// A static file server for the built playground (dist/), on loopback only, for the end-to-end tests.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml',
};

/**
 * Serves `root` under `prefix` (e.g. "/" or "/blog/playground/"). Resolves to { url, close }. `onRequest` sees
 * every request's path (what the browser did not take from its cache). `compress: true` serves brotli (quality
 * 11, made once per file) to a browser that accepts it, as a blog host serves static files.
 */
export function serve(root, { prefix = '/', headers = {}, onRequest = () => {}, compress = false } = {}) {
  const brotli = new Map();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    onRequest(url.pathname);
    if (!url.pathname.startsWith(prefix)) { res.writeHead(404); res.end('not found'); return; }
    let rel = decodeURIComponent(url.pathname.slice(prefix.length)) || 'index.html';
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(root, rel);
    if (!file.startsWith(path.resolve(root))) { res.writeHead(403); res.end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end('not found'); return; }
      const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
      if (compress && type !== 'image/png' && /\bbr\b/.test(req.headers['accept-encoding'] ?? '')) {
        if (!brotli.has(file)) {
          brotli.set(file, zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
        }
        res.writeHead(200, { 'content-type': type, 'content-encoding': 'br', vary: 'accept-encoding', ...headers });
        res.end(brotli.get(file));
        return;
      }
      res.writeHead(200, { 'content-type': type, ...headers });
      res.end(data);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
