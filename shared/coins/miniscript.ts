/**
 * The one wrapper of the miniscript library: parse and analyse a P2WSH miniscript, refuse one that
 * is not sane naming why, and turn it into the witness script for given keys. The desk (vault
 * definitions) and the service (spends) both go through here.
 *
 * Library: @bitcoinerlab/miniscript 2.0 (MIT, pure TypeScript, 320 kB unpacked, one 4 kB
 * dependency, bip68). Weighed against, 2026-11:
 * - @bitgo/wasm-miniscript 1.18 (rust-miniscript in WASM, 7.1 MB): parses descriptors and derives,
 *   but says only "not sane", not which rule failed; a 7 MB WASM blob in the desk for that. It is
 *   the test-only second oracle instead (an independent implementation: rust-miniscript).
 * - @bitcoinerlab/descriptors 3.2 (and its fork @kukks/bitcoin-descriptors): built on the same
 *   analyser, plus a second key, descriptor and PSBT stack (bitcoinjs-lib 7, ecpair, its own
 *   secp256k1) beside ours; we need only the analyser.
 * - writing our own: the type system and malleability rules of miniscript are a few thousand lines
 *   a well-kept library already proves against Bitcoin Core's vectors.
 * Its analyser names each sanity rule apart (a path without a signature, malleable satisfactions,
 * mixed timelock types, repeated keys), which is what a treasurer must be told; its satisfier gives
 * each non-malleable witness with the nSequence it needs, smallest first.
 *
 * Keys in the miniscript handed to this module are names (letters, digits, '_', not hex alone:
 * K0_0, K1_2); the caller maps each name to a 33-byte compressed key.
 */
import { analyzeMiniscript, compileMiniscript, satisfier } from '@bitcoinerlab/miniscript';
import { concatBytes, hexToBytes } from './bytes.ts';
import { plural } from '../api/words.ts';
import { CoinError } from './errors.ts';
import { miniscriptResources, resourceProblem, type MiniscriptResources } from './miniscript-limits.ts';
import { hash160 } from './hash.ts';
import { pushData } from './script.ts';

/** Bitcoin Core's MAX_STANDARD_P2WSH_SCRIPT_SIZE: a larger witness script is not relayed. */
export const MAX_STANDARD_WITNESS_SCRIPT_SIZE = 3600;
/** BIP68: a relative lock by height counts blocks in the low 16 bits of nSequence. */
export const MAX_RELATIVE_BLOCKS = 0xffff;
/** BIP68's type flag: set, the relative lock counts 512-second units, not blocks. */
const SEQUENCE_TYPE_FLAG = 1 << 22;

/** What the analysis of a sane miniscript tells. */
export interface MiniscriptAnalysis {
  readonly miniscript: string;
  /** Every key name, in order of first appearance. */
  readonly keyNames: readonly string[];
  /** The distinct relative timelocks (older(n), in blocks), ascending. */
  readonly relativeLocks: readonly number[];
}

/** One way to spend: the keys that sign and the nSequence (relative lock in blocks, 0: none) it needs. */
export interface MiniscriptSatisfaction {
  readonly signers: readonly string[];
  readonly sequence: number;
  /** The library's witness, symbolic (<sig(K0_0)>, 0, 1), as the script reads it bottom first. */
  readonly asm: string;
}

const KEY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const isHex = (s: string) => /^(?:[0-9a-fA-F]{2})+$/.test(s);

const refuse = (why: string): never => {
  throw new CoinError(`the miniscript is refused: ${why}`);
};

/** The key names of a miniscript: the arguments of pk, pkh, pk_k, pk_h, multi, sortedmulti. */
function keyNamesOf(miniscript: string): string[] {
  const names: string[] = [];
  for (const m of miniscript.matchAll(/\b(pk|pkh|pk_k|pk_h|multi|sortedmulti|multi_a|sortedmulti_a)\(([^()]*)\)/g)) {
    const args = m[2]!.split(',');
    for (const a of m[1]!.includes('multi') ? args.slice(1) : args) if (!names.includes(a)) names.push(a);
  }
  return names;
}

/**
 * Parses and analyses `miniscript` (P2WSH context) and refuses, in words, one this desk will not
 * hold: unparsable, not valid miniscript, not sane (a path without a signature, malleable, mixed
 * timelock types, a key twice), absolute timelocks, relative ones by time or beyond BIP68's
 * 65535 blocks, taproot-only fragments.
 */
