// End-to-end: break-it levels (issue 56). Each level is won by following the hints alone in exactly the par
// the CLI's checker gives; a longer win says its count beside the par and circles the step; the bet is quoted
// back; the protocol's level is proven with the CLI's state count; a reader's rule becomes a challenge link;
// progress survives a reload, a file and a browser that keeps nothing; and all of it in Chinese too.
import { test, expect, experiments } from './fixtures.mjs';
import { cli } from './checker-shared.mjs';
import fs from 'node:fs';

const VIEW = { viewport: { width: 1280, height: 900 } };

/** The CLI's own verdict on every level file: `{ id: par }`, the unbreakable one's state count under `states`. */
function cliLevels() {
  const out = experiments(['levels', '--check']);
  const pars = {};
  for (const line of out.split('\n')) {
    const broken = line.match(/^ok\s+\S+: (\S+) \(.*\): \S+ broken in (\d+) move/);
    if (broken) pars[broken[1]] = Number(broken[2]);
    const safe = line.match(/^ok\s+\S+: (\S+) \(.*\): unbreakable, (\d+) states/);
    if (safe) pars[safe[1]] = { states: Number(safe[2]) };
  }
  return pars;
}

async function openLevel(open, url, options = VIEW) {
  const page = await open(url, options);
  await expect(page.getByTestId('level-claim')).toBeVisible();
  return page;
}

/** Presses Hint until the exact move shows (one stage a press), makes it, and returns the move's TRACE.md words. */
async function followHint(page) {
  const text = page.getByTestId('level-hint-text');
  const shown = await text.count() ? Number(await text.getAttribute('data-stage')) : 0;
  for (let stage = shown + 1; stage <= 3; stage++) {
    await page.getByTestId('level-hint').click();
    await expect(text).toHaveAttribute('data-stage', String(stage));
  }
  const move = await text.getAttribute('data-move');
  const before = Number(await page.getByTestId('level-moves').innerText());
  await page.getByTestId('level-hint-do').click();
  await expect(page.getByTestId('level-moves')).toHaveText(String(before + 1));
  return move;
}

