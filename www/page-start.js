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
