// What the checker's end-to-end tests share: the CLI's word on a configuration, and the page agreeing with it.
import { execFileSync } from 'node:child_process';
import { expect, ROOT } from './fixtures.mjs';

export const VIEW = { viewport: { width: 1280, height: 900 } };
// A search of the default configuration takes seconds, longer on a slow machine.
export const SEARCH = { timeout: 240_000 };

/**
 * `experiments check --json` for the same knobs: the CLI's word on the configuration. Asked before the page
 * runs its own search, so the two never compete for the machine while the page is measured.
 */
export function cli(knobs) {
  const args = ['run', '--release', '--quiet', '--bin', 'experiments', '--', 'check', '--json', '--threads', '1'];
  // A flag (`symmetry: true`) is the flag alone; `false` leaves it out.
  for (const [k, v] of Object.entries(knobs)) {
    if (v === true) args.push(`--${k}`);
    else if (v !== '' && v !== false) args.push(`--${k}`, String(v));
  }
  try {
    return JSON.parse(execFileSync('cargo', args, { cwd: ROOT, encoding: 'utf8' }));
  } catch (e) {
    // Exit 1 is a violation: the document is still on stdout. Anything else is a failure to report as it is.
    if (e.status !== 1) throw e;
    return JSON.parse(e.stdout);
  }
}

export async function setKnobs(page, knobs) {
  for (const k of ['flows', 'events', 'resends', 'crashes', 'consumer', 'producer', 'power-cuts', 'synchronous']) {
    // The CLI's `--power-cuts` is the page's `power_cuts` knob.
    if (knobs[k] !== undefined) await page.getByTestId(`check-${k.replace('-', '_')}`).selectOption(String(knobs[k]));
  }
  if (knobs.symmetry !== undefined) await page.getByTestId('check-symmetry').setChecked(knobs.symmetry);
  await page.getByTestId('check-schema2').fill(knobs.schema2 ?? '');
  await page.getByTestId('check-schema2').dispatchEvent('change');
}

/** Waits for the page's result to show what the CLI found for the same configuration: verdict and counts. */
export async function expectSameAsCli(page, want, { transitions = true } = {}) {
  const result = page.getByTestId('check-result');
  await expect(result).toHaveAttribute('data-verdict', want.verdict, SEARCH);
  await expect(result).toHaveAttribute('data-states', String(want.counts.states));
  if (transitions) await expect(result).toHaveAttribute('data-transitions', String(want.counts.transitions));
  if (want.verdict === 'violated') {
    await expect(result).toHaveAttribute('data-property', want.property);
    await expect(result).toHaveAttribute('data-length', String(want.counterexample.steps.length));
  }
  await expect(result).toHaveAttribute('data-elapsed-ms', /^\d+$/);
}
