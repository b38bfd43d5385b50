// End-to-end: the space-time diagram — its marks read against the event log, the crash cut, the broken step,
// travelling by click and by keyboard, the exported SVG and PNG, and the phone's tab.
import fs from 'node:fs';
import { test, expect } from './fixtures.mjs';

const VIEW = { viewport: { width: 1280, height: 900 } };
const position = (page) => page.getByTestId('position');
const diagram = (page) => page.getByTestId('diagram');

/** The event log, oldest first: [command, result] per step, as the reader reads it. */
async function log(page) {
  const rows = await page.getByTestId('event-log').locator('li').evaluateAll((lis) => lis.map((li) =>
    [li.querySelector('code').textContent, li.querySelector('strong').textContent]));
  return rows.reverse();
}

test('one arrow per relay with its receipt, and each apply with its result, as the event log says', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('preset-03').click();
  await expect(position(page)).toHaveText(/after step (\d+) of \1/);
  const steps = await log(page);
  const relays = steps.flatMap(([cmd, result], i) => (cmd.startsWith('relay') ? [[i, result]] : []));
  expect(relays.length).toBeGreaterThan(2);
  const marks = diagram(page).locator('[data-kind="relay"]');
  await expect(marks).toHaveCount(relays.length);
  for (const [n, [i, result]] of relays.entries()) {
    const mark = marks.nth(n);
    await expect(mark).toHaveAttribute('data-result', result);
    await expect(diagram(page).locator(`[data-step="${i}"] [data-kind="relay"]`)).toHaveCount(1);
    await expect(mark).toContainText(result);
  }
  const applies = steps.flatMap(([cmd, result], i) => (/^(apply|process_all)/.test(cmd) ? [[i, result]] : []));
  await expect(diagram(page).locator('[data-kind="apply"]')).toHaveCount(applies.length);
  for (const [i, result] of applies) {
    await expect(diagram(page).locator(`[data-step="${i}"] [data-kind="apply"]`)).toHaveAttribute('data-result', result);
  }
  // The gap says the flow waits; the drain names what it applied and the new last_seq.
  await expect(diagram(page).locator('[data-kind="apply"][data-result="gap"]').first()).toContainText('gap');
  await expect(diagram(page).locator('[data-kind="apply"][data-result="applied"]').last()).toContainText('last_seq 3');
  // Nothing broke: no violation mark.
  await expect(diagram(page).locator('[data-kind="violation"]')).toHaveCount(0);
});

test('a crash is a red cut at its step naming the boundary; a restart follows it', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('advance-A').click();
  await page.getByTestId('deliver-next').click();
  await page.getByTestId('crash-select').selectOption('apply.after_effect');
  await page.getByTestId('apply-A').click();
  const crash = diagram(page).locator('[data-kind="crash"]');
  await expect(crash).toHaveCount(1);
  await expect(crash).toHaveAttribute('data-boundary', 'apply.after_effect');
  await expect(diagram(page).locator('[data-step="2"] [data-kind="crash"]')).toContainText('9. apply.after_effect');
  await expect(crash).toContainText('rolled back');
  await expect(diagram(page).locator('[data-kind="restart"]')).toHaveCount(0);
  await page.getByTestId('restart').click();
  // A restart precedes the step to come: it carries that step's index, before and after the step exists.
  await expect(diagram(page).locator('[data-kind="restart"]')).toHaveCount(1);
  await expect(diagram(page).locator('[data-kind="restart"]')).toHaveAttribute('data-step', '3');
  await page.getByTestId('apply-A').click();
  await expect(diagram(page).locator('[data-kind="restart"]')).toHaveAttribute('data-step', '3');
  await expect(diagram(page).locator('[data-step="3"] [data-kind="apply"]')).toHaveAttribute('data-result', 'applied');
});

