import * as ecc from 'tiny-secp256k1';
import { concatBytes } from './bytes.ts';
import { CoinError } from './errors.ts';

/** The opcodes this package builds or recognises. */
export const OP = {
  OP_0: 0x00,
  OP_PUSHDATA1: 0x4c,
  OP_PUSHDATA2: 0x4d,
  OP_PUSHDATA4: 0x4e,
  OP_1NEGATE: 0x4f,
  OP_1: 0x51,
  OP_16: 0x60,
  OP_DUP: 0x76,
  OP_EQUAL: 0x87,
  OP_EQUALVERIFY: 0x88,
  OP_HASH160: 0xa9,
  OP_CODESEPARATOR: 0xab,
  OP_CHECKSIG: 0xac,
  OP_CHECKMULTISIG: 0xae,
} as const;

/** Largest M-of-N for P2SH multisig with compressed keys (the 520-byte redeem script limit). */
export const MAX_MULTISIG_KEYS = 15;

/** The minimal push of `data` (BIP62 MINIMALDATA): OP_0, OP_1..16, OP_1NEGATE, or a length prefix. */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  if (n === 0) return Uint8Array.of(OP.OP_0);
  if (n === 1) {
    const b = data[0] ?? 0;
    if (b >= 1 && b <= 16) return Uint8Array.of(OP.OP_1 + b - 1);
    if (b === 0x81) return Uint8Array.of(OP.OP_1NEGATE);
  }
  if (n < OP.OP_PUSHDATA1) return concatBytes(Uint8Array.of(n), data);
  if (n <= 0xff) return concatBytes(Uint8Array.of(OP.OP_PUSHDATA1, n), data);
  if (n <= 0xffff) return concatBytes(Uint8Array.of(OP.OP_PUSHDATA2, n & 0xff, n >> 8), data);
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, n, true);
  return concatBytes(Uint8Array.of(OP.OP_PUSHDATA4), len, data);
}

/** The opcode pushing the small integer n (0..16). */
export function smallIntOpcode(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new CoinError(`small integer out of range: ${n}`);
  return n === 0 ? OP.OP_0 : OP.OP_1 + n - 1;
}

/** The value of OP_0 / OP_1..OP_16, or null for any other opcode. */
export function smallIntValue(opcode: number): number | null {
  if (opcode === OP.OP_0) return 0;
  if (opcode >= OP.OP_1 && opcode <= OP.OP_16) return opcode - OP.OP_1 + 1;
  return null;
}

/** A script built from opcodes (numbers) and data (minimal pushes). */
export function compileScript(chunks: readonly (number | Uint8Array)[]): Uint8Array {
  return concatBytes(...chunks.map((c) => (typeof c === 'number' ? Uint8Array.of(c) : pushData(c))));
}

export interface ScriptChunk {
  readonly opcode: number;
  /** Present for push opcodes (0x00..0x4e). */
  readonly data?: Uint8Array;
}

export type ScriptOpResult =
  | { ok: true; opcode: number; data?: Uint8Array; next: number }
  | { ok: false; next: number };

/**
 * Reads one operation at `pos`, mirroring Bitcoin Core's GetScriptOp: on a truncated push it
 * fails with `next` advanced past whatever opcode and length bytes could be read. The legacy
 * sighash depends on that exact position.
 */
export function readScriptOp(script: Uint8Array, pos: number): ScriptOpResult {
  if (pos >= script.length) return { ok: false, next: pos };
  const opcode = script[pos] ?? 0;
  let p = pos + 1;
  if (opcode > OP.OP_PUSHDATA4) return { ok: true, opcode, next: p };
  let size: number;
  if (opcode < OP.OP_PUSHDATA1) {
    size = opcode;
  } else if (opcode === OP.OP_PUSHDATA1) {
    if (script.length - p < 1) return { ok: false, next: p };
    size = script[p] ?? 0;
    p += 1;
  } else if (opcode === OP.OP_PUSHDATA2) {
    if (script.length - p < 2) return { ok: false, next: p };
    size = (script[p] ?? 0) | ((script[p + 1] ?? 0) << 8);
    p += 2;
  } else {
    if (script.length - p < 4) return { ok: false, next: p };
    size = new DataView(script.buffer, script.byteOffset + p, 4).getUint32(0, true);
    p += 4;
  }
  if (script.length - p < size) return { ok: false, next: p };
  return { ok: true, opcode, data: script.slice(p, p + size), next: p + size };
}

