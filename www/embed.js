// The one line an article needs beside its frames, <script src="…/embed.js" defer></script>: it keeps each
// <iframe data-outbox-playground> as tall as the playground inside says it is (its `outbox-playground:height`
// message), so no frame shows a scrollbar of its own. The README's inline listener is the same code.
addEventListener('message', (event) => {
  for (const frame of document.querySelectorAll('iframe[data-outbox-playground]')) {
    if (event.source === frame.contentWindow && event.data?.type === 'outbox-playground:height') {
      frame.style.height = `${event.data.height}px`;
    }
  }
});
