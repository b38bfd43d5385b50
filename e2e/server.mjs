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
 * 11) to a browser that accepts it, as a blog host serves static files: every file is compressed before the
 * server starts listening, so no timed request waits for it.
 */
export function serve(root, { prefix = '/', headers = {}, onRequest = () => {}, compress = false } = {}) {
  const brotli = new Map();
  const compressible = (file) => !file.endsWith('.png');
  if (compress) {
    const walk = (dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (compressible(file)) {
          brotli.set(file, zlib.brotliCompressSync(fs.readFileSync(file),
            { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
        }
      }
    };
    walk(path.resolve(root));
  }
  // "br" among the encodings the browser accepts, and not refused with q=0.
  const acceptsBrotli = (header = '') => header.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    return name.trim() === 'br' && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
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
      const vary = compress ? { vary: 'accept-encoding' } : {};
      const packed = brotli.get(path.resolve(file));
      if (packed && acceptsBrotli(req.headers['accept-encoding'])) {
        res.writeHead(200, { 'content-type': type, 'content-encoding': 'br', ...vary, ...headers });
        res.end(packed);
        return;
      }
      res.writeHead(200, { 'content-type': type, ...vary, ...headers });
      res.end(data);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((r) => {
        // A browser still open keeps its idle connections alive for minutes: closing is not waiting on them.
        server.close(r);
        server.closeAllConnections();
      }) });
    });
  });
}
