// The BIP158 matcher's speed: the watch index asks it about every block from a wallet's birthday.
// Filters shaped like the scale chain's full blocks (about 6,000 elements), a wallet of 70 scripts
// (two branches at gap limit 20 and more as addresses get used); the first (BigInt) matcher and
// the current one over the same filters in turns, best of rounds. Their answers must agree.
import { randomBytes } from 'node:crypto';
import { basicFilterMatchesAny, encodeBasicFilter } from '../../shared/coins/block-filter.ts';
import { basicFilterMatchesAnyBigInt } from '../../shared/coins/fixtures/block-filter-bigint.ts';

export interface FilterMatchResult {
  filters: number;
  elements: number;
  scripts: number;
  /** Filters matched per second, best round. */
  bigintPerSec: number;
  currentPerSec: number;
}

export function benchFilterMatch(opts: { filters?: number; elements?: number; scripts?: number; rounds?: number } = {}): FilterMatchResult {
  const count = opts.filters ?? 40;
  const elements = opts.elements ?? 6_000;
  const scriptCount = opts.scripts ?? 70;
  const rounds = opts.rounds ?? 5;
  const blocks = Array.from({ length: count }, () => {
    const hash = randomBytes(32).toString('hex');
    const items = Array.from({ length: elements }, () => new Uint8Array(randomBytes(22 + (randomBytes(1)[0]! % 13))));
    return { hash, filter: encodeBasicFilter(hash, items), items };
  });
  const scripts = Array.from({ length: scriptCount }, () => new Uint8Array(randomBytes(34)));
  // One wallet script is in every fourth block: those walks stop early, as they do on a real chain.
  blocks.forEach((b, i) => {
    if (i % 4 === 0) b.filter = encodeBasicFilter(b.hash, [...b.items, scripts[i % scriptCount]!]);
  });
  const run = (match: typeof basicFilterMatchesAny): { ms: number; answers: boolean[] } => {
    const started = performance.now();
    const answers = blocks.map((b) => match(b.filter, b.hash, scripts));
    return { ms: performance.now() - started, answers };
  };
  let bigintMs = Infinity;
  let currentMs = Infinity;
  for (let r = 0; r < rounds; r++) {
    const old = run(basicFilterMatchesAnyBigInt);
    const now = run(basicFilterMatchesAny);
    if (old.answers.some((a, i) => a !== now.answers[i])) throw new Error('the BigInt and the current BIP158 matcher disagree on a filter');
    bigintMs = Math.min(bigintMs, old.ms);
    currentMs = Math.min(currentMs, now.ms);
  }
  return { filters: count, elements, scripts: scriptCount, bigintPerSec: (count * 1000) / bigintMs, currentPerSec: (count * 1000) / currentMs };
}