test('every level is won by following the hints alone, in exactly the par the CLI finds', async ({ dist, open }) => {
  test.setTimeout(600_000);
  const pars = cliLevels();
  const ids = Object.keys(pars);
  expect(ids.length).toBeGreaterThanOrEqual(8);
  for (const [i, id] of ids.entries()) {
    const page = await openLevel(open, `${dist.url}?level=${i + 1}`);
    await expect(page.getByTestId(`level-${id}`)).toHaveAttribute('aria-current', 'page');
    await page.getByTestId('level-bet-skip').click();
    if (typeof pars[id] === 'object') {
      // The protocol: no hint gives the proof away before the reader's first move; after it, the hint says
      // nothing breaks it from there, with the states it checked (the proof's own count is *I give up*'s test).
      await page.getByTestId('level-hint').click();
      await expect(page.getByTestId('level-hint-text')).toHaveText('Make a first move: the hint then answers from where you stand.');
      await page.getByTestId('advance-A').click();
      await page.getByTestId('level-hint').click();
      await expect(page.getByTestId('level-hint-text'))
        .toHaveText(/^Nothing within this level's bounds breaks it from here any more \(\d+ states checked\)/);
      await page.context().close();
      continue;
    }
    await expect(page.getByTestId('level-par')).toHaveText(`par ${pars[id]}`);
    const made = [];
    while (await page.getByTestId('level-win').count() === 0) {
      made.push(await followHint(page));
      expect(made.length, `${id}: ${made.join(', ')}`).toBeLessThanOrEqual(pars[id]);
    }
    const win = page.getByTestId('level-win');
    await expect(win).toHaveAttribute('data-moves', String(pars[id]));
    await expect(win).toHaveAttribute('data-par', String(pars[id]));
    await expect(win).toContainText(`Broken in ${pars[id]} moves: the par.`);
    await page.context().close();
  }
});

test('a longer win gives its count beside the par, names the property and the step, circles it, and quotes the bet', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=8`);
  await page.getByTestId('level-bet-break').click();
  await page.getByTestId('level-bet-no_loss').click();
  await expect(page.getByTestId('level-bet')).toHaveText('You bet it breaks “no committed event is lost”.');
  // The level's setup is said above the moves, and its budget instead of a control that vanishes.
  await expect(page.getByTestId('level-setup')).toContainText('synchronous = NORMAL');
  const cuts = page.getByTestId('level-budget').locator('[data-budget="power_cuts"]');
  await expect(cuts).toHaveText('· power cuts left: 1 of 1');
  // A checkpoint first: the cut then loses only what the relay commits after it.
  for (const [id, n] of [['advance-A', 1], ['checkpoint', 2], ['relay-A1', 3], ['power-cut-consumer', 4]]) {
    await page.getByTestId(id).click();
    await expect(page.getByTestId('level-moves')).toHaveText(String(n));
  }
  await expect(cuts).toHaveAttribute('data-left', '0');
  const win = page.getByTestId('level-win');
  // The history starts with `set_synchronous`, which is no move: the cut is step 5.
  await expect(win).toHaveAttribute('data-property', 'no_loss');
  await expect(win).toHaveAttribute('data-step', '5');
  await expect(win).toHaveAttribute('data-moves', '4');
  await expect(win).toHaveAttribute('data-par', '3');
  // Said in moves, as the count beside it is: the setup step is not the reader's.
  await expect(win).toContainText('Broken at move 4: “no committed event is lost”. Broken in 4 moves; the shortest is 3.');
  await expect(page.getByTestId('level-bet-quote')).toHaveText('You bet it breaks “no committed event is lost”. Your bet was right.');
  await expect(page.getByTestId('level-explain')).toHaveAttribute('data-property', 'no_loss');
  await expect(page.getByTestId('level-explain')).toContainText('no committed event is lost');
  // The diagram circles the step that broke it.
  await expect(page.locator('g[data-step="4"] [data-kind="violation"]')).toHaveCount(1);
  await expect(page.locator('[data-kind="violation"]')).toHaveCount(1);
  // Time travel in the diagram takes the moves after the step clicked back, as Undo does.
  await page.locator('g[data-step="2"]').click();
  await expect(page.getByTestId('level-moves')).toHaveText('2');
  await expect(page.getByTestId('level-win')).toHaveCount(0);
  await expect(page.getByTestId('inbox-row-A1')).toHaveCount(0);
  for (const id of ['relay-A1', 'power-cut-consumer']) await page.getByTestId(id).click();
  await expect(win).toHaveAttribute('data-moves', '4');
  // No more moves once it is broken; undo takes the cut back and the referee's verdict with it.
  await expect(page.getByTestId('power-cut-consumer')).toHaveCount(0);
  await page.getByTestId('level-undo').click();
  await expect(page.getByTestId('level-win')).toHaveCount(0);
  await expect(page.getByTestId('level-moves')).toHaveText('3');
  await expect(page.getByTestId('power-cut-consumer')).toBeVisible();
  await page.getByTestId('level-restart').click();
  await expect(page.getByTestId('level-moves')).toHaveText('0');
  await expect(page.getByTestId('inbox-row-A1')).toHaveCount(0);
});

test('a wrong bet is quoted back; a hint from a detour is the fewest moves from there', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=3`);
  await page.getByTestId('level-bet-hold').click();
  await expect(page.getByTestId('level-bet')).toHaveText('You bet it holds.');
  // A detour: A1 delivered first, so "greater than 0" takes A1 and the short way is gone.
  for (const id of ['advance-A', 'relay-A1', 'apply-A']) await page.getByTestId(id).click();
  await expect(page.getByTestId('level-moves')).toHaveText('3');
  // Nothing breaks it from here: A1 is applied, and A2 can only come next. The page says so unasked.
  const dead = page.getByTestId('level-deadend');
  await expect(dead).toContainText('From here, nothing within this level\'s bounds breaks it any more');
  await page.getByTestId('level-deadend-restart').click();
  await expect(page.getByTestId('level-moves')).toHaveText('0');
  await expect(dead).toHaveCount(0);
  while (await page.getByTestId('level-win').count() === 0) await followHint(page);
  await expect(page.getByTestId('level-bet-quote')).toHaveText('You bet it holds: it did not.');
});

