// Trunk post_build hook (Trunk.toml), release builds: lets the page compile its module from the <head>, as
// the bytes arrive, instead of once the document is parsed and Trunk's start-up script has run. Names the
// module in a <meta> at the top of <head>, where www/page-start.js reads it, and has the start-up script take
// the module page-start.js compiled (`window.outboxModule`, a promise of the module or, should that fail, of
// the response to fetch it again) when there is one, and say so on the page if it cannot (`outboxFailed`).
import fs from 'node:fs';
import path from 'node:path';

if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('compile-early: TRUNK_STAGING_DIR is not set (run by Trunk as a post_build hook)');
const htmlPath = path.join(dir, 'index.html');
let html = fs.readFileSync(htmlPath, 'utf8');
// Trunk's start-up script, as Trunk 0.21 writes it.
const init = /import init, \* as bindings from '[^']+\.js';\s*const wasm = await init\(\{ module_or_path: '([^']+_bg\.wasm)' \}\);/;
const m = init.exec(html);
if (!m) throw new Error('compile-early: index.html has no start-up script of the form Trunk 0.21 writes');
const [whole, wasm] = m;
// Should the module not arrive (offline, a host that lost the file), the page says so rather than staying blank
// below its header (`outboxFailed`, page-start.js).
html = html.replace(whole, whole.replace(`module_or_path: '${wasm}' });`,
  `module_or_path: window.outboxModule ?? '${wasm}' }).catch((e) => { window.outboxFailed?.(e); throw e; });`));
// Trunk's preload of the module moves to the top of <head>, before page-start.js, so the browser's own loader
// asks for the module as the document is read (and a page audit sees a request of the document's, not a
// script's); page-start.js's request, made just after with the same URL, mode and integrity, takes the
// preload's response rather than downloading the module again. The meta names the module and its integrity
// hash for that request (and split-wasm.mjs, after this, updates the hash in both).
const preloads = [...html.matchAll(/<link [^>]*>/g)].filter(([link]) => /\brel=["']?preload\b/.test(link)
  && (link.includes(`href=${wasm} `) || link.includes(`href="${wasm}"`)));
if (preloads.length !== 1) throw new Error(`compile-early: index.html preloads the module ${preloads.length} times, not once`);
const [preload] = preloads[0];
const integrity = /\bintegrity=["']?(sha384-[A-Za-z0-9+/=]+)/.exec(preload)?.[1];
if (!integrity) throw new Error('compile-early: the module\'s preload has no integrity hash');
if (!/\bcrossorigin\b/.test(preload) || !/\bas=["']?fetch\b/.test(preload)) {
  throw new Error('compile-early: the module\'s preload is not a CORS fetch, which page-start.js\'s request could not take');
}
html = html.replace(preload, '');
const charset = /<meta charset=["']?utf-8["']?>/i.exec(html);
if (!charset) throw new Error('compile-early: index.html has no <meta charset>');
const at = charset.index + charset[0].length;
html = `${html.slice(0, at)}${preload}<meta name=outbox-playground-module content="${wasm}" data-integrity="${integrity}">${html.slice(at)}`;
fs.writeFileSync(htmlPath, html);
