// Spends of wsh() miniscripts with concrete keys (issue 27): the witness script, the spending paths
// and the non-malleable witnesses a set of signatures allows. Every call into the miniscript library
// goes through the desk's one wrapper (./miniscript.ts), which takes key names: the hex keys are
// named K0, K1, ... for it and named back here.
import { encodeCompactSize, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { compileVaultMiniscript, miniscriptSatisfactions, miniscriptWitnessScript } from './miniscript.ts';
import { SEQUENCE_TYPE_FLAG } from './spend-locks.ts';
import { plural } from '../api/words.ts';
import { signingSets, type VaultPath } from './vault-policy.ts';

/** BIP68's flags and mask of nSequence: the one rule of the lock fields holds them (spend-locks.ts). */
export { SEQUENCE_DISABLE_FLAG, SEQUENCE_TYPE_FLAG, SEQUENCE_VALUE_MASK } from './spend-locks.ts';

const KEY_HEX = /^0[23][0-9a-f]{64}$/;
const FRAGMENT = /([a-z][a-z0-9_]*)\(/g;
const SERVED = new Set(['pk', 'pkh', 'pk_k', 'pk_h', 'multi', 'older', 'and_v', 'and_b', 'and_n', 'andor', 'or_b', 'or_c', 'or_d', 'or_i', 'thresh']);

export interface CompiledMiniscript {
  /** The miniscript, lower-case keys, without wsh() or checksum. */
  miniscript: string;
  witnessScript: Uint8Array;
  /** The compressed keys, in the order they first appear. */
  keys: string[];
}

/** One item of a witness: bytes, or the signature of a key (hex) still to be placed. */
export type WitnessItem = Uint8Array | { signatureOf: string };

export interface Satisfaction {
  /** Bottom of the stack first, without the witness script. */
  stack: WitnessItem[];
  /** The relative timelock (BIP68 nSequence) this satisfaction needs, null for none. */
  older: number | null;
}

export interface MiniscriptPath {
  index: number;
  /** Blocks the coin must be deep (relative timelock), null for a path without one. */
  older: number | null;
  /** Keys that can sign on this path (hex), in miniscript order. */
  keys: string[];
  /** The fewest signatures a satisfaction of this path holds. */
  signatures: number;
  /** The largest witness of this path in bytes (item count, items, the script), 73-byte signatures. */
  largestWitness: number;
}

/**
 * Compiles a wsh miniscript whose keys are compressed public keys in hex. Refused in words: a
 * miniscript the library cannot read, one that is not sane (malleable, mixed timelocks, a path
 * without a signature, a repeated key), a fragment this extension does not serve (hash locks,
 * absolute timelocks), a relative timelock in 512-second units.
 */
export function compileWshMiniscript(text: string, field = 'miniscript'): CompiledMiniscript {
  const miniscript = text.trim().toLowerCase();
  for (const [, name] of miniscript.matchAll(FRAGMENT)) {
    if (!SERVED.has(name!)) throw new CoinError(`${field}: the fragment ${name}() is not served by this extension (keys, multi, thresh, older and their combinations are)`, field);
  }
  const names = [...miniscript.matchAll(/\b(?:pk|pkh|pk_k|pk_h)\(([^)]*)\)/g)].map((m) => m[1]!);
  for (const m of miniscript.matchAll(/\bmulti\(([^)]*)\)/g)) names.push(...m[1]!.split(',').slice(1));
  const keys = [...new Set(names.map((k) => k.trim()))];
  for (const k of keys) if (!KEY_HEX.test(k)) throw new CoinError(`${field}: ${k.slice(0, 80)} is not a compressed public key in hex (this extension takes concrete keys)`, field);
  for (const [, n] of miniscript.matchAll(/\bolder\((\d+)\)/g)) {
    if ((Number(n) & SEQUENCE_TYPE_FLAG) !== 0) throw new CoinError(`${field}: older(${n}) counts 512-second units; this extension serves relative timelocks in blocks`, field);
  }
  const named = namedMiniscript(miniscript, keys);
  try {
    const witnessScript = miniscriptWitnessScript(compileVaultMiniscript(named), Object.fromEntries(keys.map((k, i) => [keyName(i), hexToBytes(k)])));
    return { miniscript, witnessScript, keys };
  } catch (err) {
    if (err instanceof CoinError) throw new CoinError(`${field}: ${err.message}`, field);
    throw err;
  }
}

const keyName = (index: number) => `K${index}`;
const KEY_IN_TEXT = /\b0[23][0-9a-f]{64}\b/g;

/** The miniscript with each hex key replaced by its name for the wrapper. */
function namedMiniscript(miniscript: string, keys: readonly string[]): string {
  return miniscript.replace(KEY_IN_TEXT, (k) => keyName(keys.indexOf(k)));
}

function satisfactionsOf(compiled: CompiledMiniscript, knownKeys: readonly string[], oneSet = false): Satisfaction[] {
  const byName = new Map(compiled.keys.map((k, i) => [keyName(i), k]));
  const named = namedMiniscript(compiled.miniscript, compiled.keys);
  let sats;
  try {
    sats = miniscriptSatisfactions(named, knownKeys.map((k) => keyName(compiled.keys.indexOf(k))), oneSet);
  } catch (err) {
    throw new CoinError(`the miniscript's satisfactions cannot be listed: ${(err as Error).message}`);
  }
  return sats.map((s) => ({
    stack: s.asm.split(' ').filter((t) => t.length > 0).map((t) => witnessToken(t, byName)),
    older: s.sequence === 0 ? null : s.sequence,
  }));
}