test('the protocol cannot be broken: I give up answers with the proof and the CLI\'s state count', async ({ dist, open }) => {
  const knobs = { flows: 2, events: 3, resends: 1, crashes: 1, consumer: 'strict', producer: 'atomic' };
  const want = cli(knobs);
  expect(want.verdict).toBe('holds');
  const page = await openLevel(open, `${dist.url}?level=strict`);
  await page.getByTestId('level-bet-hold').click();
  // Play as long as one likes: a few moves, none of which breaks it.
  for (const id of ['advance-A', 'advance-B', 'relay-B1']) await page.getByTestId(id).click();
  await expect(page.getByTestId('level-win')).toHaveCount(0);
  await expect(page.getByTestId('level-strict')).toHaveAttribute('data-solved', 'false');
  await page.getByTestId('level-giveup').click();
  const proof = page.getByTestId('level-proof');
  await expect(proof).toHaveAttribute('data-states', String(want.counts.states), { timeout: 60_000 });
  await expect(proof).toHaveAttribute('data-transitions', String(want.counts.transitions));
  await expect(proof).toHaveText(`Enumerated: every arrival order and every exit, ${want.counts.states} states and ${want.counts.transitions} transitions, as experiments check counts them on the same bounds. None breaks it.`);
  await expect(page.getByTestId('level-proof-bounds'))
    .toHaveText('The bounds: 2 flows × 3 events each, 1 resend, 1 exit of the process, at any of the ten boundaries.');
  const link = page.getByTestId('level-proof-link');
  await expect(link).toHaveText('The article, §9');
  await expect(link).toHaveAttribute('href', /^https:\/\/ai-knowledgepoints\.cn\/blog\//);
  await expect(page.getByTestId('level-bet-quote')).toHaveText('You bet it holds: right.');
  // A right bet that it holds, confirmed by the proof, solves the level: the set can be completed.
  await expect(page.getByTestId('level-strict')).toHaveAttribute('data-solved', 'true');
  await expect(page.getByTestId('bets-right')).toHaveAttribute('data-right', '1');
});

test('on the unbreakable level a bet that it breaks, proven wrong, does not solve it', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=strict`);
  await page.getByTestId('level-bet-break').click();
  await page.getByTestId('level-giveup').click();
  await expect(page.getByTestId('level-bet-quote')).toHaveText('You bet it breaks: within these bounds, it does not.', { timeout: 60_000 });
  await expect(page.getByTestId('level-strict')).toHaveAttribute('data-solved', 'false');
  await expect(page.getByTestId('bets-right')).toHaveAttribute('data-right', '0');
  await expect(page.getByTestId('bets-right')).toHaveAttribute('data-total', '1');
});

test('a reader\'s rule becomes a challenge link; the link opens it as a level, and a hand-edited one says what is wrong', async ({ dist, open }) => {
  const page = await open(dist.url, VIEW);
  await page.getByTestId('rule-start-greater_than').click();
  await page.getByTestId('level-challenge').click();
  const link = page.getByTestId('level-challenge-link');
  await expect(link).toBeVisible();
  const href = await link.getAttribute('href');
  expect(href).toMatch(/#level=[A-Za-z0-9_-]+$/);

  const level = await openLevel(open, href);
  await expect(level.getByTestId('level-claim')).toContainText('This rule applies a flow\'s events in order');
  await level.getByTestId('level-bet-break').click();
  await level.getByTestId('level-bet-consumer_invariant').click();
  while (await level.getByTestId('level-win').count() === 0) await followHint(level);
  const win = level.getByTestId('level-win');
  await expect(win).toHaveAttribute('data-property', 'consumer_invariant');
  // The par is the checker's own, on the challenge's bounds.
  const moves = await win.getAttribute('data-moves');
  await expect(win).toHaveAttribute('data-par', moves);

  const edited = href.replace(/#level=(.{10})/, (_, s) => `#level=${s.split('').reverse().join('')}`);
  const bad = await open(edited, VIEW);
  await expect(bad.getByTestId('level-error')).toContainText('the challenge link:');
  await expect(bad.getByTestId('level-claim')).toHaveCount(0);
  // On the Chinese page the refusal is Chinese, the offending value kept.
  const badZh = await open(edited.replace('#', '?lang=zh#'), VIEW);
  await expect(badZh.getByTestId('level-error')).toContainText('挑战链接：');
  await expect(badZh.getByTestId('level-error')).not.toContainText('the challenge link');
});