/** Splits a script into chunks (e.g. to read a scriptSig); a truncated push is a CoinError. */
export function decodeScript(script: Uint8Array): ScriptChunk[] {
  const chunks: ScriptChunk[] = [];
  let pos = 0;
  while (pos < script.length) {
    const op = readScriptOp(script, pos);
    if (!op.ok) throw new CoinError(`script is malformed: a data push at byte ${pos} runs past the end of the script`);
    chunks.push(op.data === undefined ? { opcode: op.opcode } : { opcode: op.opcode, data: op.data });
    pos = op.next;
  }
  return chunks;
}

function requireHash(hash: Uint8Array, length: number, what: string): void {
  if (hash.length !== length) throw new CoinError(`${what} must be ${length} bytes, got ${hash.length}`);
}

/** OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG */
export function p2pkhScript(hash160: Uint8Array): Uint8Array {
  requireHash(hash160, 20, 'a P2PKH hash');
  return concatBytes(Uint8Array.of(OP.OP_DUP, OP.OP_HASH160, 20), hash160, Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIG));
}

/** OP_HASH160 <20> OP_EQUAL */
export function p2shScript(hash160: Uint8Array): Uint8Array {
  requireHash(hash160, 20, 'a P2SH hash');
  return concatBytes(Uint8Array.of(OP.OP_HASH160, 20), hash160, Uint8Array.of(OP.OP_EQUAL));
}

/** OP_n <program>: a segwit output (v0: 20 or 32 bytes, v1 taproot: 32 bytes). */
export function witnessScript(version: number, program: Uint8Array): Uint8Array {
  if (program.length < 2 || program.length > 40) throw new CoinError(`witness program must be 2..40 bytes, got ${program.length}`);
  if (version === 0 && program.length !== 20 && program.length !== 32) {
    throw new CoinError(`a version 0 witness program must be 20 or 32 bytes, got ${program.length}`);
  }
  return concatBytes(Uint8Array.of(smallIntOpcode(version), program.length), program);
}

/** CHECKMULTISIG's consensus limit, and so the most keys a P2WSH multisig witness script holds. */
export const MAX_WITNESS_MULTISIG_KEYS = 20;

/** A count in a multisig script: OP_1..OP_16, or the minimal one-byte push of 17..20. */
function countChunk(n: number): number | Uint8Array {
  return n <= 16 ? smallIntOpcode(n) : Uint8Array.of(n);
}

function countValue(chunk: ScriptChunk): number | null {
  const small = smallIntValue(chunk.opcode);
  if (small !== null) return small;
  const d = chunk.data;
  return chunk.opcode === 1 && d !== undefined && (d[0] ?? 0) > 16 && (d[0] ?? 0) <= MAX_WITNESS_MULTISIG_KEYS ? (d[0] ?? 0) : null;
}

/**
 * OP_M <keys in the order given> OP_N OP_CHECKMULTISIG, with at most `maxKeys` compressed keys.
 * Keys are never sorted here: the order is part of the wallet's identity (docs/api-decisions.md),
 * and BIP67 sorting is the caller's explicit choice (multisig-script.ts, sortKeys).
 */
