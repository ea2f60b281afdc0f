import { describe, expect, it } from 'vitest';
import { MAINNETS, projectToMainnet, projectionLines } from './mainnet-projection.ts';

const bitcoin = MAINNETS[0]!;

describe('projectToMainnet', () => {
  it('a flat curve projects at its rate: 1.2 billion at 10,000 tx/s is 120,000 s on top of what was measured', () => {
    const p = projectToMainnet([{ txs: 100_000, rate: 10_000, bytesPerTx: 200 }, { txs: 1_000_000, rate: 10_000, bytesPerTx: 200 }], 100, bitcoin);
    expect(p.k).toBe(0);
    expect(p.seconds).toBeCloseTo(100 + (1_200_000_000 - 1_000_000) / 10_000, 6);
    expect(p.seconds).toBeCloseTo(p.flatSeconds, 6);
    expect(p.bytes).toBe(240e9);
  });

  it('a curve halving per tenfold size integrates the power law (k = log10 2)', () => {
    const p = projectToMainnet([{ txs: 100_000, rate: 2_000, bytesPerTx: 1000 }, { txs: 1_000_000, rate: 1_000, bytesPerTx: 1000 }], 500, { name: 'ten million', txs: 10_000_000, source: 'test' });
    const k = Math.log10(2);
    expect(p.k).toBeCloseTo(k, 12);
    // r(n) = 1000 (n / 1e6)^-k, so from 1e6 to 1e7 the time is 1e6/1000 x (10^(k+1) - 1)/(k+1).
    expect(p.seconds).toBeCloseTo(500 + 1000 * ((10 ** (k + 1) - 1) / (k + 1)), 6);
    expect(p.seconds).toBeGreaterThan(p.flatSeconds);
    expect(p.arithmetic).toContain('k = -ln(1,000/2,000) / ln(1,000,000/100,000) = 0.301');
  });

  it('a rising curve is taken as flat, and says so', () => {
    const p = projectToMainnet([{ txs: 100_000, rate: 5_000, bytesPerTx: 1400 }, { txs: 1_000_000, rate: 8_000, bytesPerTx: 1300 }], 150, bitcoin);
    expect(p.k).toBe(0);
    expect(p.arithmetic).toContain('a rising curve taken as flat');
  });

  it('prints one line per mainnet with days and terabytes', () => {
    const lines = projectionLines('SQLite', [{ txs: 300_000, rate: 5_212, bytesPerTx: 1_675 }, { txs: 1_000_000, rate: 3_428, bytesPerTx: 1_363 }], 228);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^SQLite -> Bitcoin mainnet \(about 1\.2 billion, the figure issue 26 states\): [\d.]+ days \([\d.]+ days if the last rate held\), 1\.64 TB on disk/);
  });

  it('refuses an empty curve', () => {
    expect(() => projectToMainnet([], 0, bitcoin)).toThrow('no measured points');
  });
});
