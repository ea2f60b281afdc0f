// npm run soak:watch -- [--seed N] [--steps M] [--seeds K] [--pruned]: the watch-versus-full
// differential bench (dev/desk-testing/watch-diff.ts) for as long as asked: K scenarios from seed N
// (default: a seed from the clock, printed), M steps each. Every mismatch is printed with its seed
// and step and the command that replays it; the closing table counts scenarios, steps, comparisons
// and mismatches. Exit code 1 on any mismatch or a scenario that could not go on.
import { parseArgs } from 'node:util';
import { knownCauses, replayCommand, runScenario, summaryTable, type ScenarioResult } from '../dev/desk-testing/watch-diff.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    steps: { type: 'string', default: '60' },
    seeds: { type: 'string', default: '1' },
    pruned: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});
const whole = (name: string, text: string | undefined, fallback: number): number => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} takes a whole number, not "${text}"`);
  return n;
};
const first = whole('seed', values.seed, Date.now() % 1_000_000);
const steps = whole('steps', values.steps, 60);
const seeds = whole('seeds', values.seeds, 1);
const results: ScenarioResult[] = [];
for (let seed = first; seed < first + seeds; seed++) {
  console.log(`scenario: seed ${seed}, ${steps} steps${values.pruned ? ', pruned node' : ''}`);
  const r = await runScenario({ seed, steps, pruned: values.pruned, log: (line) => (values.quiet && !/^(MISMATCH|FAILED)/.test(line) ? undefined : console.log(line)) });
  results.push(r);
  // One line a figure that went wrong: where it first did (the step to replay to), and how often.
  const firsts = new Map<string, { m: (typeof r.mismatches)[number]; count: number }>();
  for (const { mismatch: m, known } of knownCauses(r.mismatches)) {
    const key = `${m.wallet}: ${m.figure} (${known ? `known, ${known}` : 'NOT a known defect'})`;
    const seen = firsts.get(key);
    if (seen) seen.count++;
    else firsts.set(key, { m, count: 1 });
  }
  for (const [key, { m, count }] of firsts) console.log(`mismatch: ${key}, first at seed ${m.seed} step ${m.step} (${m.action}), at ${count} ${count === 1 ? 'step' : 'steps'}; replay: ${replayCommand(m)}`);
  if (r.failure) console.log(`seed ${seed} stopped at step ${r.failure.step} (${r.failure.action}): ${r.failure.message}; replay: ${replayCommand({ seed, step: r.failure.step, pruned: r.pruned })}`);
}
console.log(summaryTable(results));
process.exitCode = results.some((r) => r.mismatches.length > 0 || r.failure) ? 1 : 0;
