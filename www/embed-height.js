// In embed mode (?embed inside a frame), tell the parent page the playground's height whenever it changes, so
// the frame can be exactly as tall as its content, with no scrollbar of its own. The parent's few lines of
// listener are in the README; they check that the message comes from this frame.
if (window.parent !== window && new URLSearchParams(location.search).has('embed')) {
  let last = 0;
  const post = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      window.parent.postMessage({ type: 'outbox-playground:height', height }, '*');
    }
  };
  new ResizeObserver(post).observe(document.documentElement);
}
