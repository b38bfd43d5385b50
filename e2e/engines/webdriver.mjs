// One small driver layer over the three engines a reader uses: WebDriver classic (the only protocol WebKitGTK's
// driver speaks, and one that chromedriver and geckodriver speak too), over Node's fetch. Each engine is its
// stock Debian browser driven by its own driver; nothing downloads a browser (TOOLCHAIN.md).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const GECKODRIVER = process.env.GECKODRIVER ?? path.join(os.homedir(), '.cargo/bin/geckodriver');
const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** What starts each engine: its driver's command line and the capabilities of a new session. */
export const ENGINES = {
  chromium: {
    driver: (port) => ['chromedriver', [`--port=${port}`]],
    capabilities: {
      browserName: 'chrome',
      'goog:chromeOptions': {
        binary: process.env.CHROMIUM ?? '/usr/bin/chromium',
        args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
          '--disable-component-update', '--disable-sync'],
      },
    },
  },
  firefox: {
    driver: (port) => [GECKODRIVER, [`--port=${port}`]],
    capabilities: {
      browserName: 'firefox',
      'moz:firefoxOptions': { binary: '/usr/bin/firefox-esr', args: ['-headless'] },
    },
  },
  // WebKitGTK has no headless mode: its MiniBrowser runs on a virtual display (xvfb-run picks a free one).
  webkit: {
    driver: (port) => ['xvfb-run', ['-a', '-s', '-screen 0 1600x1200x24', 'WebKitWebDriver', `--port=${port}`]],
    capabilities: {
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    },
  },
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function request(base, method, route, body) {
  const response = await fetch(base + route, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const { value } = await response.json();
  if (!response.ok) {
    const error = new Error(`${method} ${route}: ${value?.error}: ${value?.message}`);
    error.webdriver = value?.error;
    throw error;
  }
  return value;
}

/** Starts `engine`'s driver and one browser session in it; `session.quit()` ends both. `env` adds to the driver's
 * environment, which the browser inherits (the benchmarks use it to switch an engine's JIT tier off). */
export async function launchEngine(engine, { width = 1280, height = 900, env = {} } = {}) {
  const { driver, capabilities } = ENGINES[engine];
  const port = await freePort();
  const [command, args] = driver(port);
  const log = [];
  // Detached, so quitting kills the whole group (xvfb-run's Xvfb too).
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  const kill = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone already */ } };
  try {
    // The driver listens once it has started: poll its status, not a fixed wait.
    for (let ready = false; !ready;) {
      if (child.exitCode !== null) throw new Error(`${command} exited: ${log.join('')}`);
      ready = await request(base, 'GET', '/status').then((s) => s.ready !== false, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    const { sessionId } = await request(base, 'POST', '/session', { capabilities: { alwaysMatch: capabilities } });
    const session = new Session(engine, `${base}/session/${sessionId}`, async () => {
      await request(base, 'DELETE', `/session/${sessionId}`).catch(() => {});
      kill();
      await exited;
    });
    await session.viewport(width, height);
    return session;
  } catch (error) {
    kill();
    throw error;
  }
}

/** An element of the page, by its WebDriver reference. */
class Element {
  constructor(session, id) { this.session = session; this.id = id; }
  get ref() { return { [ELEMENT]: this.id }; }
  /** Scrolled into view first (WebKitGTK's driver refuses a click outside the viewport), and clicked once it has
   * stopped moving: a section laid out as it comes into view (content-visibility: auto) moves what is below it,
   * and a click at the old point would land on something else, as Playwright's own clicks wait for a stable box. */
  async click() {
    await this.session.runAsync(`const [e, done] = arguments;
      let last = '', same = 0, frames = 0;
      const tick = () => {
        const r = e.getBoundingClientRect();
        const inView = r.top >= 0 && r.bottom <= innerHeight;
        if (!inView) e.scrollIntoView({ block: 'center' });
        const box = [r.x, r.y, r.width, r.height].join();
        same = inView && box === last ? same + 1 : 0;
        last = box;
        if (same >= 2 || ++frames > 120) done(); else requestAnimationFrame(tick);
      };
      e.scrollIntoView({ block: 'center' });
      requestAnimationFrame(tick);`, this.ref);
    await this.session.call('POST', `/element/${this.id}/click`, {});
  }
  text() { return this.session.call('GET', `/element/${this.id}/text`); }
  /** Types `keys` (strings, or the WebDriver codes in KEYS) into this element, focusing it first. */
  type(...keys) { return this.session.call('POST', `/element/${this.id}/value`, { text: keys.join('') }); }
}

/** A function (as source) reading an element's text as a reader reads it: white space collapsed; an element not
 * rendered (a closed panel) by its text; one in a section the engine skips while it is off screen
 * (content-visibility: auto, where WebKit's innerText reads "") scrolled to first, as the reader scrolls to it. */
export const READ_TEXT = `(e) => {
  const text = (t) => t.replace(/\\s+/g, ' ').trim();
  if (e.checkVisibility?.() === false) return text(e.textContent);
  if (!e.innerText && text(e.textContent)) e.scrollIntoView({ block: 'nearest' });
  return text(e.innerText);
}`;

export const KEYS = { up: '\uE013', down: '\uE015', enter: '\uE007', escape: '\uE00C', tab: '\uE004' };

export class Session {
  constructor(engine, base, quit) { this.engine = engine; this.base = base; this.quit = quit; }
  call(method, route, body) { return request(this.base, method, route, body); }
  goto(url) { return this.call('POST', '/url', { url }); }
  url() { return this.call('GET', '/url'); }
  /** Sizes the window so that its viewport (what the page sees) is `width` × `height`. */
  async viewport(width, height) {
    await this.call('POST', '/window/rect', { width, height });
    const [w, h] = await this.run('return [innerWidth, innerHeight]');
    if (w !== width || h !== height) {
      await this.call('POST', '/window/rect', { width: 2 * width - w, height: 2 * height - h });
    }
  }
  /** Runs `script` (a function body; `arguments` as given) in the page and returns its value. */
  run(script, ...args) { return this.call('POST', '/execute/sync', { script, args }); }
  /** Runs `script` whose last argument is the callback to call with its result. */
  runAsync(script, ...args) { return this.call('POST', '/execute/async', { script, args }); }
  async find(css) {
    const found = await this.call('POST', '/elements', { using: 'css selector', value: css });
    return found.map((e) => new Element(this, e[ELEMENT]));
  }
  /** The element with this data-testid (waiting until there is one). */
  async byTestId(id, { timeout } = {}) {
    const css = `[data-testid="${id}"]`;
    const [element] = await this.until(async () => {
      const found = await this.find(css);
      return found.length ? found : null;
    }, { timeout, what: `an element ${css}` });
    return element;
  }
  /**
   * Polls `probe` until it returns something truthy and returns that; fails after `timeout` ms naming `what` (a
   * text, or a function that gives it then).
   * The web-first wait of this layer: it waits for what the page shows, never for a fixed time.
   */
  async until(probe, { timeout = 15_000, what = 'the condition' } = {}) {
    const deadline = Date.now() + timeout;
    let last;
    for (;;) {
      try {
        const value = await probe();
        if (value) return value;
        last = value;
      } catch (error) {
        if (error.webdriver === undefined && !/stale|no such/.test(error.message)) throw error;
        last = error.message;
      }
      if (Date.now() > deadline) throw new Error(`${this.engine}: timed out after ${timeout} ms waiting for ${typeof what === 'function' ? what() : what} (last: ${JSON.stringify(last)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  /** Waits until the element `id`'s text satisfies `want` (a string, a RegExp or a predicate); returns the text. */
  async textOf(id, want, options = {}) {
    const ok = typeof want === 'function' ? want
      : want instanceof RegExp ? (t) => want.test(t) : (t) => t === want;
    let seen;
    return this.until(async () => {
      seen = await this.run(`const e = document.querySelector('[data-testid="${id}"]'); return e && (${READ_TEXT})(e);`);
      return seen != null && ok(seen) ? seen : null;
    }, { what: `${id} to read ${want}`, ...options }).catch((e) => {
      throw new Error(`${e.message.split(' (last')[0]}; it read ${JSON.stringify(seen)}`);
    });
  }
  /** Runs `f` with the session inside the iframe `frame` (an Element), then returns to the page. */
  async inFrame(frame, f) {
    await this.call('POST', '/frame', { id: frame.ref });
    try { return await f(); } finally { await this.call('POST', '/frame/parent', {}); }
  }
  async click(id) { await (await this.byTestId(id)).click(); }
  /** The page as a PNG (a Buffer). */
  async screenshot(file) {
    const png = Buffer.from(await this.call('GET', '/screenshot'), 'base64');
    if (file) { fs.mkdirSync(path.dirname(file), { recursive: true }); fs.writeFileSync(file, png); }
    return png;
  }
}
