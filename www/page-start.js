// Runs in the <head>, before the body is parsed (a few hundred bytes, no module): the prerendered first screen
// (`src/bin/prerender.rs`) paints in the reader's language, and not at all in an embed. This is the one place
// the starting language is picked (the remembered choice, else the browser's, else English) and the embed
// class set: the module's `initial_lang` reads `<html lang>` back.
(() => {
  // A response's module, compiled as it streams in; from its bytes for a host that does not serve .wasm as
  // application/wasm.
  const compile = (response) => {
    if (!response.ok) throw new Error(`answered ${response.status}`);
    return response.headers.get('content-type')?.startsWith('application/wasm')
      ? WebAssembly.compileStreaming(response) : response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
  };

  // The module, compiled from here as its bytes arrive rather than once the document is parsed (a release build
  // preloads and names it at the top of <head>, scripts/compile-early.mjs, and Trunk's start-up script takes it
  // from `outboxModule`). This request, with the preload's URL, mode and integrity, takes the preload's response. Should the fetch or the compile fail here, the start-up script fetches the module again,
  // and says why if that fails too.
  const named = document.querySelector('meta[name=outbox-playground-module]');
  if (named) {
    const compiled = fetch(named.content, { integrity: named.dataset.integrity }).then(compile);
    window.outboxModule = compiled.catch(() => fetch(named.content));
  }

  const root = document.documentElement;
  const tag = (v) => (/^zh/i.test(v || '') ? 'zh-Hans' : /^en/i.test(v || '') ? 'en' : null);
  let stored = null;
  try { stored = localStorage.getItem('lang'); } catch { /* storage refused: the browser's language */ }
  // `lang=zh|en` in the address first (a Chinese post embeds a Chinese frame whatever the reader's browser
  // says), read as the module's `Address::parse` reads it; not remembered: it is this address's choice.
  const asked = location.search.slice(1).split('&').map((part) => part.split('=')).find(([k]) => k === 'lang');
  root.lang = tag(asked?.[1]) || tag(stored) || tag(navigator.language) || 'en';
  // A parameter named exactly `embed`, as the module's `Address::parse` reads it (no percent-decoding of
  // names: `?%65mbed` is an unknown parameter to both, never an embed to one of them only).
  const embed = location.search.slice(1).split('&').some((part) => part.split('=')[0] === 'embed');
  root.classList.toggle('embed', embed);

  // The prerendered header's language button, until the page draws its own header: it switches the language
  // as the page's would (remembered, so the page starts in it), and CSS shows the other copy; once the module
  // runs, the page switches (`outboxSwitchLang`: its controls and this header together).
  document.addEventListener('click', (event) => {
    if (!event.target.closest?.('[data-prerender] .lang')) return;
    if (window.outboxSwitchLang) return window.outboxSwitchLang();
    const next = root.lang === 'en' ? 'zh-Hans' : 'en';
    try { localStorage.setItem('lang', next); } catch { /* not remembered: this page view only */ }
    root.lang = next;
  });

  // The parts of a split module (scripts/split-wasm.mjs, release builds): the code the page does not run until
  // its player is drawn, in files of their own that index.html names: `history` (replaying a preset's or a
  // link's history) and `rest` (everything else). The module registers its exports as it starts and asks for
  // them once the player is interactive (downloaded and compiled off the main thread); the tools below the
  // player wait for both (`whenLoaded`), an address that starts from a history for `history` (`beforeStart`),
  // and a call into a part before it has arrived, a reader's click, loads it synchronously (src/ui/split.rs).
  // A build that is not split has no parts.
  let exports = null;
  const parts = ['history', 'rest'].map((name) => ({ name, module: null, pending: null, loaded: false, refused: null }));
  const urlOf = (part) => document.querySelector(`meta[name=outbox-playground-${part.name}]`)?.content;
  const afterRest = []; // [parts, f]: whenLoaded's and beforeStart's functions
  const whole = () => exports && !('__rest_loaded' in exports); // a module not split
  const loaded = (list) => whole() || list.every((part) => part.loaded);
  // An address that starts from a history, a preset's or a link's (`#t=…`, or one that cannot be read; a
  // check link `#check?…` is the checker's, drawn with the tools), needs `history` before the player can draw
  // it: it is fetched beside the first load, once the document is parsed (index.html names it after this
  // script).
  const early = /(?:^|&)preset=/.test(location.search.slice(1))
    || (location.hash.length > 1 && !/^#(check\?|level=)/.test(location.hash));
  if (early) {
    document.addEventListener('readystatechange', () => fetchPart(parts[0]), { once: true });
  }
  // Offline, most likely: the page cannot go on with what needs a part (or, `entire`, without the module
  // itself: Trunk's start-up script calls `outboxFailed`, scripts/compile-early.mjs), and says so once.
  const failed = (e, entire = false) => {
    const testid = entire ? 'module-failed' : 'rest-failed';
    if (document.querySelector(`[data-testid=${testid}]`)) return;
    const panel = document.createElement('div');
    panel.className = 'panic-panel';
    panel.setAttribute('role', 'alert');
    panel.dataset.testid = testid;
    const why = e?.message || e;
    panel.textContent = root.lang === 'en'
      ? `${entire ? 'The playground' : 'Part of the playground'} could not be loaded (${why}). Reload the page to try again.`
      : `${entire ? '实验台' : '部分代码'}未能加载（${why}），请重新加载页面再试。`;
    document.body.prepend(panel);
    // What waits for the part will not be drawn: an embed's frame sizes itself to what is there, message and all.
    root.setAttribute('data-drawn', '');
  };
  window.outboxFailed = (e) => failed(e, true);
  function fetchPart(part) {
    const url = urlOf(part);
    if (!url || part.pending || part.module || whole()) return part.pending;
    part.pending = fetch(url).then(compile).then((m) => {
      part.module ??= m;
      part.refused = null;
      // For the tests: the next call into the parts needs no request.
      if (parts.every((p) => p.module)) root.dataset.rest = 'compiled';
    }, (e) => {
      part.pending = null;
      part.refused = new Error(`${url}: ${e.message || e}`);
      throw part.refused;
    });
    part.pending.catch(() => { /* the next call into the part tries again */ });
    return part.pending;
  }
  // Instantiates `part` once it has arrived; `onRefused` hears why it did not. (An async function, not
  // `Promise.resolve(…)`: Trunk's minifier hoists a method used twice into a variable of its own, and
  // `Promise.resolve` called without its `this` throws.)
  const arrive = (part, onRefused) => (async () => fetchPart(part))().then(() => {
    try { instantiate(part); } catch { /* said by instantiate */ }
  }, onRefused);
  // Instantiates `part` (fetching it synchronously if it has not arrived: a wasm call cannot wait).
  function instantiate(part) {
    if (part.loaded || whole()) return;
    const url = urlOf(part);
    try {
      // Neither can happen in a build as made; said plainly should a host rewrite the page.
      if (!exports) throw new Error('the module has not registered its exports');
      if (!url) throw new Error(`index.html names no ${part.name} part of the module`);
      if (!part.module) {
        // Not arrived yet: fetched again, synchronously (a binary body read as x-user-defined text).
        const request = new XMLHttpRequest();
        request.open('GET', url, false);
        request.overrideMimeType('text/plain; charset=x-user-defined');
        request.send();
        if (request.status !== 200) throw new Error(`${url} answered ${request.status}`);
        const text = request.responseText;
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
        part.module = new WebAssembly.Module(bytes);
      }
      new WebAssembly.Instance(part.module, { primary: exports });
    } catch (e) {
      failed(e);
      throw e;
    }
    exports[`__${part.name}_loaded`].value = 1;
    part.loaded = true;
    // However it was loaded (a click may have needed it first): what waits for it goes on, once the module has
    // returned from the call that loaded it, each in a microtask of its own. What still waits for another part
    // asks for it again (it may have been refused before this one came through).
    queueMicrotask(() => {
      for (const entry of afterRest.splice(0)) {
        if (loaded(entry[0])) queueMicrotask(entry[1]);
        else {
          afterRest.push(entry);
          entry[0].filter((other) => !other.loaded).forEach((other) => arrive(other, () => { /* said */ }));
        }
      }
      // Everything in: the message that a part could not be loaded no longer holds.
      if (parts.every((p) => p.loaded)) document.querySelector('[data-testid=rest-failed]')?.remove();
    });
  }
  // Calls `f` once `list` is instantiated (at once if it is, or if the module is whole), without holding the
  // page while it downloads. If a part cannot be loaded, the page says so, and `f` waits for a later load.
  function after(list, f) {
    if (loaded(list)) return f();
    afterRest.push([list, f]);
    // Already refused: said now, and tried again only by the next call into the part (a reader's click).
    const refused = list.find((part) => part.refused && !part.loaded)?.refused;
    if (refused) return failed(refused);
    for (const part of list) arrive(part, failed);
  }
  window.outboxSplit = {
    early,
    register(e) { exports = e; },
    prefetch() { parts.forEach(fetchPart); },
    whenLoaded(f) { after(parts, f); },
    // Calls `f` now, or once `history` is loaded if the address starts from a history (`early`).
    beforeStart(f) {
      if (early) after([parts[0]], f);
      else f();
    },
    loadRest(p) { instantiate(parts[p]); },
    // The parts, compiled, by name, once all are loaded, for the checker's worker.
    restModule() { return parts.every((part) => part.loaded) ? parts.map(({ name, module }) => ({ name, module })) : null; },
  };

  // In embed mode inside a frame, tell the parent page the playground's height whenever it changes, so the
  // frame can be exactly as tall as its content, with no scrollbar of its own. The parent's few lines of
  // listener are in the README; they check that the message comes from this frame. Not while the page is
  // still drawing its view part by part (until the module sets `<html data-drawn>`): each part's height would
  // resize the frame and move the article around it, from the height its author gave it down to an empty
  // page's and up again in steps. The frame keeps that height until it takes the whole view's.
  if (embed && window.parent !== window) {
    let last = 0;
    const post = () => {
      if (!root.hasAttribute('data-drawn')) return;
      const height = Math.ceil(root.getBoundingClientRect().height);
      if (height !== last) {
        last = height;
        window.parent.postMessage({ type: 'outbox-playground:height', height }, '*');
      }
    };
    new ResizeObserver(post).observe(root);
    // The mark is set in the middle of the module's task, and what that task draws after it (a part's own
    // effects) would be a second height: the height is read at the next frame, once the task is done (or
    // after 100 ms in a frame the browser is not drawing; a height already posted is not posted again).
    new MutationObserver(() => { requestAnimationFrame(post); setTimeout(post, 100); })
      .observe(root, { attributes: true, attributeFilter: ['data-drawn'] });
  }
})();