test('progress stays across a reload, goes out to a file and back into a fresh browser', async ({ dist, open }, testInfo) => {
  const page = await openLevel(open, `${dist.url}?level=1`);
  await expect(page.getByTestId('level-dual-write')).toHaveAttribute('data-solved', 'false');
  await page.getByTestId('level-bet-break').click();
  await page.getByTestId('level-bet-no_loss').click();
  await page.getByTestId('unsafe-A').click();
  await expect(page.getByTestId('level-win')).toHaveAttribute('data-property', 'no_loss');
  await expect(page.getByTestId('level-dual-write')).toHaveAttribute('data-solved', 'true');
  await page.reload();
  await expect(page.getByTestId('level-dual-write')).toHaveAttribute('data-solved', 'true');
  await expect(page.getByTestId('level-dual-write')).toContainText('best 1');
  await expect(page.getByTestId('progress-note')).toHaveAttribute('data-kept', 'true');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('progress-export').click()]);
  const file = testInfo.outputPath('progress.json');
  await download.saveAs(file);
  const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(saved.levels['dual-write']).toEqual({ solved: true, best: 1, bet: 'break:no_loss' });

  const fresh = await openLevel(open, `${dist.url}?level=2`);
  await expect(fresh.getByTestId('level-dual-write')).toHaveAttribute('data-solved', 'false');
  await fresh.getByTestId('progress-import').setInputFiles(file);
  await expect(fresh.getByTestId('progress-message')).toHaveText('Progress imported: 1 level(s).');
  await expect(fresh.getByTestId('level-dual-write')).toHaveAttribute('data-solved', 'true');
  // A file that is not progress changes nothing and says what is wrong.
  const wrong = testInfo.outputPath('wrong.json');
  fs.writeFileSync(wrong, JSON.stringify({ format: 'outbox-playground-progress/1', levels: { x: { best: -1 } } }));
  await fresh.getByTestId('progress-import').setInputFiles(wrong);
  await expect(fresh.getByTestId('progress-message')).toContainText('level `x`: field `best`');
  await expect(fresh.getByTestId('level-dual-write')).toHaveAttribute('data-solved', 'true');
  const zh = await openLevel(open, `${dist.url}?level=2&lang=zh`);
  await zh.getByTestId('progress-import').setInputFiles(wrong);
  await expect(zh.getByTestId('progress-message')).toContainText('关卡 `x`：字段 `best` 必须是步数，实际是 -1');
});

test('where the browser keeps nothing, the level still plays and says its progress lasts this view', async ({ dist, open }) => {
  const init = () => Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('blocked', 'SecurityError'); } });
  const page = await openLevel(open, `${dist.url}?level=1`, { ...VIEW, init });
  await expect(page.getByTestId('progress-note')).toHaveAttribute('data-kept', 'false');
  await page.getByTestId('level-bet-skip').click();
  await page.getByTestId('unsafe-A').click();
  await expect(page.getByTestId('level-dual-write')).toHaveAttribute('data-solved', 'true');
});

