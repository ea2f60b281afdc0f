import { describe, expect, it } from 'vitest';
import {
  Rng,
  SCRIPT_MIX,
  pickPayment,
  probeEntries,
  probeSchedule,
  probeSpends,
  probeTarget,
  sampleScriptType,
  sampleShape,
  zipfCdf,
  zipfRank,
  type ScriptType,
} from './scale-plan.ts';

const N = 200_000;

describe('the scale chain plan', () => {
  it('is the same sequence for the same seed and another for another seed', () => {
    const draw = (seed: string): number[] => {
      const rng = new Rng(seed);
      return Array.from({ length: 20 }, () => rng.next());
    };
    expect(draw('a')).toEqual(draw('a'));
    expect(draw('a')).not.toEqual(draw('b'));
    const shapes = (seed: string): unknown[] => {
      const rng = new Rng(seed);
      return Array.from({ length: 50 }, () => sampleShape(rng));
    };
    expect(shapes('s')).toEqual(shapes('s'));
  });

  it('draws uniform numbers in [0, 1) and integers within their bounds', () => {
    const rng = new Rng('uniform');
    let sum = 0;
    let outside = 0;
    for (let i = 0; i < N; i++) {
      const u = rng.next();
      if (!(u >= 0 && u < 1)) outside++;
      sum += u;
    }
    expect(outside).toBe(0);
    expect(sum / N).toBeGreaterThan(0.49);
    expect(sum / N).toBeLessThan(0.51);
    const ints = new Set(Array.from({ length: 1000 }, () => rng.int(3, 5)));
    expect([...ints].sort()).toEqual([3, 4, 5]);
  });

  it('mixes output script types near 45/15/25/15', () => {
    const rng = new Rng('mix');
    const counts: Record<ScriptType, number> = { p2pkh: 0, p2sh: 0, p2wpkh: 0, p2wsh: 0 };
    for (let i = 0; i < N; i++) counts[sampleScriptType(rng)]++;
    for (const type of Object.keys(counts) as ScriptType[]) {
      expect(Math.abs(counts[type] / N - SCRIPT_MIX[type])).toBeLessThan(0.01);
    }
  });

  it('shapes transactions like mainnet: mostly 1-2 in / payment + change, 2% consolidations, 2% fan-outs', () => {
    const rng = new Rng('shape');
    let inputs = 0;
    let outputs = 0;
    let small = 0;
    let outOfBounds = 0;
    const kinds = { simple: 0, consolidation: 0, fanout: 0 };
    for (let i = 0; i < N; i++) {
      const s = sampleShape(rng);
      kinds[s.kind]++;
      inputs += s.inputs;
      outputs += s.payments + (s.change ? 1 : 0);
      if (s.kind === 'consolidation' && !(s.inputs >= 20 && s.inputs <= 50)) outOfBounds++;
      if (s.kind === 'fanout' && !(s.payments >= 20 && s.payments <= 100)) outOfBounds++;
      if (s.kind === 'simple' && !(s.inputs >= 1 && s.inputs <= 10)) outOfBounds++;
      if (s.kind === 'simple' && s.inputs <= 2) small++;
    }
    expect(outOfBounds).toBe(0);
    expect(kinds.consolidation / N).toBeCloseTo(0.02, 2);
    expect(kinds.fanout / N).toBeCloseTo(0.02, 2);
    expect(small / N).toBeGreaterThan(0.85);
    expect(inputs / N).toBeGreaterThan(1.8);
    expect(inputs / N).toBeLessThan(2.3);
    expect(outputs / N).toBeGreaterThan(2.3);
    expect(outputs / N).toBeLessThan(2.8);
  });

  it('sends half the payments to fresh scripts and ranks the hot set heavy-tailed', () => {
    const rng = new Rng('pay');
    const cdf = zipfCdf(1000, 1);
    expect(zipfRank(cdf, 0)).toBe(0);
    expect(zipfRank(cdf, 1)).toBe(999);
    const kinds = { fresh: 0, hot: 0, earlier: 0 };
    const ranks = new Array<number>(1000).fill(0);
    for (let i = 0; i < N; i++) {
      const pick = pickPayment(rng, cdf);
      kinds[pick.kind]++;
      if (pick.kind === 'hot') ranks[pick.rank]!++;
    }
    expect(kinds.fresh / N).toBeCloseTo(0.5, 1);
    expect(kinds.hot / N).toBeCloseTo(0.2, 1);
    // Zipf(1): rank 0 is paid about ten times as often as rank 9, a hundred times rank 99.
    expect(ranks[0]! / ranks[9]!).toBeGreaterThan(7);
    expect(ranks[0]! / ranks[9]!).toBeLessThan(14);
  });

  it('places exactly the probe entries, never two probes in one transaction, inside the chain', () => {
    const entries = probeEntries(1_000_000);
    expect(entries).toEqual({ small: 10, large: 10_000 });
    expect(probeEntries(3_000)).toEqual({ small: 10, large: 30 });
    const at = probeSchedule(950_000, entries);
    const counted = { small: 0, large: 0 };
    for (const [i, name] of at) {
      counted[name]++;
      expect(i).toBeLessThan(950_000 * 0.9 + 1);
    }
    expect(counted).toEqual(entries);
    expect(() => probeSchedule(100, entries)).toThrow(/too few transactions/);
  });

  it("keeps a probe's unspent set near a few hundred coins over 10,000 entries", () => {
    const rng = new Rng('probe');
    const target = probeTarget(10_000);
    let unspent = 0;
    let spends = 0;
    for (let e = 1; e <= 10_000; e++) {
      if (probeSpends(rng, unspent, target, e === 10_000)) {
        unspent -= Math.min(unspent, rng.int(1, 3));
        spends++;
      } else {
        unspent++;
      }
    }
    expect(unspent).toBeGreaterThan(100);
    expect(unspent).toBeLessThan(1000);
    expect(spends).toBeGreaterThan(2000);
  });
});
