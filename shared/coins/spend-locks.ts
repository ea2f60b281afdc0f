// The fields of a spend that say WHEN it may be mined: the version (BIP68 relative locks count only
// from version 2), nLockTime and each input's nSequence. Every signature commits to them (BIP143,
// the legacy digests, ZIP-243/244), so a service that changes them changes what is signed: a
// payment that cannot be mined before some block, and that a treasurer told "the node refuses it"
// pays again, is paid twice once that block comes. This module is the one rule of which values
// each kind of spend carries (docs/file-formats.md, "Version, lock time and sequences"), used by the
// desk's check of the service's answer, the co-signer's check of a signing request, and the words
// `countersign tx inspect` prints. Pure; light (no miniscript), so the CLI loads it offline.
import { plural } from '../api/words.ts';
import type { ChainParams } from './coin-table.ts';
import { SEQUENCE_FINAL, SEQUENCE_REPLACEABLE } from './payment.ts';
import { isZcashTx, type Tx } from './tx.ts';

/** BIP68 and OP_CHECKSEQUENCEVERIFY apply only to transactions of version 2 and above. */
export const RELATIVE_LOCK_TX_VERSION = 2;
/** BIP68: the disable flag, the type flag (512-second units) and the value mask of nSequence. */
export const SEQUENCE_DISABLE_FLAG = 0x80000000;
export const SEQUENCE_TYPE_FLAG = 0x00400000;
export const SEQUENCE_VALUE_MASK = 0x0000ffff;
/** nLockTime below this is a block height, from it on a Unix time (BIP65, Bitcoin Core's LOCKTIME_THRESHOLD). */
export const LOCKTIME_THRESHOLD = 500_000_000;
/** nSequence 0xffffffff: the input is final, and a lone final input switches nLockTime off. */
const FINAL = SEQUENCE_FINAL;

/** The spends the desk makes; a batch and a refresh are payments, a recovery spend any kind on a recovery path. */
export type SpendKind = 'payment' | 'batch' | 'bump' | 'cancel' | 'cpfp' | 'refresh' | 'recovery';

export interface SpendShape {
  /** A miniscript vault's spend (version 2: its recovery paths are BIP68 locks). */
  vault: boolean;
  /** The vault path's older() in blocks; 0 for the primary path and for M-of-N wallets. */
  older: number;
}

/** The exact version, nLockTime and nSequence (the same on every input) of one spend. */
export interface SpendLocks {
  version: number;
  locktime: number;
  sequence: number;
}

/** What a check accepts: the version and nLockTime, and nSequence values (every input alike); `what` names the spend in refusals. */
export interface AcceptedLocks {
  version: number;
  locktime: number;
  sequences: readonly number[];
  what: string;
}

/** The version every spend of the shape carries: the coin's (M-of-N, as the service builds it), 2 for a vault. */
export const spendVersion = (params: ChainParams, shape: SpendShape): number => (shape.vault ? RELATIVE_LOCK_TX_VERSION : params.txVersion);

/**
 * The exact values the desk asks for, per kind. nLockTime is always 0. nSequence: on a vault's
 * recovery path exactly its older() (the least that opens it; more would lock the coins longer than
 * the path says); otherwise a bump or cancel signals replacement (BIP125 0xfffffffd), a CPFP child
 * is final (0xffffffff), a payment, batch or refresh signals it only when `replaceable` (the
 * treasurer's setting, where the coin's nodes relay replacements).
 */
export function canonicalLocks(params: ChainParams, kind: SpendKind, shape: SpendShape, replaceable: boolean): SpendLocks {
  const version = spendVersion(params, shape);
  if (shape.older > 0) return { version, locktime: 0, sequence: shape.older };
  if (kind === 'recovery') throw new RangeError('a recovery spend is on a path with older(N), N > 0');
  const signals = kind === 'bump' || kind === 'cancel' ? true : kind === 'cpfp' ? false : replaceable;
  return { version, locktime: 0, sequence: signals ? SEQUENCE_REPLACEABLE : FINAL };
}

/**
 * What a co-signer accepts: on a recovery path only its older(); otherwise the nSequence the request
 * states (`replaceable`: the spend signals BIP125, or is final), every input alike. A request that
 * does not say (written before the field) accepts the union of the kinds' values, final or replaceable.
 */
export function acceptedLocks(params: ChainParams, shape: SpendShape, replaceable?: boolean): AcceptedLocks {
  const version = spendVersion(params, shape);
  const base = shape.older > 0 ? `a spend on the path that opens after ${plural(shape.older, 'block')}` : shape.vault ? 'a vault spend' : 'a payment of this wallet';
  if (shape.older > 0) return { version, locktime: 0, sequences: [shape.older], what: base };
  if (replaceable === undefined) return { version, locktime: 0, sequences: [FINAL, SEQUENCE_REPLACEABLE], what: base };
  return { version, locktime: 0, sequences: [replaceable ? SEQUENCE_REPLACEABLE : FINAL], what: `${base} that its request says ${replaceable ? 'signals replacement' : 'is final'}` };
}

/** The exact values as an accepted set of one; `what` names the spend ("the fee bump asked for"). */
export const exactly = (l: SpendLocks, what: string): AcceptedLocks => ({ version: l.version, locktime: l.locktime, sequences: [l.sequence], what });

const hex = (n: number) => `0x${n.toString(16)}`;