function witnessToken(token: string, byName: ReadonlyMap<string, string>): WitnessItem {
  if (token === '0') return new Uint8Array(0);
  if (token === '1') return Uint8Array.of(1);
  const sig = byName.get(/^<sig\(([A-Za-z0-9_]+)\)>$/.exec(token)?.[1] ?? '');
  if (sig !== undefined) return { signatureOf: sig };
  const key = byName.get(/^<([A-Za-z0-9_]+)>$/.exec(token)?.[1] ?? '');
  if (key !== undefined) return hexToBytes(key);
  throw new CoinError(`a satisfaction needs ${token}, which this extension does not provide`);
}

const SIG_ITEM = 73; // 72-byte DER + hash type: the largest low-S signature

/** Witness bytes: item count, each item length-prefixed, then the witness script. */
export function witnessSize(stack: readonly WitnessItem[], witnessScript: Uint8Array, signatureLength: (key: string) => number = () => SIG_ITEM): number {
  const items = stack.map((i) => (i instanceof Uint8Array ? i.length : signatureLength(i.signatureOf)));
  return [...items, witnessScript.length].reduce((sum, n) => sum + encodeCompactSize(n).length + n, encodeCompactSize(stack.length + 1).length);
}

/**
 * The miniscript's signing sets (which keys, how many, after how many blocks), read from its
 * structure; null for a shape that reading does not cover, whose satisfactions are then listed
 * whole (the library stops at 1,000: only small miniscripts).
 */
function setsOf(compiled: CompiledMiniscript): VaultPath[] | null {
  try {
    return signingSets(compiled.miniscript);
  } catch (err) {
    if (err instanceof CoinError) return null;
    throw err;
  }
}

const olderOf = (blocks: number): number | null => (blocks === 0 ? null : blocks);
const signaturesIn = (s: Satisfaction) => s.stack.filter((i) => !(i instanceof Uint8Array)).length;

/**
 * The spending paths: satisfactions grouped by the relative timelock they need, the one without a
 * timelock first, then by ascending timelock. A path's keys are the keys its satisfactions sign
 * with. The satisfier is asked once per signing set with only as many of its keys as it needs
 * (the others unknown), so a thresh() or multi() over many keys is listed in one witness, not in
 * every combination of its keys (thresh(2 of 8) alone has more than the library's 1,000).
 */
export function miniscriptPaths(compiled: CompiledMiniscript): MiniscriptPath[] {
  const sets = setsOf(compiled);
  const groups = new Map<number | null, { keys: Set<string>; sats: Satisfaction[] }>();
  const group = (older: number | null) => groups.get(older) ?? groups.set(older, { keys: new Set(), sats: [] }).get(older)!;
  if (sets === null) {
    for (const s of satisfactionsOf(compiled, compiled.keys)) {
      const g = group(s.older);
      g.sats.push(s);
      for (const i of s.stack) if (!(i instanceof Uint8Array)) g.keys.add(i.signatureOf);
    }
  } else {
    for (const set of sets) {
      const older = olderOf(set.blocks);
      // All keys of a set weigh the same in its witness (a signature where a dissatisfaction
      // would stand), so the set's first `threshold` keys give its witnesses' sizes.
      const sats = satisfactionsOf(compiled, set.keys.slice(0, set.threshold), true).filter((s) => s.older === older);
      if (sats.length === 0) throw new CoinError(`internal error: ${set.threshold} of ${set.keys.length} keys after ${plural(set.blocks, 'block')} has no satisfaction`);
      const g = group(older);
      g.sats.push(...sats);
      for (const k of set.keys) g.keys.add(k);
    }
  }
  const olders = [...groups.keys()].sort((a, b) => (a === null ? -1 : b === null ? 1 : a - b));
  return olders.map((older, index) => {
    const { keys, sats } = groups.get(older)!;
    return {
      index,
      older,
      keys: compiled.keys.filter((k) => keys.has(k)),
      signatures: Math.min(...sats.map(signaturesIn)),
      largestWitness: Math.max(...sats.map((s) => witnessSize(s.stack, compiled.witnessScript))),
    };
  });
}

/**
 * The non-malleable satisfactions of `path` that the keys with a signature allow, cheapest first
 * by their real sizes (the signatures' own lengths). Per signing set, only its shortest
 * signatures, as many as it needs, are offered to the satisfier: more would only list more
 * combinations of the same witness.
 */
export function pathSatisfactions(compiled: CompiledMiniscript, path: MiniscriptPath, signatureLengths: ReadonlyMap<string, number>): Satisfaction[] {
  const known = path.keys.filter((k) => signatureLengths.has(k));
  if (known.length === 0) return [];
  const size = (s: Satisfaction) => witnessSize(s.stack, compiled.witnessScript, (k) => signatureLengths.get(k) ?? SIG_ITEM);
  const sets = setsOf(compiled);
  const sats =
    sets === null ? satisfactionsOf(compiled, known)
    : sets
        .filter((set) => olderOf(set.blocks) === path.older)
        .flatMap((set) => {
          const signed = set.keys.filter((k) => signatureLengths.has(k)).sort((a, b) => signatureLengths.get(a)! - signatureLengths.get(b)!);
          return signed.length < set.threshold ? [] : satisfactionsOf(compiled, signed.slice(0, set.threshold), true);
        });
  return sats.filter((s) => s.older === path.older).sort((a, b) => size(a) - size(b));
}
