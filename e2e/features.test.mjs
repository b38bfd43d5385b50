// End-to-end: presets, the explorer, time travel, share links and imports, embed mode on a sub-path.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test, expect, pendingTasksRun, step, took, ROOT, sizedToContent, readmeEmbed, recordHeights, postedHeights } from './fixtures.mjs';

const VIEW = { viewport: { width: 1280, height: 900 } };
const position = (page) => page.getByTestId('position');

/** What the reader sees of both databases, as plain data. */
function tables(page) {
  return page.evaluate(() => {
    const rows = (prefix) => [...document.querySelectorAll(`[data-testid^="${prefix}"]`)]
      .map((row) => [row.dataset.testid, row.innerText.replace(/\s+/g, ' ').trim()]);
    return {
      outbox: rows('outbox-row-'),
      inbox: rows('inbox-row-'),
      effects: [...document.querySelectorAll('[data-testid="effect-row"]')].map((r) => r.innerText.replace(/\s+/g, ' ').trim()),
      projections: [...document.querySelectorAll('[data-testid^="projection-"]')].map((p) => p.innerText),
      invariant: document.querySelector('[data-testid="invariant"]')?.dataset.holds,
    };
  });
}

test('every preset shows its pass mark, with the article expected beside the live result', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await expect(page.getByTestId('experiments-summary')).toContainText('12/12');
  const preset = page.getByTestId('preset');
  for (let i = 1; i <= 12; i++) {
    const id = String(i).padStart(2, '0');
    await test.step(`preset ${id}`, async () => {
      await expect(page.getByTestId(`experiment-${id}`)).toHaveAttribute('data-ok', 'true');
      await page.getByTestId(`preset-${id}`).click();
      // The heading names the preset just loaded (its mark, then its number): what follows is about this one.
      await expect(preset.locator('h3')).toHaveText(new RegExp(`^✓\\s*${id}\\s`));
      await expect(preset).toHaveAttribute('data-ok', 'true');
      await expect(page.getByTestId('preset-mark')).toHaveText('✓');
      await expect(page.getByTestId('preset-expected')).toHaveText(await page.getByTestId('preset-got').innerText());
      await expect(preset).toContainText(/§\d/);
    });
  }
  // The last preset loaded into the player: its tables are the live databases.
  await page.getByTestId('preset-03').click();
  await expect(page.getByTestId('projection-A')).toContainText('released · last_seq=3 · held=0');
});

test('the explorer: strict all pass, dedupe-only fails, and a failing cell opens the run with its violation', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('explorer-run').click();
  const progress = page.getByTestId('explorer-progress');
  await expect(progress).toHaveAttribute('data-running', 'false', { timeout: 120_000 });
  await expect(progress).toHaveAttribute('data-done', await progress.getAttribute('data-total'));
  const strict = page.getByTestId('matrix-summary-strict');
  await expect(strict).toHaveAttribute('data-failed', '0');
  await expect.poll(async () => Number(await strict.getAttribute('data-runs'))).toBeGreaterThan(100);
  await expect(page.locator('[data-testid^="cell-strict-"][data-ok="true"]')).not.toHaveCount(0);
  await expect(page.locator('[data-testid^="cell-strict-"][data-ok="false"]')).toHaveCount(0);
  await expect.poll(async () => Number(await page.getByTestId('matrix-summary-dedupe_only').getAttribute('data-failed')))
    .toBeGreaterThan(0);
  await page.locator('[data-testid^="cell-dedupe_only-"][data-ok="false"]').first().click();
  const badge = page.getByTestId('invariant');
  await expect(badge).toHaveAttribute('data-holds', 'false');
  await expect(badge).toContainText('flow A');
  await expect(page.getByTestId('mode-select')).toHaveValue('dedupe_only');
  // A passing strict cell opens a run that crashed and recovered.
  await page.locator('[data-testid="cell-strict-312-apply.after_effect"]').click();
  await expect(badge).toHaveAttribute('data-holds', 'true');
  await expect(page.getByTestId('event-log')).toContainText(/crashed at apply\.after_effect/);
});

