// The watch-versus-full differential bench in CI (issue 31, part 2): a few seeded scenarios on
// litecoind -regtest with block filters and one on a pruned node, each step compared on a
// watch-mode service (its own process, restarted and killed) and a full-index one
// (watch-diff.ts). A mismatch fails the test with its seed, step and both values, unless it follows
// from a watch-mode defect the issue names whose fix has not landed yet: those are listed, by
// finding, in the test's output and in KNOWN below, never skipped in silence. The longer soak:
// npm run soak:watch -- --seed N --steps M [--pruned].
import { describe, expect, it } from 'vitest';
import { knownCauses, replayCommand, runScenario, summaryTable, type ScenarioResult } from './watch-diff.ts';

const SCENARIOS = [
  { seed: 31, steps: 10, pruned: false },
  { seed: 32, steps: 10, pruned: false },
  { seed: 33, steps: 4, pruned: true },
];

/**
 * The findings of issue 31 whose mismatches are still expected here until their fixes land: none
 * since h/watch's (findings 4, 5 and 6 were each found by this bench on 46dc801). A finding named
 * here would be printed as a KNOWN FAILURE with its steps, never skipped in silence.
 */
const KNOWN: readonly string[] = [];

const results: ScenarioResult[] = [];

describe('the watch mode equals the full index, step by step', () => {
  for (const s of SCENARIOS) {
    it(`seed ${s.seed}: ${s.steps} steps${s.pruned ? ' on a pruned node' : ''}`, async () => {
      const r = await runScenario({ ...s, log: (line) => (/^(MISMATCH|FAILED)/.test(line) ? console.log(line) : undefined) });
      results.push(r);
      expect(r.failure, r.failure ? `${r.failure.message}; replay: ${replayCommand({ seed: s.seed, step: r.failure.step, pruned: s.pruned })}` : '').toBeNull();
      expect(r.steps).toBe(s.steps);
      const explained = knownCauses(r.mismatches);
      const known = [...new Set(explained.flatMap((e) => (e.known ? [e.known] : [])))];
      for (const k of known) {
        const steps = [...new Set(explained.filter((e) => e.known === k).map((e) => e.mismatch.step))];
        console.log(`KNOWN FAILURE (seed ${s.seed}${s.pruned ? ', pruned' : ''}) ${k}: at steps ${steps.join(', ')}; replay: ${replayCommand({ seed: s.seed, step: steps[0]!, pruned: s.pruned })}`);
      }
      expect(known.filter((k) => !KNOWN.includes(k))).toEqual([]);
      const unexplained = explained.filter((e) => e.known === null).map((e) => `seed ${e.mismatch.seed} step ${e.mismatch.step} (${e.mismatch.action}) ${e.mismatch.wallet}, ${e.mismatch.figure}: watch ${e.mismatch.watch} / full ${e.mismatch.full}`);
      expect(unexplained).toEqual([]);
      expect(r.comparisons).toBeGreaterThan(s.steps * 10);
    }, 600_000);
  }

  it('prints the table', () => {
    console.log(summaryTable(results));
    expect(results).toHaveLength(SCENARIOS.length);
  });
});
