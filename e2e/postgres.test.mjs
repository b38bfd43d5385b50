// End-to-end: the panel On PostgreSQL shows the interleavings' table from the recording the repository keeps
// (specs/isolation/interleavings.json, which tests/interleave.rs records again and compares with what the server
// answers), each cell's verdict as recorded, and a cell's interleaving as lanes; fetched only as it opens.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect } from './fixtures.mjs';
import { ROOT } from './browser.mjs';

const recording = JSON.parse(fs.readFileSync(path.join(ROOT, 'specs/isolation/interleavings.json'), 'utf8'));
const recorded = (hazard, column) => recording.rows.find((r) => r.hazard === hazard).cells.find((c) => c.column === column);

for (const [lang, width] of [['en', 1280], ['zh', 390]]) {
  test(`On PostgreSQL: the recorded table, and a cell's interleaving in lanes (${lang}, ${width} px)`, async ({ open, dist }) => {
    const page = await open(`${dist.url}?lang=${lang}`, { viewport: { width, height: 900 } });
    const panel = page.getByTestId('pg-panel');
    await expect(panel.locator('summary')).toHaveText(lang === 'zh' ? '在 PostgreSQL 上：单写者所掩盖的东西' : 'On PostgreSQL: what a single writer hides');
    const fetched = () => page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/postgres.json')));
    expect(await fetched(), 'the recording is not in the page until its panel opens').toBe(false);
    await panel.locator('summary').click();
    await expect(page.getByTestId('pg-table')).toBeVisible();
    expect(await fetched()).toBe(true);
    // It says where the runs come from: a real server, named, recorded and shown, not run here.
    const version = recording.postgresql.split(' ')[0];
    await expect(panel.locator('.note').first())
      .toContainText(lang === 'zh' ? `PostgreSQL 服务器（${version}）` : `PostgreSQL server (${version})`);
    await expect(panel).toContainText(lang === 'zh' ? '这里只是展示，并不运行' : 'are shown here, not run');
    // Every cell as recorded, in the page's words.
    expect(recording.rows.length).toBe(13);
    for (const row of recording.rows) {
      for (const cell of row.cells) {
        const button = page.getByTestId(`pg-cell-${row.hazard}-${cell.column}`);
        await expect(button).toHaveAttribute('data-verdict', cell.verdict);
        await expect(button).toHaveText(lang === 'zh' ? { holds: '成立', breaks: '被破坏' }[cell.verdict] : cell.verdict);
      }
    }
    // The first broken cell is drawn at once; another on a click: its steps in the order they ran, and what broke.
    const lanes = page.getByTestId('pg-permutation');
    await expect(lanes).toBeVisible();
    const mark = page.getByTestId('pg-cell-mark-by-predicate-wrong-read-committed');
    await mark.click();
    await expect(mark).toHaveAttribute('aria-pressed', 'true');
    const broken = recorded('mark-by-predicate-wrong', 'read-committed');
    await expect(lanes.locator(".pg-line strong")).toHaveText(broken.run.lines.map((l) => l.step));
    // What broke, in the page's language (the recording keeps the core's English).
    await expect(lanes.locator('li.breaks')).toContainText(lang === 'zh' ? 'A2 已标为 accepted，但 inbox 里没有它' : broken.run.check.no_loss);
    await expect(lanes.locator('figcaption')).toContainText(lang === 'zh' ? 'READ COMMITTED' : 'on READ COMMITTED');
    // A step that waited for a lock, then answered: the inbox's second receiver under READ COMMITTED.
    await page.getByTestId('pg-cell-inbox-conflict-protocol-read-committed').click();
    await expect(lanes.locator('.pg-line.waiting')).toHaveCount(1);
    await expect(lanes.locator('.pg-line.waiting')).toContainText(lang === 'zh' ? '等待锁' : 'waiting for a lock');
    await expect(lanes).toContainText(lang === 'zh' ? '拿到锁' : 'got the lock');
    // On SQLite, the lost update's order cannot happen: the cell holds, draws an order that ran to its end (the
    // second worker waiting for the writer), and says how many could not.
    await page.getByTestId('pg-cell-double-apply-wrong-sqlite').click();
    await expect(lanes.locator('.pg-line.waiting')).toHaveCount(1);
    await expect(lanes.locator('.pg-line.cannot')).toHaveCount(0);
    await expect(lanes).toContainText(lang === 'zh' ? '3 个交错中有 1 个在这里不可能发生' : '1 of the 3 interleavings cannot happen here');
    // A phone reads one lane, each line named by its session; a wider screen a lane per session.
    const who = lanes.locator('.who').first();
    if (width < 600) await expect(who).toBeVisible();
    else {
      await expect(who).toBeHidden();
      await expect(lanes.locator('.lane-head')).toHaveText(recording.rows.find((r) => r.hazard === 'double-apply-wrong').sessions);
    }
    // A public design, checked by its own outbox's queries: two relays without a claim deliver each row twice.
    await page.getByTestId('pg-cell-two-relays-wrong-read-committed').click();
    await expect(lanes.locator('li.breaks')).toContainText(lang === 'zh' ? 'order-1/1 送达了 2 次' : 'order-1/1 delivered 2 times');
    await expect(lanes.locator('li.breaks code')).toHaveText('duplicates');
    await expect(page.getByTestId('pg-cell-protocol-relay-protocol-read-committed')).toHaveAttribute('data-verdict', 'holds');
    await expect(panel).toContainText(lang === 'zh' ? '公开的设计：两个不认领就发送的 relay' : 'Public design: two relays without a claim');
  });
}