test('back and forward reproduce the earlier tables; acting in the past starts a new branch', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  const seen = [await tables(page)];
  await page.getByTestId('order-312').click();
  // The order button ran three advances, one entry each; their intermediate states are replayed too (below).
  await expect(position(page)).toHaveText('after step 3 of 3');
  for (let i = 0; i < 3; i++) seen.push(await tables(page));
  for (const id of ['deliver-next', 'apply-A', 'deliver-next', 'apply-A', 'apply-A']) {
    await took(page, () => page.getByTestId(id).click());
    seen.push(await tables(page));
  }
  const n = seen.length - 1;
  await expect(position(page)).toHaveText(`after step ${n} of ${n}`);
  for (let k = n - 1; k >= 3; k--) {
    await page.getByTestId('back').click();
    await expect(position(page)).toHaveText(`after step ${k} of ${n}`);
    await expect.poll(() => tables(page), `back to ${k}`).toEqual(seen[k]);
  }
  await page.keyboard.press(']');
  await expect(position(page)).toHaveText(`after step 4 of ${n}`);
  await expect.poll(() => tables(page), 'forward with ]').toEqual(seen[4]);
  await page.getByTestId('forward').click();
  await expect(position(page)).toHaveText(`after step 5 of ${n}`);
  await expect.poll(() => tables(page)).toEqual(seen[5]);
  // A new branch from step 5: the future is cut off.
  await page.getByTestId('process-all').click();
  await expect(position(page)).toHaveText('after step 6 of 6');
});

test('a share link round trip reproduces the same tables', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('add-flow-B').click();
  await page.getByTestId('order-231').click();
  await page.getByTestId('advance-B').click();
  await page.getByTestId('crash-select').selectOption('relay.after_mark');
  await page.getByTestId('deliver-all').click();
  await expect(page.getByTestId('down')).toBeVisible();
  await page.getByTestId('restart').click();
  await expect(page.getByTestId('down')).toHaveCount(0);
  await page.getByTestId('deliver-all').click();
  await step(page, 'apply-A', 'applied');
  const want = await tables(page);
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-link')).toHaveValue(/#t=[A-Za-z0-9_-]+$/);
  const link = await page.getByTestId('share-link').inputValue();
  await expect.poll(() => page.evaluate(() => location.hash), 'the address bar carries the link')
    .toBe(link.slice(link.indexOf('#')));
  const other = await open(link, VIEW);
  await expect(position(other)).toHaveText(await position(page).innerText());
  await expect.poll(() => tables(other)).toEqual(want);
});

