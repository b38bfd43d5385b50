// End-to-end: a reader's first minute (issue 55). Nothing the reader chose is undone silently, each consumer
// describes itself, the address chooses the language, and a preset opens at the moment its section is about.
import { test, expect, step, sizedToContent } from './fixtures.mjs';

const VIEW = { viewport: { width: 1280, height: 900 } };
const position = (page) => page.getByTestId('position');

test('a crash armed before an order still fires at the apply that crosses it', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await step(page, 'advance-A', 'committed');
  await page.getByTestId('crash-select').selectOption('apply.after_effect');
  await page.getByTestId('order-312').click();
  // The order started over, and said so; the crash is still armed.
  await expect(page.getByTestId('notice')).toContainText('setting aside the history before it (1 step(s))');
  await expect(page.getByTestId('crash-select')).toHaveValue('apply.after_effect');
  await expect(position(page)).toHaveText('after step 3 of 3');
  await page.getByTestId('deliver-all').click();
  await expect(position(page)).toHaveText('after step 6 of 6');
  await step(page, 'apply-A', 'crashed at apply.after_effect');
  await expect(page.getByTestId('down')).toContainText('9. apply.after_effect');
  await page.getByTestId('restart').click();
  await expect(page.getByTestId('notice')).toContainText('Restarted: both databases reopened');
  await expect(page.getByTestId('crash-select')).toHaveValue('');
});

test('switching the consumer replays the same arrival under it and keeps the one before to compare', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  // Before any step the badge claims nothing.
  await expect(page.getByTestId('invariant')).toHaveText('Nothing applied yet.');
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-all').click();
  await page.getByTestId('process-all').click();
  await expect(position(page)).toHaveText('after step 7 of 7');
  await expect(page.getByTestId('invariant')).toHaveText(/^✓ Invariant holds/);

  await page.getByTestId('mode-select').selectOption('dedupe_only');
  await expect(position(page)).toHaveText('after step 7 of 7');
  await expect(page.getByTestId('notice')).toContainText('The same 7 steps now run under dedupe-only');
  await expect(page.getByTestId('compare')).toHaveText('With strict: A released · last_seq=3 · 3 effect(s)');
  // Dedupe-only in its own words: its subtitle, its receipts, its idle apply.
  await expect(page.getByTestId('consumer-note')).toHaveText('inbox dedupes by id; each event is applied on arrival, in arrival order');
  await expect(page.getByTestId('inbox-row-A3')).toHaveAttribute('data-state', 'applied');
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'false');
  // The article's punch line, in words.
  await expect(page.getByTestId('backwards')).toHaveText(
    'Flow A ran backwards: the producer says released, but the consumer ended at confirmed with last_seq=2, holding 3. '
    + 'No message was lost or duplicated, and the workflow still ran backwards.');
  // ... with its evidence beside it, in view on a laptop: the effect log as written.
  await expect(page.getByTestId('backwards-effects')).toHaveText('Flow A\'s effect log, as written: A3 released → A1 reserved → A2 confirmed.');
  await expect(page.getByTestId('backwards-effects')).toBeInViewport();
  // Back in time, a step of dedupe-only's receive says what it did.
  await page.getByTestId('back').click();
  await page.getByTestId('back').click();
  await page.getByTestId('back').click();
  await expect(page.getByTestId('step-result')).toHaveText('accepted');
  await expect(page.locator('.status .latest .why')).toContainText('applied on arrival');
  await page.getByTestId('forward').click();
  await page.getByTestId('forward').click();
  await page.getByTestId('forward').click();
  await step(page, 'apply-A', 'idle');
  await expect(page.locator('.status .latest .why')).toContainText('nothing to apply: dedupe-only applied each event as it arrived');

  // And back to strict: the comparison now names dedupe-only's outcome.
  await page.getByTestId('mode-select').selectOption('strict');
  await expect(page.getByTestId('compare')).toHaveText('With dedupe-only: A confirmed · last_seq=2 · 3 effect(s)');
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'true');
  await expect(page.getByTestId('consumer-note')).toHaveText('inbox dedupes; apply takes only last_seq + 1');
});