test('a level in Chinese: its claim, hints and verdict in the article\'s words; an unknown level is named', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=2&lang=zh`);
  await expect(page.getByTestId('level-claim')).toContainText('断言');
  await page.getByTestId('level-bet-skip').click();
  await expect(page.getByTestId('level-bet')).toHaveText('你没有押注。');
  await page.getByTestId('level-hint').click();
  await expect(page.getByTestId('level-hint-text')).toContainText('可以被打破');
  while (await page.getByTestId('level-win').count() === 0) await followHint(page);
  await expect(page.getByTestId('level-win')).toContainText('正好是标准杆');
  await expect(page.getByTestId('level-win')).not.toContainText('Broken');
  // The promise that broke, in words, its identifier kept in the attribute.
  await expect(page.getByTestId('level-win')).toContainText('每个流程按顺序应用、每个事件只应用一次');
  await expect(page.getByTestId('level-explain')).toHaveAttribute('data-property', 'consumer_invariant');
  // Every link between levels keeps the page's language, whatever the browser's.
  await expect(page.getByTestId('level-next')).toHaveAttribute('href', '?level=3&lang=zh');
  await expect(page.getByTestId('level-dedupe-only')).toHaveAttribute('href', '?level=2&lang=zh');
  await expect(page.getByTestId('level-leave')).toHaveAttribute('href', './?lang=zh');

  const unknown = await open(`${dist.url}?level=99`, VIEW);
  await expect(unknown.getByTestId('level-error')).toHaveText('There is no level 99: the levels are 1–8.');
});

test('a level embeds in an article: Copy embed code writes level=, and the embed plays it', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=3`);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-embed').click();
  await expect(page.getByTestId('embed-code')).toHaveValue(/\?embed&level=3&lang=en"/);
  const embed = await openLevel(open, `${dist.url}?embed&level=3`);
  await expect(embed.getByTestId('level-leave')).toHaveCount(0);
  await expect(embed.getByTestId('mode-select')).toHaveCount(0);
  await embed.getByTestId('level-bet-skip').click();
  while (await embed.getByTestId('level-win').count() === 0) await followHint(embed);
  await expect(embed.getByTestId('level-next')).toHaveAttribute('href', '?embed&level=4&lang=en');
});

test('each level says what the reader must make happen, under the claim, in the page\'s language', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=2`);
  await expect(page.getByTestId('level-goal')).toHaveText('Your goal: Make the consumer apply A2 before A1, with no event duplicated.');
  const zh = await openLevel(open, `${dist.url}?level=2&lang=zh`);
  await expect(zh.getByTestId('level-goal')).toHaveText('你的目标: 让消费者在 A1 之前应用 A2，而且没有任何事件重复。');
  // The goal stands between the claim and the bet, before any move.
  const order = await zh.evaluate(() => ['level-claim', 'level-goal', 'level-bet-hold']
    .map((id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect().top));
  expect(order[0]).toBeLessThan(order[1]);
  expect(order[1]).toBeLessThan(order[2]);
});

test('It breaks alone is a bet, kept through the moves and counted right; naming the promise is optional', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=2`);
  await expect(page.getByTestId('bets-right')).toHaveText('Your bets: none decided yet (a bet counts once you have seen the answer).');
  await page.getByTestId('level-bet-break').click();
  const bet = page.getByTestId('level-bet');
  await expect(bet).toHaveText('You bet it breaks.');
  await expect(bet).toHaveAttribute('data-bet', 'break');
  // Not counted before the answer is seen: the count would give it away.
  await expect(page.getByTestId('bets-right')).toHaveAttribute('data-total', '0');
  // The promises are offered in words, each with its identifier; the reader may skip them.
  await expect(page.getByTestId('level-bet-no_loss')).toHaveText('no committed event is lost');
  await expect(page.getByTestId('level-bet-consumer_invariant')).toHaveText('each flow applied in order, each event once');
  while (await page.getByTestId('level-win').count() === 0) await followHint(page);
  await expect(bet).toHaveText('You bet it breaks.');
  await expect(page.getByTestId('level-bet-quote')).toHaveText('You bet it breaks. Your bet was right.');
  await expect(page.getByTestId('bets-right')).toHaveAttribute('data-right', '1');
  await expect(page.getByTestId('bets-right')).toHaveAttribute('data-total', '1');
  await expect(page.getByTestId('bets-right')).toHaveText('Your bets: 1 of 1 right (counted once you have seen the answer).');
});