function b64url(buf) {
  return Buffer.from(buf).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
const packed = (text) => b64url(zlib.deflateRawSync(Buffer.from(text)));
const traceOf = (steps, extra = {}) => JSON.stringify({ format: 'outbox-playground-trace/1', steps, ...extra });

test('malformed links and imports each give a message, change nothing and never break the page', async ({ dist, open }, testInfo) => {
  const good = packed(traceOf([{ op: 'advance', flow: 'A', event_id: 'A1', expected_seq: 0, kind: 'reserved', schema: 1, payload: { amount: 3 } }]));
  // Each input is fixed, so each has one refusal: the part of it that names what is wrong.
  const links = [
    ['#t=', /the trace after #t= is empty/],
    ['#t=!!!!', /character '!' at position 1 is not base64url/],
    ['#t=A', /the text ends in the middle of a byte \(truncated\?\)/],
    ['#x=abc', /expected the fragment to start with #t=, got #x=abc/],
    ['#t=AAAAAAAA', /the data is not a packed trace/],
    [`#t=${good.slice(0, Math.floor(good.length / 2))}`, /the text ends in the middle of a byte/],
    [`#t=${good.slice(0, 10)}Z${good.slice(11)}`, /the data is not a packed trace/],
    [`#t=${b64url(zlib.deflateRawSync(Buffer.alloc(3 * 1024 * 1024, 32)))}`, /more than 1048576 bytes/],
    [`#t=${packed('not json at all')}`, /the trace is not valid JSON/],
    [`#t=${packed('[1,2,3]')}`, /a trace must be a JSON object, got an array/],
    [`#t=${packed('{"format":"outbox-playground-trace/9","steps":[]}')}`, /field `format` must be "outbox-playground-trace\/1"/],
    [`#t=${packed(traceOf([{ op: 'apply', flow: 'A B' }]))}`, /step 1 \(apply\): field `flow`/],
    [`#t=${packed(traceOf(Array(10001).fill({ op: 'relay' })))}`, /the trace has 10001 steps; at most 10000/],
    [`#t=${packed(traceOf([{ op: 'relay', crash_at: 'apply.after' }]))}`, /step 1 \(relay\): field `crash_at` must be one of `producer\.after_state`, .*`apply\.after_commit`, got "apply\.after"$/],
    [`#t=${packed(traceOf([{ op: 'advance', flow: 'A', event_id: 'A1', expected_seq: 0, kind: 'reserved', schema: 1, payload: { a: { b: 1 } } }]))}`,
      /step 1 \(advance\): field `payload`/],
    [`#t=${b64url(zlib.deflateRawSync(Buffer.from([0xff, 0xfe, 0x00, 0x80])))}`, /not UTF-8/],
  ];
  const page = await open(dist.url, VIEW);
  const notice = page.getByTestId('notice');
  for (const [hash, want] of links) {
    await test.step(hash.slice(0, 40), async () => {
      await page.goto('about:blank'); // a fresh open of the link, not a fragment change on the open page
      await page.goto(dist.url + hash);
      await expect(page.getByTestId('lane')).toBeVisible();
      // The refusal is the link's, on the page that just opened.
      await expect(notice).toHaveText(/^Nothing was changed: the link: /);
      await expect(notice).toHaveText(want);
      // The page stays on the default scenario and works.
      await expect(position(page)).toHaveText('after step 0 of 0');
      await step(page, 'advance-A', 'committed');
    });
  }
  const imports = [
    ['not json', /the trace is not valid JSON/],
    ['{}', /missing field `format`/],
    ['[1,2]', /a trace must be a JSON object, got an array/],
    [traceOf([{ op: 'apply', flow: '<img src=x onerror=alert(1)>' }]), /step 1 \(apply\): field `flow` may hold only/],
    [traceOf([{ op: 'fly' }]), /step 1 \(fly\): unknown variant `fly`/],
    ['https://example.invalid/#t=%%%', /the link: character '%' at position 1 is not base64url/],
    [traceOf([], { extra: 1 }), /unknown field "extra"/],
  ];
  for (const [text, want] of imports) {
    await test.step(text.slice(0, 40), async () => {
      await page.getByTestId('reset').click();
      await expect(notice).toHaveCount(0);
      await step(page, 'advance-A', 'committed');
      const before = await tables(page);
      await page.getByTestId('import-text').fill(text);
      await page.getByTestId('import-load').click();
      await expect(notice).toHaveText(want);
      // Nothing changed: the same step, the same tables.
      await expect(position(page), 'nothing changed').toHaveText('after step 1 of 1');
      expect(await tables(page)).toEqual(before);
    });
  }
  // Files: one that is not a trace, one that is too large.
  const before = await tables(page);
  const notTrace = testInfo.outputPath('notes.json');
  fs.writeFileSync(notTrace, '{"hello": "world"}');
  await page.getByTestId('import-file').setInputFiles(notTrace);
  await expect(notice).toContainText('missing field `format`');
  const big = testInfo.outputPath('big.json');
  fs.writeFileSync(big, 'x'.repeat(3 * 1024 * 1024));
  await page.getByTestId('import-file').setInputFiles(big);
  await expect(notice).toContainText(/the file is 3145728 bytes; a trace may be at most \d+ bytes/);
  await expect(position(page)).toHaveText('after step 1 of 1');
  expect(await tables(page)).toEqual(before);
  await page.getByTestId('notice-dismiss').click();
  await expect(notice).toHaveCount(0);
});

test('an imported file replays, and untrusted text stays text', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  const hostile = '<img src=x onerror=window.__pwned=1>';
  const text = traceOf([
    { op: 'receive', event: { event_id: 'A1', flow_id: 'A', seq: 1, kind: hostile.slice(0, 32), schema: 1, payload: { note: '</script><script>window.__pwned=2</script>' } } },
    { op: 'apply', flow: 'A' },
  ]);
  await page.getByTestId('import-text').fill(text);
  await page.getByTestId('import-load').click();
  await expect(position(page)).toHaveText('after step 2 of 2');
  await expect(page.getByTestId('step-result')).toHaveText('blocked: invalid_payload');
  await expect(page.getByTestId('inbox-row-A1')).toContainText('<img src=x');
  // Shown as text: no element came of it anywhere on the page, and neither of its scripts ran.
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  await expect(page.locator('.consumer img')).toHaveCount(0);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  // A flow that only ever arrives at the consumer gets its column too.
  await page.getByTestId('import-text').fill(traceOf([
    { op: 'receive', event: { event_id: 'X1', flow_id: 'X', seq: 1, kind: 'reserved', schema: 1, payload: { amount: 3 } } },
    { op: 'process_all' },
  ]));
  await page.getByTestId('import-load').click();
  await expect(page.getByTestId('projection-X')).toContainText('reserved · last_seq=1 · held=3');
  await expect(page.getByTestId('apply-X')).toHaveCount(1);
  // A long replay still running is superseded by a newer import, never the other way round. Both loads in one
  // task, so the second lands while the first is replaying whatever this machine's speed.
  const long = traceOf(Array.from({ length: 3000 }, (_, i) => (i % 2 ? { op: 'relay' } : { op: 'apply', flow: 'A' })));
  const short = traceOf([{ op: 'relay' }, { op: 'relay' }]);
  await page.evaluate(([first, second]) => {
    const area = document.querySelector('[data-testid="import-text"]');
    const load = document.querySelector('[data-testid="import-load"]');
    area.value = first;
    load.click(); // longer than a slice: it starts replaying in slices, the first one queued behind this task
    area.value = second;
    load.click();
  }, [long, short]);
  await expect(position(page)).toHaveText('after step 2 of 2');
  // The long replay had a slice queued; once it has had its turn, nothing of it shows.
  await pendingTasksRun(page);
  expect(await page.getByTestId('loading').count(), 'the superseded replay went on').toBe(0);
  expect(await position(page).innerText()).toBe('after step 2 of 2');
});

test('the embed build loads from a sub-path, without chrome, from 360 to 960 px wide', async ({ open, serveDir }) => {
  const requests = [];
  const sub = await serveDir(path.join(ROOT, 'dist-subpath'), { prefix: '/blog/outbox/', onRequest: (p) => requests.push(p) });
  // Without ?embed the same build has its chrome: what the embed leaves out is there to leave out.
  const full = await open(sub.url, VIEW);
  await expect(full.locator('header.top')).toHaveCount(1);
  await expect(full.getByTestId('explorer-run')).toHaveCount(1);
  // The parts of the module (scripts/split-wasm.mjs) come from the same sub-path.
  await expect.poll(() => requests.filter((p) => /^\/blog\/outbox\/[^/]+_(history|rest)\.wasm$/.test(p)).length).toBe(2);
  for (const width of [360, 600, 960]) {
    await test.step(`${width} px`, async () => {
      const page = await open(`${sub.url}?embed`, { viewport: { width, height: 800 } });
      await expect(page.locator('header.top')).toHaveCount(0);
      await expect(page.getByTestId('explorer-run')).toHaveCount(0);
      await page.getByTestId('order-312').click();
      await page.getByTestId('deliver-all').click();
      await page.getByTestId('process-all').click();
      await expect(page.getByTestId('projection-A')).toContainText('released · last_seq=3 · held=0');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${width}px: the page scrolls sideways`).toBeLessThanOrEqual(0);
    });
  }
});

test('an embedded frame sizes itself to the playground through the README\'s line of script, with no inner scrollbar', async ({ browser, serveDir, parentPage }) => {
  const sub = await serveDir(path.join(ROOT, 'dist-subpath'), { prefix: '/blog/outbox/' });
  // The parent: another origin (another port), with the frame and the listener exactly as the README gives them.
  const snippet = readmeEmbed().frame
    .replace('/blog/outbox-playground/?embed', `${sub.url}?embed`).replace(' loading="lazy"', '');
  const parent = await parentPage(snippet);
  for (const width of [360, 960]) {
    await test.step(`${width} px`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 700 } });
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(parent.url);
      const inside = page.frameLocator('iframe[data-outbox-playground]');
      await expect(inside.getByTestId('lane')).toBeVisible();
      const frame = page.frames().find((f) => f.url().includes('?embed'));
      const element = page.locator('iframe[data-outbox-playground]');
      // The frame takes the content's height (not the 900 px it was given), so nothing scrolls inside it.
      const first = await sizedToContent(element);
      expect(first, 'the frame was resized from its initial 900 px').not.toBe(900);
      expect(await frame.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight)).toBe(true);
      // The page grows as the reader works (the event log gets rows): the frame follows.
      await inside.getByTestId('order-312').click();
      await inside.getByTestId('deliver-all').click();
      await inside.getByTestId('process-all').click();
      await expect(inside.getByTestId('projection-A')).toContainText('released · last_seq=3 · held=0');
      expect(await sizedToContent(element), 'the frame grew with the event log').toBeGreaterThan(first);
      expect(await frame.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight)).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

test('an embed of a long session\'s link is sized once, after its replay in slices', async ({ browser, dist, parentPage }) => {
  // Replayed in slices (over 200 steps), many of them: the page draws its parts while the replay is still
  // filling them in.
  const long = traceOf(Array.from({ length: 4000 }, (_, i) => (i % 2 ? { op: 'relay' } : { op: 'apply', flow: 'A' })));
  const parent = await parentPage(`<iframe id="long" data-outbox-playground src="${dist.url}?embed#t=${packed(long)}"
    title="playground" style="width:100%;height:900px;border:0"></iframe>`);
  const context = await browser.newContext({ viewport: { width: 960, height: 800 } });
  await recordHeights(context);
  const page = await context.newPage();
  await page.goto(parent.url);
  const inside = page.frameLocator('iframe');
  await expect(position(inside)).toHaveText('after step 4000 of 4000', { timeout: 30_000 });
  await expect(inside.getByTestId('loading')).toHaveCount(0);
  const height = await sizedToContent(page.locator('iframe'));
  // Not the height of the page with its progress line and its columns not yet filled in, then the whole one.
  expect(await postedHeights(page, 'long'), 'the heights it posted').toEqual([height]);
  await context.close();
});

test('in Chinese, the core\'s refusals are Chinese too, names and values kept', async ({ dist, open }) => {
  const page = await open(dist.url, { ...VIEW, locale: 'zh-CN' });
  const bad = JSON.stringify({ format: 'outbox-playground-trace/1', steps: [{ op: 'apply', flow: 'A B' }] });
  await page.getByTestId('import-text').fill(bad);
  await page.getByTestId('import-load').click();
  const notice = page.getByTestId('notice');
  await expect(notice).toHaveText('未做任何更改：第 1 步（apply）：字段 `flow` 只能包含 A–Z a–z 0–9 _ . : -，却出现了 U+0020');
  // A malformed event is run and rejected: its reason in the event log is Chinese as well.
  const receive = JSON.stringify({ format: 'outbox-playground-trace/1', steps: [{ op: 'receive', event: 'hello' }] });
  await page.getByTestId('import-text').fill(receive);
  await page.getByTestId('import-load').click();
  await expect(page.getByTestId('event-log')).toContainText('传输层拒收了事件：事件必须是 JSON 对象，实际是字符串');
  await expect(page.getByTestId('event-log')).not.toContainText('must be');
});