/** "about 3.5 days", "about 388 days", "about 2 hours". */
function about(seconds: number): string {
  const days = seconds / 86_400;
  if (days >= 1) return `about ${plural(Math.round(days * 10) / 10, 'day')}`;
  const hours = seconds / 3_600;
  if (hours >= 1) return `about ${plural(Math.round(hours * 10) / 10, 'hour')}`;
  return `about ${plural(Math.max(1, Math.round(seconds / 60)), 'minute')}`;
}

/** A Unix time as "2100-01-01 00:00 UTC". */
const utc = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * nLockTime in words: null when it locks nothing (0, or every input final so the node ignores it).
 * `tip`, when known, says how far the block is.
 */
export function absoluteLockWords(params: ChainParams, tx: Tx, tip?: number): string | null {
  if (tx.locktime === 0) return null;
  const ignored = tx.inputs.every((i) => i.sequence === FINAL);
  const off = ignored ? ' (every input is final, so today the node ignores it; it is signed all the same)' : '';
  if (tx.locktime < LOCKTIME_THRESHOLD) {
    // Final in a block above nLockTime (consensus: nLockTime < the block's height).
    const first = tx.locktime + 1;
    const left = tip !== undefined && first > tip + 1 ? first - tip - 1 : null;
    const far = left === null ? '' : ` (${plural(left, 'more block')} must be mined first, ${about(left * params.blockSeconds)})`;
    return `this transaction cannot be mined before block ${first.toLocaleString('en-US')}${far}${off}`;
  }
  return `this transaction cannot be mined before ${utc(tx.locktime)} (by the time of the chain's blocks)${off}`;
}

/** An input's relative lock (BIP68) in words: null when it has none (version below 2, or the disable flag). */
export function relativeLockWords(params: ChainParams, tx: Tx, index: number): string | null {
  const seq = tx.inputs[index]!.sequence;
  if (tx.version < RELATIVE_LOCK_TX_VERSION || isZcashTx(tx) || (seq & SEQUENCE_DISABLE_FLAG) !== 0) return null;
  const value = seq & SEQUENCE_VALUE_MASK;
  if ((seq & SEQUENCE_TYPE_FLAG) !== 0) return `input ${index} is locked for ${about(value * 512)} (${plural(value, 'period')} of 512 seconds) after its coin confirms`;
  if (value === 0) return null;
  return `input ${index} is locked for ${plural(value, 'block')} (${about(value * params.blockSeconds)}) after its coin confirms`;
}

/** Every lock the transaction carries, in words (for a co-signer's screen and `tx inspect`). */
export function lockWords(params: ChainParams, tx: Tx, tip?: number): string[] {
  const absolute = absoluteLockWords(params, tx, tip);
  const relative = tx.inputs.map((_, i) => relativeLockWords(params, tx, i)).filter((w): w is string => w !== null);
  const expiry = isZcashTx(tx) && tx.expiryHeight !== 0 ? [`this transaction expires: it cannot be mined after block ${tx.expiryHeight.toLocaleString('en-US')}`] : [];
  return [...(absolute ? [absolute] : []), ...relative, ...expiry];
}

const sequenceName = (seq: number, older: number | null): string =>
  seq === FINAL ? `${hex(FINAL)} (final)` : seq === SEQUENCE_REPLACEABLE ? `${hex(SEQUENCE_REPLACEABLE)} (replaceable, BIP125)` : older !== null && seq === older ? `${seq} (older(${older}))` : hex(seq);

/**
 * Why the transaction's version, nLockTime or nSequence values are not the accepted ones, each in
 * words that say what the lock would do; empty when they are. Pure.
 */
export function lockProblems(params: ChainParams, tx: Tx, accepted: AcceptedLocks, tip?: number): string[] {
  const { what } = accepted;
  const problems: string[] = [];
  const older = accepted.sequences.length === 1 && accepted.sequences[0]! < SEQUENCE_REPLACEABLE ? accepted.sequences[0]! : null;
  if (tx.version !== accepted.version) {
    const bip68 = accepted.version < RELATIVE_LOCK_TX_VERSION && tx.version >= RELATIVE_LOCK_TX_VERSION ? ' (version 2 turns on relative locks, BIP68)' : '';
    problems.push(`the transaction has version ${tx.version}; ${what} has version ${accepted.version}${bip68}`);
  }
  if (tx.locktime !== accepted.locktime) {
    const words = absoluteLockWords(params, tx, tip) ?? `its nLockTime is ${tx.locktime}`;
    problems.push(`${words}: nLockTime ${tx.locktime.toLocaleString('en-US')}, where ${what} carries ${accepted.locktime} (no lock)`);
  }
  if (isZcashTx(tx) && tx.expiryHeight !== 0) problems.push(`this transaction expires after block ${tx.expiryHeight.toLocaleString('en-US')}; ${what} carries expiry height 0 (never expires)`);
  const want = accepted.sequences.map((s) => sequenceName(s, older)).join(' or ');
  tx.inputs.forEach((input, i) => {
    if (accepted.sequences.includes(input.sequence)) return;
    const lock = relativeLockWords(params, tx, i);
    problems.push(`input ${i} has nSequence ${sequenceName(input.sequence, older)}${lock ? `: ${lock}` : ''}; ${what} spends it with nSequence ${want}`);
  });
  // Every kind puts one value on every input: a mix is no spend of the desk.
  const first = tx.inputs[0]?.sequence;
  if (problems.length === 0 && tx.inputs.some((inp) => inp.sequence !== first)) {
    problems.push(`the inputs carry different nSequence values (${tx.inputs.map((inp) => sequenceName(inp.sequence, older)).join(', ')}); ${what} gives every input the same`);
  }
  return problems;
}
