// Runs in the <head>, before the body is parsed (a few hundred bytes, no module): the prerendered first screen
// (`src/bin/prerender.rs`) paints in the reader's language, and not at all in an embed. This is the one place
// the starting language is picked (the remembered choice, else the browser's, else English) and the embed
// class set: the module's `initial_lang` reads `<html lang>` back.
(() => {
  const root = document.documentElement;
  const tag = (v) => (/^zh/i.test(v || '') ? 'zh-Hans' : /^en/i.test(v || '') ? 'en' : null);
  let stored = null;
  try { stored = localStorage.getItem('lang'); } catch { /* storage refused: the browser's language */ }
  root.lang = tag(stored) || tag(navigator.language) || 'en';
  // A parameter named exactly `embed`, as the module's `Address::parse` reads it (no percent-decoding of
  // names: `?%65mbed` is an unknown parameter to both, never an embed to one of them only).
  const embed = location.search.slice(1).split('&').some((part) => part.split('=')[0] === 'embed');
  root.classList.toggle('embed', embed);

  // The module draws the page once the browser has recorded the prerendered first screen's paint (its largest
  // contentful paint): an element removed before that is forgotten, and the page's own identical header would
  // count instead, as late as the module. An embed (no header) and a browser without the LCP API do not wait;
  // otherwise the wait is about 250 ms at most (a page loaded in a hidden tab records none, and its timers run
  // late).
  let recorded = embed || !window.PerformanceObserver?.supportedEntryTypes?.includes('largest-contentful-paint');
  const waiting = [];
  const go = () => { recorded = true; waiting.splice(0).forEach((f) => f()); };
  if (!recorded) {
    new PerformanceObserver((_, observer) => { observer.disconnect(); go(); })
      .observe({ type: 'largest-contentful-paint', buffered: true });
  }
  window.afterFirstScreen = (f) => {
    if (recorded) return f();
    waiting.push(f);
    setTimeout(go, 250);
  };

  // The prerendered header's language button, before the module has taken it over: it switches the language
  // as the page's would (remembered, so the page starts in it), and CSS shows the other copy.
  document.addEventListener('click', (event) => {
    if (!event.target.closest?.('[data-prerender] .lang')) return;
    const next = root.lang === 'en' ? 'zh-Hans' : 'en';
    try { localStorage.setItem('lang', next); } catch { /* not remembered: this page view only */ }
    root.lang = next;
  });

  // The rest of a split module (scripts/split-wasm.mjs, release builds): the code the page does not run until
  // its player is drawn, in a file of its own that index.html names. The module registers its exports as it
  // starts and asks for the rest once the player is interactive (downloaded and compiled off the main thread);
  // the tools below the player wait for it (`whenLoaded`), and a call into the rest before it has arrived, a
  // reader's click on the player, loads it synchronously (src/ui/split.rs). A build that is not split has no
  // rest.
  let exports = null;
  let rest = null;
  let pending = null;
  let loaded = false;
  const restUrl = () => document.querySelector('meta[name=outbox-playground-rest]')?.content;
  const afterRest = []; // whenLoaded's functions
  let refused = null; // why the last prefetch failed
  const whole = () => loaded || (exports && !('__rest_loaded' in exports)); // done, or a module not split
  // An address that starts from a history, a preset's or a link's (`#t=…`, `#check?…`, or one that cannot be
  // read), needs the rest before the player can draw it: it is fetched beside the first load, once the
  // document is parsed (index.html names it after this script).
  const early = /(?:^|&)preset=/.test(location.search.slice(1)) || location.hash.length > 1;
  if (early) {
    document.addEventListener('readystatechange', () => window.outboxSplit.prefetch(), { once: true });
  }
  // Offline, most likely: the page cannot go on with what needs the rest, and says so once.
  const failed = (e) => {
    if (document.querySelector('[data-testid=rest-failed]')) return;
    const panel = document.createElement('div');
    panel.className = 'panic-panel';
    panel.setAttribute('role', 'alert');
    panel.dataset.testid = 'rest-failed';
    panel.textContent = root.lang === 'en'
      ? `Part of the playground could not be loaded (${e.message || e}). Reload the page to try again.`
      : `部分代码未能加载（${e.message || e}），请重新加载页面再试。`;
    document.body.prepend(panel);
  };
  window.outboxSplit = {
    register(e) { exports = e; },
    prefetch() {
      const url = restUrl();
      if (!url || pending || whole()) return pending;
      pending = WebAssembly.compileStreaming(fetch(url)).then((m) => {
        rest ??= m;
        root.dataset.rest = 'compiled'; // for the tests: the next call into the rest needs no request
      }, (e) => {
        pending = null;
        refused = new Error(`${url}: ${e.message || e}`);
        throw refused;
      });
      pending.catch(() => { /* the next call into the rest tries again */ });
      return pending;
    },
    // Calls `f` once the rest is instantiated (at once if it is, or if the module is whole), without holding
    // the page while it downloads. If it cannot be loaded, the page says so, and `f` waits for a later load.
    whenLoaded(f) {
      if (whole()) return f();
      afterRest.push(f);
      // Already refused: said now, and tried again only by the next call into the rest (a reader's click).
      if (refused) return failed(refused);
      Promise.resolve(this.prefetch()).then(() => {
        try { this.loadRest(); } catch { /* said by loadRest */ }
      }, failed);
    },
    // Calls `f` now, or once the rest is loaded if the address starts from a history (`early`).
    beforeStart(f) {
      if (early) this.whenLoaded(f);
      else f();
    },
    loadRest() {
      const url = restUrl();
      if (whole()) return;
      try {
        // Neither can happen in a build as made; said plainly should a host rewrite the page.
        if (!exports) throw new Error('the module has not registered its exports');
        if (!url) throw new Error('index.html names no rest of the module');
        if (!rest) {
          // Not arrived yet: fetched again, synchronously (a binary body read as x-user-defined text).
          const request = new XMLHttpRequest();
          request.open('GET', url, false);
          request.overrideMimeType('text/plain; charset=x-user-defined');
          request.send();
          if (request.status !== 200) throw new Error(`${url} answered ${request.status}`);
          const text = request.responseText;
          const bytes = new Uint8Array(text.length);
          for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
          rest = new WebAssembly.Module(bytes);
        }
        new WebAssembly.Instance(rest, { primary: exports });
      } catch (e) {
        failed(e);
        throw e;
      }
      exports.__rest_loaded.value = 1;
      loaded = true;
      // However it was loaded (a click may have needed it first): what waits for it goes on, once the module
      // has returned from the call that loaded it.
      queueMicrotask(() => afterRest.splice(0).forEach((f) => f()));
    },
    restModule() { return loaded ? rest : null; },
  };

  // In embed mode inside a frame, tell the parent page the playground's height whenever it changes, so the
  // frame can be exactly as tall as its content, with no scrollbar of its own. The parent's few lines of
  // listener are in the README; they check that the message comes from this frame.
  if (embed && window.parent !== window) {
    let last = 0;
    const post = () => {
      const height = Math.ceil(root.getBoundingClientRect().height);
      if (height !== last) {
        last = height;
        window.parent.postMessage({ type: 'outbox-playground:height', height }, '*');
      }
    };
    new ResizeObserver(post).observe(root);
  }
})();