test('the address chooses the language, embeds too, and a wrong one is named', async ({ dist, open }) => {
  const page = await open(`${dist.url}?lang=zh`, { ...VIEW, locale: 'en-US' });
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-Hans');
  await expect(page.getByTestId('address-notice')).toHaveCount(0);
  await expect(page.getByTestId('invariant')).toHaveText('还没有应用任何事件。');
  await page.getByTestId('mode-select').selectOption('dedupe_only');
  await page.getByTestId('order-312').click();
  await page.getByTestId('deliver-all').click();
  // The invariant's bullets in Chinese, identifiers as the article keeps them.
  await expect(page.getByTestId('invariant').locator('li').first()).toHaveText('流程 A：第 1 条执行记录是 seq 3（released），但连续前缀在这里需要 seq 1');
  await expect(page.getByTestId('backwards')).toContainText('流程 A 走反了');

  const embed = await open(`${dist.url}?embed&preset=3&view=wire,consumer&lang=zh`, { ...VIEW, locale: 'en-US' });
  await expect(embed.locator('html')).toHaveAttribute('lang', 'zh-Hans');
  const english = await open(`${dist.url}?lang=en`, { ...VIEW, locale: 'zh-CN' });
  await expect(english.locator('html')).toHaveAttribute('lang', 'en');
  const wrong = await open(`${dist.url}?lang=fr&step=3`, VIEW);
  await expect(wrong.getByTestId('address-notice')).toContainText('lang=fr (en, zh)');
  await expect(wrong.getByTestId('address-notice')).toContainText('step=3 (with preset=)');
});