test('a move that makes the level unwinnable is said at once, with the ways back, without a hint', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=1`);
  await page.getByTestId('level-bet-skip').click();
  // The safe produce first: its outbox row is written with the state, and the one exit left cannot lose it.
  await page.getByTestId('advance-A').click();
  const dead = page.getByTestId('level-deadend');
  await expect(dead).toContainText('nothing within this level\'s bounds breaks it any more');
  await expect(page.getByTestId('level-hint-text')).toHaveCount(0);
  await page.getByTestId('level-deadend-undo').click();
  await expect(page.getByTestId('level-moves')).toHaveText('0');
  await expect(dead).toHaveCount(0);
  await page.getByTestId('unsafe-A').click();
  await expect(page.getByTestId('level-win')).toHaveAttribute('data-property', 'no_loss');
  await expect(dead).toHaveCount(0);
});

test('the code under attack: the level\'s own SQL beside the moves, the lines a move ran lit, an exit\'s cut marked', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=strict`);
  const code = page.getByTestId('level-code');
  // Before any move: the consumer's apply transaction, statement by statement; nothing lit.
  const apply = code.locator('details[data-kind="apply"]');
  await expect(apply).toHaveJSProperty('open', true);
  await expect(apply.getByTestId('level-code-line').first()).toContainText('BEGIN IMMEDIATE');
  await expect(apply.getByTestId('level-code-line').last()).toContainText('COMMIT');
  await expect(code.locator('[data-ran="true"]')).toHaveCount(0);
  await page.getByTestId('level-bet-skip').click();
  await page.getByTestId('advance-A').click();
  await page.getByTestId('relay-A1').click();
  const relay = code.locator('details[data-kind="relay"]');
  await expect(relay.locator('[data-testid="level-code-line"][data-ran="true"]', { hasText: 'INSERT INTO inbox' })).toHaveCount(1);
  // An apply that exits after the effect: lit up to the applied mark, cut there, its COMMIT never run.
  await page.getByTestId('crash-select').selectOption('apply.after_effect');
  await page.getByTestId('apply-A').click();
  const cut = apply.locator('[data-cut="true"]');
  await expect(cut).toHaveCount(1);
  await expect(cut).toContainText("UPDATE inbox SET state='applied'");
  await expect(cut).toContainText('the process exits here (9. apply.after_effect)');
  await expect(apply.locator('[data-ran="true"]', { hasText: 'INSERT INTO effect' })).toHaveCount(1);
  await expect(apply.getByTestId('level-code-line').last()).toHaveAttribute('data-ran', 'false');
  await expect(relay.locator('[data-ran="true"]')).toHaveCount(0);
});

test('a rule\'s level shows the rule\'s SQL as the code under attack, lit when the apply asks it', async ({ dist, open }) => {
  const page = await openLevel(open, `${dist.url}?level=6`);
  const rule = page.getByTestId('level-code').locator('details[data-kind="rule"]');
  await expect(rule).toHaveJSProperty('open', true);
  await expect(rule).toContainText('ORDER BY arrival');
  await page.getByTestId('level-bet-skip').click();
  for (const id of ['advance-A', 'relay-A1']) await page.getByTestId(id).click();
  await expect(rule.locator('[data-ran="true"]')).toHaveCount(0);
  await page.getByTestId('apply-A').click();
  await expect(rule.locator('[data-ran="true"]')).toHaveCount(await rule.getByTestId('level-code-line').count());
});

