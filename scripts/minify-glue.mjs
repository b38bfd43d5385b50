// Trunk post_build hook (Trunk.toml): minifies wasm-bindgen's JS glue in release builds, which Trunk's own
// minifier leaves as it is (it fails on the glue's `export default`), and writes the new file's
// Subresource Integrity hash into index.html, where Trunk put the old one. Every script the page names by
// its hash goes through it. (`page-start.js` is inlined into index.html, and Trunk's HTML minifier minifies it.)
// Exported names stay as they are: the page's loader imports `init` and every binding by name.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { minify } from 'terser';

if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('minify-glue: TRUNK_STAGING_DIR is not set (run by Trunk as a post_build hook)');
const sri = (bytes) => `sha384-${crypto.createHash('sha384').update(bytes).digest('base64')}`;

for (const html of fs.readdirSync(dir).filter((f) => f.endsWith('.html'))) {
  const htmlPath = path.join(dir, html);
  let page = fs.readFileSync(htmlPath, 'utf8');
  for (const js of fs.readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const jsPath = path.join(dir, js);
    const before = fs.readFileSync(jsPath);
    const oldHash = sri(before);
    if (!page.includes(oldHash)) continue; // not this page's glue, or already done
    const out = await minify(before.toString('utf8'), { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true });
    if (!out.code) throw new Error(`minify-glue: terser produced nothing for ${js}`);
    fs.writeFileSync(jsPath, out.code);
    page = page.replaceAll(oldHash, sri(Buffer.from(out.code)));
    console.log(`minify-glue: ${js} ${before.length} → ${out.code.length} bytes`);
  }
  fs.writeFileSync(htmlPath, page);
}
