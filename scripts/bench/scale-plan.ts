// The pure half of the mainnet-shaped bench chain (scale-chain.ts): a seeded random source, the
// shape of each transaction, where payments go, and when the two probe addresses are touched.
// Nothing here does I/O, so the shape can be checked without a node.
import { sha256 } from '../../shared/coins/index.ts';

/** xoshiro128** seeded from sha256(seed): fast, 32-bit, and the same sequence on every machine. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    const h = sha256(new TextEncoder().encode(`countersign scale rng ${seed}`));
    const v = new DataView(h.buffer, h.byteOffset, h.byteLength);
    this.a = v.getUint32(0) | 1;
    this.b = v.getUint32(4);
    this.c = v.getUint32(8);
    this.d = v.getUint32(12);
  }

  private u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

export type ScriptType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh';
export const SCRIPT_TYPES: readonly ScriptType[] = ['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh'];

/** Share of fresh scripts per type (P2SH and P2WSH are 2-of-3 multisig). */
export const SCRIPT_MIX: Readonly<Record<ScriptType, number>> = { p2pkh: 0.45, p2sh: 0.15, p2wpkh: 0.25, p2wsh: 0.15 };

export function sampleScriptType(rng: Rng): ScriptType {
  let u = rng.next();
  for (const type of SCRIPT_TYPES) {
    u -= SCRIPT_MIX[type];
    if (u < 0) return type;
  }
  return 'p2wsh';
}

export type TxKind = 'simple' | 'consolidation' | 'fanout';

export interface TxShape {
  kind: TxKind;
  inputs: number;
  /** Payment outputs, change not included. */
  payments: number;
  change: boolean;
}

export const CONSOLIDATION_SHARE = 0.02;
export const FANOUT_SHARE = 0.02;

/**
 * Mainnet-like fan-in and fan-out: most payments spend 1-2 coins into payment + change, a few
 * spend 3-10, 2% are consolidations of 20-50 coins and 2% pay 20-100 outputs. The tails are
 * skewed towards their low ends (as on mainnet), which keeps the means near 2 in / 2.6 out.
 */
export function sampleShape(rng: Rng): TxShape {
  const r = rng.next();
  if (r < CONSOLIDATION_SHARE) {
    return { kind: 'consolidation', inputs: 20 + Math.floor(31 * rng.next() ** 2), payments: 1, change: false };
  }
  if (r < CONSOLIDATION_SHARE + FANOUT_SHARE) {
    return { kind: 'fanout', inputs: rng.int(1, 2), payments: 20 + Math.floor(81 * rng.next() ** 3), change: true };
  }
  const u = rng.next();
  const inputs = u < 0.75 ? 1 : u < 0.93 ? 2 : rng.int(3, 10);
  return { kind: 'simple', inputs, payments: 1, change: rng.next() < 0.85 };
}

/** Where a payment output goes: half to scripts never paid before, half reuse (heavy-tailed). */
export const FRESH_PAYMENT_SHARE = 0.5;
/** Of the reused payments, the share drawn from a fixed Zipf-ranked hot set (exchanges, merchants). */
export const HOT_SHARE_OF_REUSE = 0.4;
/** The rest of the reuse picks an earlier payment output's script: popularity grows with use. */
export const HOT_SET_SIZE = 1000;
export const ZIPF_EXPONENT = 1.0;
/** Change goes to a fresh script this often, else back to the first input's script. */
export const FRESH_CHANGE_SHARE = 0.8;

/** Cumulative Zipf weights over ranks 0..n-1. */
export function zipfCdf(n: number, exponent: number): Float64Array {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** exponent;
    cdf[k] = sum;
  }
  for (let k = 0; k < n; k++) cdf[k]! /= sum;
  return cdf;
}

/** The rank whose cumulative weight first reaches u (binary search). */
export function zipfRank(cdf: Float64Array, u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export type PaymentPick = { kind: 'fresh' } | { kind: 'hot'; rank: number } | { kind: 'earlier'; u: number };

/** A payment destination: fresh, a hot-set rank, or a uniform pick `u` over earlier payment outputs. */
export function pickPayment(rng: Rng, hotCdf: Float64Array): PaymentPick {
  if (rng.next() < FRESH_PAYMENT_SHARE) return { kind: 'fresh' };
  if (rng.next() < HOT_SHARE_OF_REUSE) return { kind: 'hot', rank: zipfRank(hotCdf, rng.next()) };
  return { kind: 'earlier', u: rng.next() };
}

export type ProbeName = 'small' | 'large';

/** History sizes of the probes: 10 and 10,000 at 1M transactions, smaller chains scale `large` down. */
export function probeEntries(txs: number): Record<ProbeName, number> {
  return { small: 10, large: Math.max(20, Math.min(10_000, Math.floor(txs / 100))) };
}

/**
 * The regular-transaction indices touching each probe: spread evenly over the first 90% of the
 * estimated count (the real count may come out a little lower, as blocks close by weight), never
 * two probes in one transaction, so each index is exactly one history entry of one probe.
 */
export function probeSchedule(regularEstimate: number, entries: Record<ProbeName, number>): Map<number, ProbeName> {
  const span = Math.floor(regularEstimate * 0.9);
  if (span < 2 * (entries.small + entries.large)) {
    throw new Error(`too few transactions (${regularEstimate}) for probes of ${entries.small} and ${entries.large} entries`);
  }
  const at = new Map<number, ProbeName>();
  const place = (name: ProbeName, count: number, offset: number): void => {
    for (let k = 0; k < count; k++) {
      let i = Math.floor(((k + offset) * span) / count);
      while (at.has(i)) i++;
      at.set(i, name);
    }
  };
  place('large', entries.large, 0.5);
  place('small', entries.small, 0.25);
  return at;
}

/**
 * Whether a probe event spends (else it receives). Spending gets likelier as unspent coins pile up
 * past `target`, so the unspent set hovers near target/2; the last event always receives so
 * the probe ends with a balance.
 */
export function probeSpends(rng: Rng, unspent: number, target: number, last: boolean): boolean {
  if (last || unspent === 0) return false;
  return rng.next() < unspent / (unspent + target);
}

/** The unspent level a probe's spends aim at: a few hundred for 10,000 entries. */
export function probeTarget(entries: number): number {
  return Math.max(2, Math.round(entries * 0.06));
}