export function multisigScript(m: number, pubkeys: readonly Uint8Array[], maxKeys: number = MAX_MULTISIG_KEYS): Uint8Array {
  const n = pubkeys.length;
  if (!Number.isInteger(m) || m < 1) {
    throw new CoinError(`the number of required signatures must be at least 1, got ${m}`);
  }
  if (n < 1 || n > maxKeys) {
    throw new CoinError(`a multisig wallet needs 1 to ${maxKeys} public keys, got ${n}`);
  }
  if (m > n) {
    throw new CoinError(`${m} required signatures cannot be met by ${n} public key(s)`);
  }
  pubkeys.forEach((k, i) => {
    if (k.length !== 33 || (k[0] !== 0x02 && k[0] !== 0x03) || !ecc.isPoint(k)) {
      throw new CoinError(`public key #${i + 1} of the multisig is not a valid compressed public key`);
    }
  });
  return compileScript([countChunk(m), ...pubkeys, countChunk(n), OP.OP_CHECKMULTISIG]);
}

/** The P2SH multisig redeem script: multisigScript with P2SH's limit of 15 keys. */
export function multisigRedeemScript(m: number, pubkeys: readonly Uint8Array[]): Uint8Array {
  return multisigScript(m, pubkeys, MAX_MULTISIG_KEYS);
}

/**
 * {m, pubkeys} when `script` is exactly a bare multisig script (keys of 33 or 65 bytes), else
 * null. Counts 17..20 (witness scripts only) are read as the minimal pushes multisigScript makes.
 */
export function parseMultisigRedeemScript(script: Uint8Array): { m: number; pubkeys: Uint8Array[] } | null {
  let chunks: ScriptChunk[];
  try {
    chunks = decodeScript(script);
  } catch {
    return null;
  }
  if (chunks.length < 4) return null;
  const first = chunks[0];
  const nChunk = chunks[chunks.length - 2];
  const last = chunks[chunks.length - 1];
  if (first === undefined || nChunk === undefined || last === undefined) return null;
  if (last.opcode !== OP.OP_CHECKMULTISIG) return null;
  const m = countValue(first);
  const n = countValue(nChunk);
  if (m === null || n === null || m < 1 || n < m) return null;
  const keyChunks = chunks.slice(1, -2);
  if (keyChunks.length !== n) return null;
  const pubkeys: Uint8Array[] = [];
  for (const c of keyChunks) {
    // Keys are direct pushes of 33 or 65 bytes; anything else is not a standard multisig.
    if (c.data === undefined || c.opcode !== c.data.length || (c.data.length !== 33 && c.data.length !== 65)) return null;
    pubkeys.push(c.data);
  }
  return { m, pubkeys };
}

export type OutputScriptType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr';
/** For p2tr the "hash" is the 32-byte output key; for segwit v0 it is the witness program. */
export type ClassifiedScript = { type: OutputScriptType; hash: Uint8Array } | { type: 'other' };

/** Recognises the standard output templates by their exact bytes. */
export function classifyOutputScript(script: Uint8Array): ClassifiedScript {
  const s = script;
  if (s.length === 25 && s[0] === OP.OP_DUP && s[1] === OP.OP_HASH160 && s[2] === 20 && s[23] === OP.OP_EQUALVERIFY && s[24] === OP.OP_CHECKSIG) {
    return { type: 'p2pkh', hash: s.slice(3, 23) };
  }
  if (s.length === 23 && s[0] === OP.OP_HASH160 && s[1] === 20 && s[22] === OP.OP_EQUAL) {
    return { type: 'p2sh', hash: s.slice(2, 22) };
  }
  if (s.length === 22 && s[0] === OP.OP_0 && s[1] === 20) return { type: 'p2wpkh', hash: s.slice(2) };
  if (s.length === 34 && s[0] === OP.OP_0 && s[1] === 32) return { type: 'p2wsh', hash: s.slice(2) };
  if (s.length === 34 && s[0] === OP.OP_1 && s[1] === 32) return { type: 'p2tr', hash: s.slice(2) };
  return { type: 'other' };
}
