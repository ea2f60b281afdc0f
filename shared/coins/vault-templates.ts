/**
 * The vault templates, built as wsh miniscript in the shapes Liana writes:
 * - recovery keys: M-of-N now, or after T a K-of-R set of recovery keys; several recovery paths
 *   may follow, each with a longer T;
 * - decaying multisig: M-of-N now; after T a lower threshold of the same keys (each later path
 *   derives those keys on another branch pair, <2;3>, <4;5>, so no key appears twice).
 * Shape: the soonest recovery path sits beside the primary path in or_d(primary, and_v(v:rec,
 * older(T1))); each later one wraps it, or_i(and_v(v:rec, older(Tj)), ...), the latest outermost.
 * A one-key set is pk()/pkh(), larger ones multi().
 *
 * T is typed in days (or blocks) and is a BIP68 relative lock by height: 1..65535 blocks. Days turn
 * into blocks by the coin's target block interval (144 a day on bitcoin, 576 on litecoin).
 */
import { describeChain, type ChainParams } from './coin-table.ts';
import { plural } from '../api/words.ts';
import { CoinError } from './errors.ts';
import { MAX_RELATIVE_BLOCKS } from './miniscript.ts';
import { MAX_WITNESS_MULTISIG_KEYS } from './script.ts';
import { checkVault, type VaultKey, type VaultPolicy } from './vault-policy.ts';
import { extendedKeyIdentity } from './xpub.ts';

const DAY_SECONDS = 86_400;

/** A relative timelock as typed: whole days, or blocks. */
export type Timelock = { days: number } | { blocks: number };

export interface KeySet {
  threshold: number;
  keys: readonly VaultKey[];
}

export interface RecoveryPathInput extends KeySet {
  after: Timelock;
}

export interface DecayStep {
  threshold: number;
  after: Timelock;
}

export const blocksPerDay = (params: ChainParams): number => DAY_SECONDS / params.blockSeconds;

/** "1 day", "2.5 days" */
const dayWords = (days: number) => `${Number.isInteger(days) ? days : days.toFixed(1)} day${days === 1 ? '' : 's'}`;

/** Blocks for a typed timelock; out of BIP68's range (1..65535 blocks) refused in words, naming the coin's limit in days. */
export function timelockBlocks(params: ChainParams, after: Timelock): number {
  const perDay = blocksPerDay(params);
  const maxDays = Math.floor(MAX_RELATIVE_BLOCKS / perDay);
  if ('days' in after) {
    const d = after.days;
    if (!Number.isInteger(d) || d < 1) throw new CoinError(`a recovery path opens after a whole number of days, at least 1; got ${String(d)}`, 'days');
    const blocks = d * perDay;
    if (blocks > MAX_RELATIVE_BLOCKS) {
      throw new CoinError(
        `${dayWords(d)} is ${plural(blocks, 'block')} on ${describeChain(params)}; a relative timelock counts at most ${plural(MAX_RELATIVE_BLOCKS, 'block')} (BIP68), ${maxDays} days there`,
        'days',
      );
    }
    return blocks;
  }
  const b = after.blocks;
  if (!Number.isInteger(b) || b < 1 || b > MAX_RELATIVE_BLOCKS) {
    throw new CoinError(`a relative timelock is 1 to ${plural(MAX_RELATIVE_BLOCKS, 'block')} (BIP68), ${maxDays} days on ${describeChain(params)}; got ${String(b)}`, 'blocks');
  }
  return b;
}

/** "26,280 blocks (about 182.5 days)": how a timelock is shown. */
export function describeTimelock(params: ChainParams, blocks: number): string {
  const days = blocks / blocksPerDay(params);
  return `${plural(blocks, 'block')} (about ${dayWords(Math.round(days * 10) / 10)})`;
}

/** One holder's key, however it is written (xpub, Ltub, tpub, zpub...): compared by its public key. */
const sameKey = (a: VaultKey, b: VaultKey) => a.xpub.trim() === b.xpub.trim() || (extendedKeyIdentity(a.xpub) ?? a.xpub) === (extendedKeyIdentity(b.xpub) ?? b.xpub);