test('the first broken step is marked; a click and Enter travel in time; pointing shows the SQL', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('preset-05').click();
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'false');
  const total = (await log(page)).length;
  const violation = diagram(page).locator('[data-kind="violation"]');
  await expect(violation).toHaveCount(1);
  const row = violation.locator('xpath=..');
  const broke = Number(await row.getAttribute('data-step'));
  expect(broke).toBeLessThan(total);
  // Later steps are dimmed once the reader travels back; the current one is highlighted.
  await diagram(page).locator('[data-step="1"]').first().click();
  await expect(position(page)).toHaveText(`after step 2 of ${total}`);
  await expect(diagram(page).locator('.row.now')).toHaveAttribute('data-step', '1');
  await expect(diagram(page).locator('.row.later')).toHaveCount(total - 2);
  // Still marked in the future: the history broke there.
  await expect(violation).toHaveCount(1);
  // Before the break the invariant holds, and nothing needs explaining.
  await expect(page.getByTestId('invariant')).toHaveAttribute('data-holds', 'true');
  await expect(page.getByTestId('explain')).toHaveCount(0);
  // Keyboard: the rows are focusable, Enter travels, and the focus stays on the row after the redraw.
  await page.mouse.move(0, 0);
  await diagram(page).locator(`[data-step="${broke}"]`).first().focus();
  await page.keyboard.press('Enter');
  await expect(position(page)).toHaveText(`after step ${broke + 1} of ${total}`);
  await expect(diagram(page).locator(`[data-step="${broke}"]`).first()).toBeFocused();
  // At the broken step, a paragraph says why, naming the step; in Chinese too.
  const why = page.getByTestId('invariant').getByTestId('explain');
  await expect(why).toContainText(`Step ${broke + 1} (`);
  await expect(why).toContainText('gap');
  // Focus (or hover) names the step, its result and the SQL it ran.
  const detail = page.getByTestId('diagram-detail');
  await expect(detail).toContainText(`${broke + 1}`);
  await expect(detail.locator('.statements li').first()).toBeVisible();
  await diagram(page).locator('[data-step="0"]').first().hover();
  await expect(detail).toContainText('advance A1');
  await page.getByTestId('lang-switch').click();
  await expect(why).toContainText(`第 ${broke + 1} 步`);
  await expect(why).toContainText('released（释放）');
});

test('the current row\'s highlight spans the panel, wider than the diagram or narrower', async ({ dist, open }) => {
  // At 960 px an embed's panel is wider than the diagram (42rem at most); at 360 px the diagram scrolls sideways.
  for (const [width, address] of [[960, '?embed&view=wire,diagram,log&preset=3'], [360, '?preset=3']]) {
    const page = await open(`${dist.url}${address}`, { viewport: { width, height: 900 } });
    if (width === 360) await page.getByTestId('tab-diagram').click();
    await diagram(page).locator('[data-step="3"]').first().click();
    await expect(diagram(page).locator('.row.now')).toHaveAttribute('data-step', '3');
    await page.mouse.move(0, 0);
    const e = await page.evaluate(() => {
      const box = document.querySelector('.diagram-scroll');
      const svg = document.querySelector('svg.diagram').getBoundingClientRect();
      const now = document.querySelector('svg.diagram .row.now .band').getBoundingClientRect();
      const edge = box.getBoundingClientRect();
      return { svg: svg.width, svgRight: svg.right, now: now.right, left: now.left, right: edge.right, boxLeft: edge.left,
        scroll: box.scrollWidth, client: box.clientWidth };
    });
    if (width === 960) expect(e.svgRight).toBeLessThan(e.right - 100); // the diagram stops short of the edge
    expect(e.now, `${width} px`).toBeGreaterThanOrEqual(Math.min(e.right, e.svgRight) - 1); // its highlight does not
    expect(e.left).toBeLessThanOrEqual(e.boxLeft + 1);
    // And it makes no scrollbar of its own: what scrolls is the diagram's own width.
    expect(e.scroll).toBeLessThanOrEqual(Math.max(e.client, Math.ceil(e.svg)));
  }
});

test('Save writes a standalone SVG that parses, carries no script, and a PNG', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('preset-09').click();
  const [svgFile] = await Promise.all([page.waitForEvent('download'), page.getByTestId('diagram-export').click()]);
  expect(svgFile.suggestedFilename()).toBe('outbox-playground-en.svg');
  const text = fs.readFileSync(await svgFile.path(), 'utf8');
  const parsed = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    const all = [...doc.querySelectorAll('*')];
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: doc.documentElement.localName,
      scripts: doc.querySelectorAll('script').length,
      handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
      crashes: doc.querySelectorAll('[data-kind="crash"]').length,
      rows: doc.querySelectorAll('[data-step]').length,
      style: doc.querySelector('style')?.textContent.length ?? 0,
    };
  }, text);
  expect(parsed.error).toBeNull();
  expect(parsed.root).toBe('svg');
  expect(parsed.scripts).toBe(0);
  expect(parsed.handlers).toEqual([]);
  expect(parsed.crashes).toBe(10);
  expect(parsed.style).toBeGreaterThan(100);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('diagram-export-png').click()]);
  expect(png.suggestedFilename()).toBe('outbox-playground-en.png');
  const bytes = fs.readFileSync(await png.path());
  expect([...bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
  expect(bytes.length).toBeGreaterThan(5000);
});

test('on a phone the diagram is a tab beside the tables, in Chinese with the article\'s words', async ({ dist, open }) => {
  const page = await open(dist.url, { locale: 'zh-CN', viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true });
  await page.getByTestId('advance-A').click();
  await expect(diagram(page)).toBeHidden();
  await page.getByTestId('tab-diagram').click();
  await expect(diagram(page)).toBeVisible();
  await expect(page.getByTestId('effect-log')).toBeHidden();
  await expect(diagram(page)).toContainText('reserved（预留）');
  await expect(diagram(page)).toContainText('生产端');
  await page.getByTestId('tab-tables').click();
  await expect(diagram(page)).toBeHidden();
});
