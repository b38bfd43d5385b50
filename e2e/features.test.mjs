// End-to-end: presets, the explorer, time travel, share links and imports, embed mode on a sub-path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve } from './server.mjs';
import { openPage, servedDist, ROOT } from './browser.mjs';

const env = servedDist();

const fresh = (url = env.server.url, options = {}) =>
  openPage(env.browser, url, { viewport: { width: 1280, height: 900 }, ...options });
const result = (page) => page.getByTestId('step-result').innerText();

/** What the reader sees of both databases, as plain data. */
async function tables(page) {
  const rows = async (prefix) => {
    const out = [];
    for (const row of await page.locator(`[data-testid^="${prefix}"]`).all()) {
      out.push([(await row.getAttribute('data-testid')), (await row.innerText()).replace(/\s+/g, ' ').trim()]);
    }
    return out;
  };
  return {
    outbox: await rows('outbox-row-'),
    inbox: await rows('inbox-row-'),
    effects: (await page.getByTestId('effect-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
    projections: (await page.locator('[data-testid^="projection-"]').allInnerTexts()),
    invariant: await page.getByTestId('invariant').getAttribute('data-holds'),
  };
}

test('every preset shows its pass mark, with the article expected beside the live result', async () => {
  const page = await fresh();
  await page.getByTestId('experiments-summary').filter({ hasText: '12/12' }).waitFor();
  for (let i = 1; i <= 12; i++) {
    const id = String(i).padStart(2, '0');
    assert.equal(await page.getByTestId(`experiment-${id}`).getAttribute('data-ok'), 'true', id);
    await page.getByTestId(`preset-${id}`).click();
    const preset = page.getByTestId('preset');
    assert.equal(await preset.getAttribute('data-ok'), 'true', id);
    assert.equal((await page.getByTestId('preset-mark').innerText()).trim(), '✓');
    assert.equal(await page.getByTestId('preset-expected').innerText(), await page.getByTestId('preset-got').innerText());
    assert.match(await preset.innerText(), /§\d/);
  }
  // The last preset loaded into the player: its tables are the live databases.
  await page.getByTestId('preset-03').click();
  assert.match(await page.getByTestId('projection-A').innerText(), /released · last_seq=3 · held=0/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the explorer: strict all pass, dedupe-only fails, and a failing cell opens the run with its violation', async () => {
  const page = await fresh();
  await page.getByTestId('explorer-run').click();
  const progress = page.getByTestId('explorer-progress');
  await page.waitForFunction(() => document.querySelector('[data-testid="explorer-progress"]')?.dataset.running === 'false',
    null, { timeout: 120_000 });
  assert.equal(await progress.getAttribute('data-done'), await progress.getAttribute('data-total'));
  const strict = page.getByTestId('matrix-summary-strict');
  assert.equal(await strict.getAttribute('data-failed'), '0');
  assert.ok(Number(await strict.getAttribute('data-runs')) > 100);
  assert.equal(await page.locator('[data-testid^="cell-strict-"][data-ok="false"]').count(), 0);
  assert.ok(Number(await page.getByTestId('matrix-summary-dedupe_only').getAttribute('data-failed')) > 0);
  await page.locator('[data-testid^="cell-dedupe_only-"][data-ok="false"]').first().click();
  const badge = page.getByTestId('invariant');
  assert.equal(await badge.getAttribute('data-holds'), 'false');
  assert.match(await badge.innerText(), /flow A/);
  assert.equal(await page.getByTestId('mode-select').inputValue(), 'dedupe_only');
  // A passing strict cell opens a run that crashed and recovered.
  await page.locator('[data-testid="cell-strict-312-apply.after_effect"]').click();
  assert.equal(await badge.getAttribute('data-holds'), 'true');
  assert.match(await page.getByTestId('event-log').innerText(), /crashed at apply\.after_effect/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('back and forward reproduce the earlier tables; acting in the past starts a new branch', async () => {
  const page = await fresh();
  const seen = [await tables(page)];
  await page.getByTestId('order-312').click();
  for (let i = 0; i < 3; i++) seen.push(await tables(page)); // the order button ran three advances: one entry each
  for (const id of ['deliver-next', 'apply-A', 'deliver-next', 'apply-A', 'apply-A']) {
    await page.getByTestId(id).click();
    seen.push(await tables(page));
  }
  // The three advances of the order button are one action; their intermediate states are replayed too.
  const n = seen.length - 1;
  assert.equal(await page.getByTestId('position').innerText(), `after step ${n} of ${n}`);
  for (let k = n - 1; k >= 3; k--) {
    await page.getByTestId('back').click();
    assert.deepEqual(await tables(page), seen[k], `back to ${k}`);
  }
  await page.keyboard.press(']');
  assert.deepEqual(await tables(page), seen[4], 'forward with ]');
  await page.getByTestId('forward').click();
  assert.deepEqual(await tables(page), seen[5]);
  // A new branch from step 5: the future is cut off.
  await page.getByTestId('process-all').click();
  assert.equal(await page.getByTestId('position').innerText(), 'after step 6 of 6');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a share link round trip reproduces the same tables', async () => {
  const page = await fresh();
  await page.getByTestId('add-flow-B').click();
  await page.getByTestId('order-231').click();
  await page.getByTestId('advance-B').click();
  await page.getByTestId('crash-select').selectOption('relay.after_mark');
  await page.getByTestId('deliver-all').click();
  await page.getByTestId('restart').click();
  await page.getByTestId('deliver-all').click();
  await page.getByTestId('apply-A').click();
  const want = await tables(page);
  await page.getByTestId('copy-link').click();
  const link = await page.getByTestId('share-link').inputValue();
  assert.match(link, /#t=[A-Za-z0-9_-]+$/);
  assert.equal(await page.evaluate(() => location.hash.length > 3), true, 'the address bar carries the link');
  const other = await fresh(link);
  assert.deepEqual(await tables(other), want);
  assert.deepEqual([...page.errors, ...other.errors], []);
  await page.context().close();
  await other.context().close();
});

function b64url(buf) {
  return Buffer.from(buf).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
const packed = (text) => b64url(zlib.deflateRawSync(Buffer.from(text)));
const traceOf = (steps, extra = {}) => JSON.stringify({ format: 'outbox-playground-trace/1', steps, ...extra });

test('malformed links and imports each give a message, change nothing and never break the page', async () => {
  const good = packed(traceOf([{ op: 'advance', flow: 'A', event_id: 'A1', expected_seq: 0, kind: 'reserved', schema: 1, payload: { amount: 3 } }]));
  const links = [
    ['#t=', /empty/],
    ['#t=!!!!', /not base64url/],
    ['#t=A', /truncated|middle of a byte/],
    ['#x=abc', /#t=/],
    ['#t=AAAAAAAA', /not a packed trace/],
    [`#t=${good.slice(0, Math.floor(good.length / 2))}`, /not a packed trace|truncated/],
    [`#t=${good.slice(0, 10)}Z${good.slice(11)}`, /not a packed trace|JSON|step|UTF-8/],
    [`#t=${b64url(zlib.deflateRawSync(Buffer.alloc(3 * 1024 * 1024, 32)))}`, /more than 1048576 bytes/],
    [`#t=${packed('not json at all')}`, /not valid JSON/],
    [`#t=${packed('[1,2,3]')}`, /must be a JSON object/],
    [`#t=${packed('{"format":"outbox-playground-trace/9","steps":[]}')}`, /field `format`/],
    [`#t=${packed(traceOf([{ op: 'apply', flow: 'A B' }]))}`, /step 1 \(apply\): field `flow`/],
    [`#t=${packed(traceOf(Array(10001).fill({ op: 'relay' })))}`, /10001 steps/],
    [`#t=${packed(traceOf([{ op: 'relay', crash_at: 'apply.after' }]))}`, /crash_at/],
    [`#t=${packed(traceOf([{ op: 'advance', flow: 'A', event_id: 'A1', expected_seq: 0, kind: 'reserved', schema: 1, payload: { a: { b: 1 } } }]))}`, /payload/],
    [`#t=${b64url(zlib.deflateRawSync(Buffer.from([0xff, 0xfe, 0x00, 0x80])))}`, /UTF-8/],
  ];
  const page = await fresh();
  for (const [hash, want] of links) {
    await page.goto('about:blank'); // a fresh open of the link, not a fragment change on the open page
    await page.goto(env.server.url + hash);
    await page.getByTestId('lane').waitFor();
    const notice = await page.getByTestId('notice').innerText();
    assert.match(notice, want, hash.slice(0, 40));
    // The page stays on the default scenario and works.
    assert.equal(await page.getByTestId('position').innerText(), 'after step 0 of 0', hash.slice(0, 40));
    await page.getByTestId('advance-A').click();
    assert.equal(await result(page), 'committed');
  }
  const imports = [
    ['not json', /not valid JSON/],
    ['{}', /missing field `format`/],
    ['[1,2]', /must be a JSON object/],
    [traceOf([{ op: 'apply', flow: '<img src=x onerror=alert(1)>' }]), /field `flow`/],
    [traceOf([{ op: 'fly' }]), /unknown variant `fly`/],
    ['https://example.invalid/#t=%%%', /not base64url/],
    [traceOf([], { extra: 1 }), /unknown field "extra"/],
  ];
  for (const [text, want] of imports) {
    await page.getByTestId('reset').click();
    await page.getByTestId('advance-A').click();
    await page.getByTestId('import-text').fill(text);
    await page.getByTestId('import-load').click();
    assert.match(await page.getByTestId('notice').innerText(), want, text.slice(0, 40));
    assert.equal(await page.getByTestId('position').innerText(), 'after step 1 of 1', 'nothing changed');
  }
  // Files: one that is not a trace, one that is too large.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-'));
  const notTrace = path.join(dir, 'notes.json');
  fs.writeFileSync(notTrace, '{"hello": "world"}');
  await page.getByTestId('import-file').setInputFiles(notTrace);
  await page.getByTestId('notice').filter({ hasText: 'missing field' }).waitFor();
  const big = path.join(dir, 'big.json');
  fs.writeFileSync(big, 'x'.repeat(3 * 1024 * 1024));
  await page.getByTestId('import-file').setInputFiles(big);
  await page.getByTestId('notice').filter({ hasText: 'at most' }).waitFor();
  assert.equal(await page.getByTestId('position').innerText(), 'after step 1 of 1');
  assert.ok(links.length + imports.length + 2 >= 20);
  await page.getByTestId('notice-dismiss').click();
  assert.equal(await page.getByTestId('notice').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('an imported file replays, and untrusted text stays text', async () => {
  const page = await fresh();
  const hostile = '<img src=x onerror=window.__pwned=1>';
  const text = traceOf([
    { op: 'receive', event: { event_id: 'A1', flow_id: 'A', seq: 1, kind: hostile.slice(0, 32), schema: 1, payload: { note: '</script><script>window.__pwned=2</script>' } } },
    { op: 'apply', flow: 'A' },
  ]);
  await page.getByTestId('import-text').fill(text);
  await page.getByTestId('import-load').click();
  assert.equal(await result(page), 'blocked: invalid_payload');
  assert.match(await page.getByTestId('inbox-row-A1').innerText(), /<img src=x/);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('.consumer img').count(), 0);
  // A flow that only ever arrives at the consumer gets its column too.
  await page.getByTestId('import-text').fill(traceOf([
    { op: 'receive', event: { event_id: 'X1', flow_id: 'X', seq: 1, kind: 'reserved', schema: 1, payload: { amount: 3 } } },
    { op: 'process_all' },
  ]));
  await page.getByTestId('import-load').click();
  assert.match(await page.getByTestId('projection-X').innerText(), /reserved · last_seq=1 · held=3/);
  assert.equal(await page.getByTestId('apply-X').count(), 1);
  // A long replay still running is superseded by a newer import, never the other way round.
  const long = traceOf(Array.from({ length: 3000 }, (_, i) => (i % 2 ? { op: 'relay' } : { op: 'apply', flow: 'A' })));
  await page.getByTestId('import-text').fill(long);
  await page.getByTestId('import-load').click();
  await page.getByTestId('import-text').fill(traceOf([{ op: 'relay' }, { op: 'relay' }]));
  await page.getByTestId('import-load').click();
  await page.waitForTimeout(1500);
  assert.equal(await page.getByTestId('loading').count(), 0);
  assert.equal(await page.getByTestId('position').innerText(), 'after step 2 of 2');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the embed build loads from a sub-path, without chrome, from 360 to 960 px wide', async () => {
  const sub = await serve(path.join(ROOT, 'dist-subpath'), { prefix: '/blog/outbox/' });
  try {
    for (const width of [360, 600, 960]) {
      const page = await openPage(env.browser, `${sub.url}?embed`, { viewport: { width, height: 800 } });
      assert.equal(await page.locator('header.top').count(), 0, 'no page chrome');
      assert.equal(await page.getByTestId('explorer-run').count(), 0);
      await page.getByTestId('order-312').click();
      await page.getByTestId('deliver-all').click();
      await page.getByTestId('process-all').click();
      assert.match(await page.getByTestId('projection-A').innerText(), /released · last_seq=3 · held=0/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${width}px: the page scrolls sideways by ${overflow}px`);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    }
  } finally {
    await sub.close();
  }
});