function checkSet(set: KeySet, what: string): void {
  const n = set.keys.length;
  if (n === 0) throw new CoinError(`the ${what} has no keys`);
  if (n > MAX_WITNESS_MULTISIG_KEYS) throw new CoinError(`the ${what} has ${n} keys; a P2WSH multi() holds at most ${MAX_WITNESS_MULTISIG_KEYS}`);
  if (!Number.isInteger(set.threshold) || set.threshold < 1 || set.threshold > n) {
    throw new CoinError(`the ${what} needs 1 <= threshold <= ${n} keys; got ${String(set.threshold)}`);
  }
  set.keys.forEach((k, i) => {
    const j = set.keys.findIndex((o) => sameKey(o, k));
    if (j !== i) {
      const how = set.keys[j]!.xpub.trim() === k.xpub.trim() ? '' : ' (the same public key written in another encoding)';
      throw new CoinError(`the ${what} lists key ${i + 1} twice: it is key ${j + 1}${how}; one holder would give two of its signatures`);
    }
  });
}

/** The policy of a primary set and its recovery paths (any order; sorted by T). */
function build(params: ChainParams, primary: KeySet, recovery: readonly RecoveryPathInput[]): VaultPolicy {
  if (!params.segwit) throw new CoinError(`${describeChain(params)} has no segwit: a vault with recovery paths is P2WSH miniscript and cannot be made on it`);
  checkSet(primary, 'primary path');
  if (recovery.length === 0) throw new CoinError('a vault needs at least one recovery path (a plain M-of-N wallet has none)');
  const paths = recovery.map((r, i) => {
    checkSet(r, `recovery path ${i + 1}`);
    return { ...r, blocks: timelockBlocks(params, r.after) };
  });
  paths.sort((a, b) => a.blocks - b.blocks);
  for (let i = 1; i < paths.length; i++) {
    if (paths[i]!.blocks === paths[i - 1]!.blocks) {
      throw new CoinError(`two recovery paths open after the same ${plural(paths[i]!.blocks, 'block')}; give each a different time (or make them one path)`);
    }
  }
  const keys: VaultKey[] = [];
  const uses: number[] = [];
  /** @i/** on a key's first path, @i/<2;3>/* on its second, ... */
  const expr = (k: VaultKey): string => {
    let i = keys.findIndex((o) => sameKey(o, k));
    if (i < 0) {
      i = keys.push({ xpub: k.xpub, fingerprint: k.fingerprint.toLowerCase(), derivationPath: k.derivationPath }) - 1;
      uses.push(0);
    }
    const u = uses[i]!;
    uses[i] = u + 1;
    return u === 0 ? `@${i}/**` : `@${i}/<${2 * u};${2 * u + 1}>/*`;
  };
  const single = (set: KeySet, hashed: boolean) =>
    set.keys.length === 1 ? `${hashed ? 'pkh' : 'pk'}(${expr(set.keys[0]!)})` : `multi(${set.threshold},${set.keys.map(expr).join(',')})`;
  const primaryText = single(primary, false);
  const recoveryText = paths.map((p) => `and_v(v:${single(p, true)},older(${p.blocks}))`);
  let core = `or_d(${primaryText},${recoveryText[0]!})`;
  for (let j = 1; j < recoveryText.length; j++) core = `or_i(${recoveryText[j]!},${core})`;
  const policy: VaultPolicy = { template: `wsh(${core})`, keys };
  checkVault(policy); // sane, or refused in words
  return policy;
}

/** M-of-N now, or after each T its K-of-R set of recovery keys. */
export function recoveryVault(params: ChainParams, primary: KeySet, recovery: readonly RecoveryPathInput[]): VaultPolicy {
  recovery.forEach((r, i) => {
    const shared = r.keys.find((k) => primary.keys.some((p) => sameKey(p, k)));
    if (shared) throw new CoinError(`recovery path ${i + 1} holds a key of the primary path; a recovery key is another key (for a lower threshold of the same keys, make a decaying multisig)`);
  });
  return build(params, primary, recovery);
}

/** M-of-N now; after each T a lower threshold of the same keys. */
export function decayingVault(params: ChainParams, primary: KeySet, steps: readonly DecayStep[]): VaultPolicy {
  const sorted = [...steps].map((s) => ({ ...s, blocks: timelockBlocks(params, s.after) })).sort((a, b) => a.blocks - b.blocks);
  let previous = primary.threshold;
  for (const s of sorted) {
    if (s.threshold >= previous) {
      throw new CoinError(`a decaying multisig lowers its threshold with time: after ${describeTimelock(params, s.blocks)} it needs ${s.threshold}, not fewer than the ${previous} before`);
    }
    previous = s.threshold;
  }
  return build(
    params,
    primary,
    steps.map((s) => ({ threshold: s.threshold, keys: primary.keys, after: s.after })),
  );
}