test('a preset opens at its section\'s moment with time travel at hand, step=N chooses another, and the embed code writes both', async ({ browser, dist, open, parentPage }) => {
  // 3-1-2: A3 waits at the gap.
  const page = await open(`${dist.url}?embed&preset=3&view=wire,consumer`, VIEW);
  await expect(position(page)).toHaveText('after step 5 of 12');
  await expect(page.getByTestId('step-result')).toHaveText('gap');
  await expect(page.getByTestId('projection-A')).toContainText('new · last_seq=0');
  await page.getByTestId('forward').click();
  await expect(position(page)).toHaveText('after step 6 of 12');
  // The ten exits: the first crash.
  // (A view without the wire: opened here, since `open` waits for the wire.)
  const context = await browser.newContext(VIEW);
  const crash = await context.newPage();
  await crash.goto(`${dist.url}?embed&preset=9&view=crash,consumer,diagram`);
  await expect(position(crash)).toHaveText('after step 1 of 40');
  await expect(crash.getByTestId('step-result')).toHaveText('crashed at producer.after_state');
  await context.close();
  const chosen = await open(`${dist.url}?embed&preset=3&view=wire,consumer&step=12`, VIEW);
  await expect(position(chosen)).toHaveText('after step 12 of 12');
  await expect(chosen.getByTestId('projection-A')).toContainText('released · last_seq=3');

  const full = await open(`${dist.url}?view=wire,consumer,share,experiments&preset=3`, VIEW);
  await expect(position(full)).toHaveText('after step 5 of 12');
  await full.getByTestId('copy-embed').click();
  await expect(full.getByTestId('embed-code')).toHaveValue(/\?embed&view=timeline,wire,consumer,share,experiments&preset=3&lang=en"/);
  await full.getByTestId('forward').click();
  await full.getByTestId('copy-embed').click();
  await expect(full.getByTestId('embed-code')).toHaveValue(/&preset=3&step=6&lang=en"/);
  // The code carries the height its view was measured at, in a hidden frame of the article's width.
  await expect(full.getByTestId('embed-code')).toHaveAttribute('data-measured', 'true', { timeout: 30_000 });
  const code = await full.getByTestId('embed-code').inputValue();
  const declared = Number(code.match(/height:(\d+)px/)[1]);
  const frame = code.match(/<iframe[\s\S]*?<\/iframe>/)[0];
  const article = await parentPage(`<div style="width:960px">${frame}</div>`);
  const reader = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const host = await reader.newPage();
  await host.goto(article.url);
  const embedded = host.locator('iframe[data-outbox-playground]');
  await expect(host.frameLocator('iframe[data-outbox-playground]').getByTestId('position')).toHaveText('after step 6 of 12', { timeout: 30_000 });
  const final = await sizedToContent(embedded);
  expect(Math.abs(final - declared) / final, `declared ${declared}, reported ${final}`).toBeLessThanOrEqual(0.1);
  await reader.close();
});

test('on a phone: no word breaks inside a table, every control is a finger\'s size, no keyboard line, and the diagram\'s tab keeps the steps', async ({ dist, open }) => {
  for (const lang of ['en', 'zh']) {
    const page = await open(`${dist.url}?lang=${lang}`, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.getByTestId('order-312').tap();
    await page.getByTestId('deliver-all').tap();
    await page.getByTestId('process-all').tap();
    await expect(page.getByTestId('inbox-row-A3')).toHaveAttribute('data-state', 'applied');
    // Each cell and header on one line: as tall as one line of its text.
    const broken = await page.evaluate(() => [...document.querySelectorAll('th, td')]
      .filter((c) => c.checkVisibility() && c.textContent.trim())
      .filter((c) => {
        const range = document.createRange();
        range.selectNodeContents(c);
        return range.getClientRects().length > 1;
      }).map((c) => c.textContent));
    expect(broken, `${lang}: cells whose text wraps`).toEqual([]);
    // Every control of the player, or the label around it, is at least 44 × 44 CSS px.
    await page.getByTestId('settings-toggle').tap();
    const small = await page.evaluate(() => [...document.querySelectorAll(
      '.controls button, .controls select, .controls input, .timeline button, .timeline input, .columns button, .tabs button')]
      .filter((el) => el.checkVisibility())
      .map((el) => [el, (el.closest('label') ?? el).getBoundingClientRect()])
      .filter(([, r]) => r.width < 44 || r.height < 44)
      .map(([el, r]) => `${el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent} ${Math.round(r.width)}×${Math.round(r.height)}`));
    expect(small, `${lang}: targets under 44 px`).toEqual([]);
    await page.getByTestId('settings-toggle').tap();
    await expect(page.locator('.shortcuts')).toBeHidden();
    // The diagram's tab: the diagram, and the buttons that take a step, without the tables.
    await page.getByTestId('tab-diagram').tap();
    await expect(page.getByTestId('diagram')).toBeVisible();
    await expect(page.getByTestId('effect-log')).toBeHidden();
    for (const id of ['advance-A', 'deliver-next', 'apply-A', 'process-all']) await expect(page.getByTestId(id)).toBeVisible();
    await page.getByTestId('advance-B').or(page.getByTestId('apply-A')).first().tap();
    await expect(page.getByTestId('position')).toContainText(lang === 'en' ? 'after step 8 of 8' : '第 8 步之后');
  }
});

for (const [file, lang] of [['article.html', 'en'], ['article.zh.html', 'zh-Hans']]) {
  test(`the sample article ${file}: names its article, its frames in its language, each first as tall as it ends within 10 %`, async ({ browser, dist }) => {
    for (const width of [390, 960]) {
      const context = await browser.newContext({ viewport: { width, height: 844 } });
      const page = await context.newPage();
      await page.goto(`${dist.url}${file}`);
      await expect(page.locator('#source a').first()).toHaveAttribute('href', 'https://ai-knowledgepoints.cn/blog/agent-reliability-11-ordered-outbox-inbox');
      for (const id of ['embed-order', 'embed-crash', 'embed-wrong']) {
        const frame = page.locator(`#${id}`);
        await frame.scrollIntoViewIfNeeded();
        const inside = page.frameLocator(`#${id}`);
        await expect(inside.locator('html')).toHaveAttribute('lang', lang);
        await expect(inside.getByTestId('invariant')).toBeVisible({ timeout: 30_000 });
        // The frame's height as it reported it, against the height the page gave it before it did.
        await expect.poll(() => frame.evaluate((f) => f.style.height), { timeout: 30_000 }).toMatch(/px$/);
        const [final, declared] = await frame.evaluate((f) => {
          const reported = f.style.height;
          f.style.height = '';
          const before = f.getBoundingClientRect().height;
          f.style.height = reported;
          return [f.getBoundingClientRect().height, before];
        });
        expect(Math.abs(final - declared) / final, `${id} at ${width} px: ${declared} then ${final}`).toBeLessThanOrEqual(0.1);
        if (id === 'embed-crash' && width === 390) expect(final, 'the crash section fits in two screens').toBeLessThanOrEqual(2 * 844);
      }
      await context.close();
    }
  });
}

test('loading an experiment from the list brings the player into view', async ({ dist, open }) => {
  const page = await open(dist.url, { viewport: { width: 1280, height: 800 } });
  await page.getByTestId('preset-05').click();
  await expect(page.getByTestId('position')).toHaveText('after step 8 of 8');
  await expect(page.locator('.timeline')).toBeInViewport();
});

test('on a phone a dragged card follows the finger and shows where it will land', async ({ dist, open }) => {
  const page = await open(dist.url, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const lane = page.getByTestId('lane').locator('li.card .id');
  for (let i = 0; i < 3; i++) await page.getByTestId('advance-A').tap();
  await expect(lane).toHaveText(['A1', 'A2', 'A3']);
  const a3 = page.getByTestId('card-A3');
  const a1 = page.getByTestId('card-A1');
  const at = (box) => ({ clientX: box.x + 20, clientY: box.y + box.height / 2 });
  const from = at(await a3.boundingBox());
  const to = at(await a1.boundingBox());
  const finger = { pointerType: 'touch', pointerId: 7, isPrimary: true, bubbles: true, cancelable: true };
  await a3.dispatchEvent('pointerdown', { ...finger, ...from });
  await a3.dispatchEvent('pointermove', { ...finger, ...to });
  // The card is where the finger is, and A1 shows the gap above it.
  await expect(a3).toHaveClass(/lifted/);
  await expect(a3).toHaveAttribute('style', `transform: translateY(${Math.round(to.clientY) - Math.round(from.clientY)}px)`);
  await expect(a1).toHaveClass(/drop-above/);
  await a3.dispatchEvent('pointerup', { ...finger, ...to });
  await expect(lane).toHaveText(['A3', 'A1', 'A2']);
  await expect(a3).not.toHaveClass(/lifted/);
  await expect(page.locator('.card.drop-above, .card.drop-below')).toHaveCount(0);
});

test('the diagram keeps its lanes\' names in view as it scrolls, and no two of its labels overlap', async ({ dist, open }) => {
  for (const lang of ['en', 'zh']) {
    // The ten exits, every row: each crash's words beside what each step says.
    const page = await open(`${dist.url}?preset=9&step=40&lang=${lang}`, { viewport: { width: 1280, height: 900 } });
    await expect(page.getByTestId('position')).toHaveText(lang === 'en' ? 'after step 40 of 40' : '第 40 步之后，共 40 步');
    await expect(page.locator('svg.diagram [data-kind="crash"]')).toHaveCount(10);
    const overlaps = await page.evaluate(() => {
      const boxes = [...document.querySelectorAll('svg.diagram text')].filter((t) => t.textContent.trim())
        .map((t) => [t.textContent, t.getBoundingClientRect()]);
      const out = [];
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, r] = boxes[i];
          const [b, q] = boxes[j];
          // A text's box is its line's, a little taller than its letters: two lines 12 units apart touch, not overlap.
          if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 4 && q.top < r.bottom - 4) out.push(`${a} × ${b}`);
        }
      }
      return out;
    });
    expect(overlaps, lang).toEqual([]);
    // Scrolled down, the lanes' names are still at the top of the diagram's box.
    const scroller = page.locator('.diagram-scroll');
    await scroller.evaluate((el) => { el.scrollTop = 800; });
    await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBeGreaterThan(700);
    const [lanes, box] = await page.evaluate(() => [document.querySelector('svg.lanes').getBoundingClientRect().top,
      document.querySelector('.diagram-scroll').getBoundingClientRect().top]);
    expect(Math.abs(lanes - box)).toBeLessThan(2);
    await expect(page.locator('svg.lanes')).toContainText(lang === 'en' ? 'producer' : '生产端');
  }
});