test('the main page shows the levels with the reader\'s progress, and each experiment links to the levels of its section', async ({ dist, open }) => {
  const progress = JSON.stringify({ format: 'outbox-playground-progress/1', levels: { 'dual-write': { solved: true, best: 1 } } });
  const init = (text) => localStorage.setItem('outbox-playground:progress', text);
  const page = await open(dist.url, { ...VIEW, init, initArg: progress });
  const entry = page.getByTestId('levels-entry');
  await expect(entry).toBeVisible();
  await expect(entry.locator('a')).toHaveCount(8);
  await expect(page.getByTestId('levels-entry-dual-write')).toHaveAttribute('data-solved', 'true');
  await expect(page.getByTestId('levels-entry-dual-write')).toHaveAttribute('href', '?level=1&lang=en');
  await expect(page.getByTestId('levels-entry-strict')).toHaveAttribute('data-solved', 'false');
  await expect(entry).toContainText('1 of 8 solved in this browser.');
  await expect(page.getByTestId('experiment-05-levels').locator('a').first()).toHaveAttribute('href', '?level=2&lang=en');
  await expect(page.getByTestId('experiment-01-levels')).toContainText('level 1');
  await expect(page.getByTestId('experiment-07-levels')).toHaveCount(0);
  await page.getByTestId('levels-entry-strict').click();
  await expect(page.getByTestId('level-claim')).toBeVisible();
  const zh = await open(`${dist.url}?lang=zh`, VIEW);
  await expect(zh.getByTestId('levels-entry-dual-write')).toHaveAttribute('href', '?level=1&lang=zh');
  await expect(zh.getByTestId('levels-entry')).toContainText('亲手打破它');
});

test('before any move, level 2 says what to make happen and which code is attacked, in both languages', async ({ dist, open }) => {
  for (const [lang, goal, heading] of [['en', 'Make the consumer apply A2 before A1', 'The code under attack'], ['zh', '让消费者在 A1 之前应用 A2', '被攻击的代码']]) {
    const page = await openLevel(open, `${dist.url}?level=2&lang=${lang}`);
    await expect(page.getByTestId('level-goal')).toContainText(goal);
    const code = page.getByTestId('level-code');
    await expect(code).toContainText(heading);
    // The dedupe-only consumer applies as it receives: its receive is the code attacked, open from the start.
    await expect(code.locator('details[data-kind="relay"]')).toHaveJSProperty('open', true);
    await expect(code.locator('details[data-kind="relay"]')).toContainText('INSERT INTO effect');
    await expect(page.getByTestId('level-moves')).toHaveText('0');
  }
});

test('a move that changes nothing says so, and no bet is taken once the answer is on screen', async ({ dist, open }) => {
  // The dedupe-only consumer applies as it receives: its apply has nothing to do, and says it.
  const page = await openLevel(open, `${dist.url}?level=2`);
  await page.getByTestId('level-bet-skip').click();
  for (const id of ['advance-A', 'relay-A1']) await page.getByTestId(id).click();
  await expect(page.getByTestId('apply-A')).toHaveAttribute('data-idle', 'true');
  await expect(page.getByTestId('apply-A')).toContainText('changes nothing here');
  await expect(page.getByTestId('advance-A')).toHaveAttribute('data-idle', 'false');
  // I give up before a bet: the answer is shown, and the bet is closed, here and after a reload.
  const other = await openLevel(open, `${dist.url}?level=3`);
  await other.getByTestId('level-giveup').click();
  await expect(other.getByTestId('level-proof')).toContainText('It can be broken', { timeout: 60_000 });
  await expect(other.getByTestId('level-bet')).toHaveAttribute('data-bet', 'closed');
  await expect(other.getByTestId('level-bet-hold')).toHaveCount(0);
  await other.reload();
  await expect(other.getByTestId('level-bet')).toHaveAttribute('data-bet', 'closed');
});