export function analyseMiniscript(miniscript: string): MiniscriptAnalysis {
  if (miniscript.length === 0) refuse('it is empty');
  if (/\b(multi_a|sortedmulti_a)\(/.test(miniscript)) refuse('multi_a is taproot-only; these vaults are P2WSH');
  if (/\bsortedmulti\(/.test(miniscript)) refuse('sortedmulti is a descriptor form, not miniscript: inside a miniscript vault write multi(...)');
  if (/\bafter\(/.test(miniscript)) refuse('after(...) is an absolute timelock; these vaults open their recovery paths with relative timelocks, older(...)');
  const relative = new Set<number>();
  for (const m of miniscript.matchAll(/\bolder\(([^()]*)\)/g)) {
    const text = m[1]!;
    if (!/^[0-9]{1,10}$/.test(text)) refuse(`older(${text}) does not hold a number of blocks`);
    const n = Number(text);
    if (n < 1) refuse(`older(${n}) locks nothing: a relative timelock is at least 1 block`);
    if (n & SEQUENCE_TYPE_FLAG) refuse(`older(${n}) is a relative timelock counted in time (BIP68's type flag); these vaults count blocks`);
    if (n > MAX_RELATIVE_BLOCKS) refuse(`older(${n}) is beyond BIP68's limit of ${plural(MAX_RELATIVE_BLOCKS, 'block')}`);
    relative.add(n);
  }
  const keyNames = keyNamesOf(miniscript);
  for (const k of keyNames) if (!KEY_NAME.test(k) || isHex(k)) refuse(`"${k.slice(0, 20)}" is not a key name`);
  let a: ReturnType<typeof analyzeMiniscript>;
  try {
    a = analyzeMiniscript(miniscript);
  } catch (err) {
    return refuse(`it cannot be parsed (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!a.valid) refuse(`it is not valid miniscript (${a.error ?? 'no reason given'})`);
  if (!a.needsSignature) refuse('a spending path needs no signature: anyone could spend the coins once its condition holds');
  if (!a.nonMalleable) refuse('it is malleable: a third party could change a spend\'s witness and so its size and fee rate');
  if (a.timelockMix) refuse('it mixes timelock types on one path (blocks with time), which no transaction can satisfy');
  if (a.hasDuplicateKeys) refuse('a key appears twice; use a different derivation of it on each path (BIP388: @0/<0;1>/* and @0/<2;3>/*)');
  if (!a.issane) refuse(`it is not sane (${a.error ?? 'no reason given'})`);
  return { miniscript, keyNames, relativeLocks: [...relative].sort((x, y) => x - y) };
}

// The opcodes a segwit v0 miniscript compiles to (values from Bitcoin Core's script.h).
const OPCODES: Readonly<Record<string, number>> = {
  OP_0: 0x00,
  OP_1NEGATE: 0x4f,
  OP_IF: 0x63,
  OP_NOTIF: 0x64,
  OP_ELSE: 0x67,
  OP_ENDIF: 0x68,
  OP_VERIFY: 0x69,
  OP_TOALTSTACK: 0x6b,
  OP_FROMALTSTACK: 0x6c,
  OP_IFDUP: 0x73,
  OP_DEPTH: 0x74,
  OP_DROP: 0x75,
  OP_DUP: 0x76,
  OP_SWAP: 0x7c,
  OP_SIZE: 0x82,
  OP_EQUAL: 0x87,
  OP_EQUALVERIFY: 0x88,
  OP_0NOTEQUAL: 0x92,
  OP_ADD: 0x93,
  OP_BOOLAND: 0x9a,
  OP_BOOLOR: 0x9b,
  OP_NUMEQUAL: 0x9c,
  OP_NUMEQUALVERIFY: 0x9d,
  OP_RIPEMD160: 0xa6,
  OP_SHA256: 0xa8,
  OP_HASH160: 0xa9,
  OP_HASH256: 0xaa,
  OP_CHECKSIG: 0xac,
  OP_CHECKSIGVERIFY: 0xad,
  OP_CHECKMULTISIG: 0xae,
  OP_CHECKMULTISIGVERIFY: 0xaf,
  OP_CHECKLOCKTIMEVERIFY: 0xb1,
  OP_CHECKSEQUENCEVERIFY: 0xb2,
};

/** The compiled script of a miniscript with its keys still names: compile once, then assemble per address. */
export interface CompiledMiniscript {
  readonly analysis: MiniscriptAnalysis;
  readonly asm: string;
  /** What a spend of it costs at most (every key is 33 bytes, so the same at every address). */
  readonly resources: MiniscriptResources;
}

/**
 * Analyses (refusing what is not sane) and compiles `miniscript` to its script with named keys;
 * a script whose spends Bitcoin would refuse (operations, witness items, size) is refused in words.
 */
export function compileVaultMiniscript(miniscript: string): CompiledMiniscript {
  const analysis = analyseMiniscript(miniscript);
  const { asm, resources, scriptBytes } = measureMiniscript(miniscript);
  const problem = resourceProblem(resources, scriptBytes, MAX_STANDARD_WITNESS_SCRIPT_SIZE);
  if (problem !== null) refuse(problem);
  return { analysis, asm, resources };
}

/** The compiled script's length and what spending it costs at most, without refusing anything. */
export function measureMiniscript(miniscript: string, signatureBytes?: number): { asm: string; resources: MiniscriptResources; scriptBytes: number } {
  const { asm } = compileMiniscript(miniscript);
  // Any compressed key will do: a key is 33 bytes wherever it is derived.
  const { parts, staticOps } = assemble(asm, () => ANY_KEY);
  return { asm, resources: miniscriptResources(miniscript, staticOps, signatureBytes), scriptBytes: parts.reduce((s, p) => s + p.length, 0) };
}

const ANY_KEY = Uint8Array.of(2, ...new Uint8Array(32).fill(1));

/**
 * The witness script of a compiled miniscript with each key name bound to a compressed key. Pure;
 * a missing or malformed key, or a script over the standard size, is a CoinError.
 */
export function miniscriptWitnessScript(compiled: CompiledMiniscript, keys: Readonly<Record<string, Uint8Array>>): Uint8Array {
  const key = (name: string): Uint8Array => {
    const k = keys[name];
    if (k === undefined) throw new CoinError(`the miniscript's key ${name} has no public key`);
    if (k.length !== 33 || (k[0] !== 2 && k[0] !== 3)) throw new CoinError(`the miniscript's key ${name} is not a compressed public key`);
    return k;
  };
  const { parts } = assemble(compiled.asm, key);
  const size = parts.reduce((s, p) => s + p.length, 0);
  if (size > MAX_STANDARD_WITNESS_SCRIPT_SIZE) throw new CoinError(`the witness script is ${size} bytes; nodes relay at most ${MAX_STANDARD_WITNESS_SCRIPT_SIZE}`);
  return concatBytes(...parts);
}

/** The script's pieces for the library's asm, and its non-push opcodes (what EvalScript counts, run or not). */
function assemble(asm: string, key: (name: string) => Uint8Array): { parts: Uint8Array[]; staticOps: number } {
  const parts: Uint8Array[] = [];
  let staticOps = 0;
  for (const token of asm.split(' ')) {
    const push = /^<(.*)>$/.exec(token)?.[1];
    if (push !== undefined) {
      const h160 = /^HASH160\((.*)\)$/.exec(push)?.[1];
      if (h160 !== undefined) parts.push(pushData(hash160(key(h160))));
      // Key names are never hex alone (analyseMiniscript refuses them), so a hex push is a number.
      else if (isHex(push)) parts.push(pushData(hexToBytes(push)));
      else if (KEY_NAME.test(push)) parts.push(pushData(key(push)));
      else throw new CoinError(`internal error: the miniscript compiled to an unknown push ${token}`);
    } else if (/^(?:[0-9]|1[0-6])$/.test(token)) {
      const n = Number(token);
      parts.push(Uint8Array.of(n === 0 ? 0 : 0x50 + n));
    } else {
      const op = OPCODES[token];
      if (op === undefined) throw new CoinError(`internal error: the miniscript compiled to an opcode this desk does not know (${token})`);
      // Bitcoin Core's EvalScript: every opcode above OP_16 counts towards MAX_OPS_PER_SCRIPT.
      if (op > 0x60) staticOps++;
      parts.push(Uint8Array.of(op));
    }
  }
  return { parts, staticOps };
}

/**
 * The non-malleable ways to spend `miniscript` using only the signatures of `signers` (all keys
 * when absent), cheapest first (the library orders by witness size). Each names its signers and
 * the nSequence it needs. `oneSet`: the signers are one signing set's, as many as it needs, so the
 * answer is small whatever the miniscript's size; the library's count of 1,000 (which counts every
 * partial combination it walks, even those without a known key) is then lifted.
 */
export function miniscriptSatisfactions(miniscript: string, signers?: readonly string[], oneSet = false): MiniscriptSatisfaction[] {
  analyseMiniscript(miniscript);
  const options = { ...(signers === undefined ? {} : { knowns: signers.map((s) => `<sig(${s})>`) }), ...(oneSet ? { maxSolutions: null } : {}) };
  const { nonMalleableSats } = satisfier(miniscript, options);
  return nonMalleableSats.map((s) => ({
    asm: s.asm,
    sequence: s.nSequence ?? 0,
    signers: [...s.asm.matchAll(/<sig\(([^)]*)\)>/g)].map((m) => m[1]!),
  }));
}
