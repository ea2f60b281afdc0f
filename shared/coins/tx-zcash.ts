/**
 * Zcash-family overwintered transactions: Sapling-era v4 (zcash protocol spec section 7.1) and
 * NU5's v5 (ZIP-225). The service builds them transparent-only, but every shielded part is
 * decoded into its fields, because the signature and txid digests hash those fields separately
 * (ZIP-243 leaves the spend authorisation signatures out, ZIP-244 splits ciphertexts into
 * compact, memo and non-compact parts).
 */
import { ByteReader, ByteWriter } from './bytes.ts';
import { VERSION_GROUP_ID } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { checkU32, readCount, readInputs, readOutputs, readVarBytesChecked, writeInputs, writeOutputs } from './tx-transparent.ts';
import type { TxInput, TxOutput } from './tx-transparent.ts';

/** Bit 31 of the header: set on every transaction since Overwinter. */
export const OVERWINTERED = 0x80000000;

/** A Sapling spend; in v5 every spend shares the bundle's anchor and it is stored in each. */
export interface SaplingSpend {
  cv: Uint8Array;
  anchor: Uint8Array;
  nullifier: Uint8Array;
  rk: Uint8Array;
  zkproof: Uint8Array;
  spendAuthSig: Uint8Array;
}

export interface SaplingOutput {
  cv: Uint8Array;
  cmu: Uint8Array;
  ephemeralKey: Uint8Array;
  encCiphertext: Uint8Array;
  outCiphertext: Uint8Array;
  zkproof: Uint8Array;
}

export interface SaplingBundle {
  /** int64: net value leaving the Sapling pool. v5 has it only with spends or outputs. */
  valueBalance: bigint;
  spends: SaplingSpend[];
  outputs: SaplingOutput[];
  /** Present exactly when there are spends or outputs. */
  bindingSig?: Uint8Array;
}

/** A Sprout JoinSplit description of a v4 transaction (Groth16 proof). */
export interface JoinSplit {
  vpubOld: bigint;
  vpubNew: bigint;
  anchor: Uint8Array;
  nullifiers: [Uint8Array, Uint8Array];
  commitments: [Uint8Array, Uint8Array];
  ephemeralKey: Uint8Array;
  randomSeed: Uint8Array;
  macs: [Uint8Array, Uint8Array];
  proof: Uint8Array;
  ciphertexts: [Uint8Array, Uint8Array];
}

export interface OrchardAction {
  cv: Uint8Array;
  nullifier: Uint8Array;
  rk: Uint8Array;
  cmx: Uint8Array;
  ephemeralKey: Uint8Array;
  encCiphertext: Uint8Array;
  outCiphertext: Uint8Array;
  spendAuthSig: Uint8Array;
}

export interface OrchardBundle {
  actions: OrchardAction[];
  flags: number;
  /** int64 */
  valueBalance: bigint;
  anchor: Uint8Array;
  /** The aggregated Halo 2 proof, of variable length. */
  proof: Uint8Array;
  bindingSig: Uint8Array;
}

/** Sapling-era v4: overwintered, version group 0x892F2085; the branch id is not in it. */
export interface ZcashV4Tx {
  format: 'zcash-v4';
  version: 4;
  versionGroupId: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  locktime: number;
  /** 0 = never expires (what the service builds: co-signing may take days). */
  expiryHeight: number;
  sapling: SaplingBundle;
  joinSplits: JoinSplit[];
  /** Present exactly when there are JoinSplits. */
  joinSplitPubKey?: Uint8Array;
  joinSplitSig?: Uint8Array;
}

/** NU5 v5 (ZIP-225): the consensus branch id is part of the transaction. */
export interface ZcashV5Tx {
  format: 'zcash-v5';
  version: 5;
  versionGroupId: number;
  consensusBranchId: number;
  locktime: number;
  expiryHeight: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  sapling: SaplingBundle;
  /** Absent when the transaction has no Orchard actions. */
  orchard?: OrchardBundle;
}

export type ZcashTx = ZcashV4Tx | ZcashV5Tx;

type Layout<K extends string> = readonly (readonly [K, number])[];

const SPEND_V4: Layout<keyof SaplingSpend> = [['cv', 32], ['anchor', 32], ['nullifier', 32], ['rk', 32], ['zkproof', 192], ['spendAuthSig', 64]];
/** What ZIP-243's hashShieldedSpends takes of each spend: all but the authorising signature. */
const SPEND_V4_UNSIGNED: Layout<keyof SaplingSpend> = SPEND_V4.slice(0, 5);
const SPEND_V5: Layout<'cv' | 'nullifier' | 'rk'> = [['cv', 32], ['nullifier', 32], ['rk', 32]];
const OUTPUT_V4: Layout<keyof SaplingOutput> = [['cv', 32], ['cmu', 32], ['ephemeralKey', 32], ['encCiphertext', 580], ['outCiphertext', 80], ['zkproof', 192]];
const OUTPUT_V5: Layout<Exclude<keyof SaplingOutput, 'zkproof'>> = OUTPUT_V4.slice(0, 5) as Layout<Exclude<keyof SaplingOutput, 'zkproof'>>;
const ACTION: Layout<Exclude<keyof OrchardAction, 'spendAuthSig'>> = [
  ['cv', 32], ['nullifier', 32], ['rk', 32], ['cmx', 32], ['ephemeralKey', 32], ['encCiphertext', 580], ['outCiphertext', 80],
];

const GROTH_PROOF = 192;
const SIGNATURE = 64;
const JOINSPLIT_SIZE = 8 + 8 + 32 + 64 + 64 + 32 + 32 + 64 + GROTH_PROOF + 2 * 601;

function size(layout: Layout<string>): number {
  return layout.reduce((n, [, len]) => n + len, 0);
}

function readFields<K extends string>(r: ByteReader, layout: Layout<K>): Record<K, Uint8Array> {
  const out = {} as Record<K, Uint8Array>;
  for (const [name, len] of layout) out[name] = r.readBytes(len);
  return out;
}

function writeFixed(w: ByteWriter, bytes: Uint8Array | undefined, len: number, what: string): void {
  if (bytes === undefined || bytes.length !== len) {
    throw new CoinError(`${what} must be ${len} bytes, got ${bytes === undefined ? 'none' : bytes.length}`);
  }
  w.writeBytes(bytes);
}

function writeFields<K extends string>(w: ByteWriter, value: Record<K, Uint8Array>, layout: Layout<K>, what: string): void {
  for (const [name, len] of layout) writeFixed(w, value[name], len, `${what}: ${name}`);
}

function readI64(r: ByteReader): bigint {
  return BigInt.asIntN(64, r.readU64LE());
}

function writeI64(w: ByteWriter, v: bigint, what: string): void {
  if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new CoinError(`${what} is out of the 64-bit signed range: ${v}`);
  w.writeU64LE(BigInt.asUintN(64, v));
}

/** The header word: version with the overwintered bit. */
export function zcashHeader(tx: ZcashTx): number {
  return (tx.version | OVERWINTERED) >>> 0;
}

/** A spend as ZIP-243 hashes it (cv, anchor, nullifier, rk, zkproof). */
export function encodeSaplingSpendForSighash(spend: SaplingSpend, index: number): Uint8Array {
  const w = new ByteWriter();
  writeFields(w, spend, SPEND_V4_UNSIGNED, `sapling spend ${index}`);
  return w.toBytes();
}

/** An output in its v4 form (ZIP-243's hashShieldedOutputs hashes exactly this). */
export function encodeSaplingOutputV4(output: SaplingOutput, index: number): Uint8Array {
  const w = new ByteWriter();
  writeFields(w, output, OUTPUT_V4, `sapling output ${index}`);
  return w.toBytes();
}

export function encodeJoinSplit(js: JoinSplit, index: number): Uint8Array {
  const what = `joinsplit ${index}`;
  const w = new ByteWriter();
  if (js.vpubOld < 0n || js.vpubNew < 0n) throw new CoinError(`${what}: public values must not be negative`);
  w.writeU64LE(js.vpubOld).writeU64LE(js.vpubNew);
  writeFixed(w, js.anchor, 32, `${what}: anchor`);
  for (const n of js.nullifiers) writeFixed(w, n, 32, `${what}: nullifier`);
  for (const c of js.commitments) writeFixed(w, c, 32, `${what}: commitment`);
  writeFixed(w, js.ephemeralKey, 32, `${what}: ephemeral key`);
  writeFixed(w, js.randomSeed, 32, `${what}: random seed`);
  for (const m of js.macs) writeFixed(w, m, 32, `${what}: mac`);
  writeFixed(w, js.proof, GROTH_PROOF, `${what}: proof`);
  for (const c of js.ciphertexts) writeFixed(w, c, 601, `${what}: ciphertext`);
  return w.toBytes();
}

function readJoinSplit(r: ByteReader): JoinSplit {
  const vpubOld = r.readU64LE();
  const vpubNew = r.readU64LE();
  const anchor = r.readBytes(32);
  const nullifiers: [Uint8Array, Uint8Array] = [r.readBytes(32), r.readBytes(32)];
  const commitments: [Uint8Array, Uint8Array] = [r.readBytes(32), r.readBytes(32)];
  const ephemeralKey = r.readBytes(32);
  const randomSeed = r.readBytes(32);
  const macs: [Uint8Array, Uint8Array] = [r.readBytes(32), r.readBytes(32)];
  const proof = r.readBytes(GROTH_PROOF);
  const ciphertexts: [Uint8Array, Uint8Array] = [r.readBytes(601), r.readBytes(601)];
  return { vpubOld, vpubNew, anchor, nullifiers, commitments, ephemeralKey, randomSeed, macs, proof, ciphertexts };
}

function refuseWitness(inputs: readonly TxInput[]): void {
  inputs.forEach((input, i) => {
    if ((input.witness?.length ?? 0) > 0) throw new CoinError(`input ${i}: Zcash transactions have no segwit witness`);
  });
}

function encodeV4(tx: ZcashV4Tx): Uint8Array {
  const w = new ByteWriter();
  const { sapling } = tx;
  const shielded = sapling.spends.length + sapling.outputs.length > 0;
  w.writeU32LE(zcashHeader(tx)).writeU32LE(tx.versionGroupId >>> 0);
  writeInputs(w, tx.inputs);
  writeOutputs(w, tx.outputs);
  checkU32(tx.locktime, 'locktime');
  checkU32(tx.expiryHeight, 'expiry height');
  w.writeU32LE(tx.locktime).writeU32LE(tx.expiryHeight);
  writeI64(w, sapling.valueBalance, 'sapling value balance');
  w.writeVarInt(sapling.spends.length);
  sapling.spends.forEach((s, i) => writeFields(w, s, SPEND_V4, `sapling spend ${i}`));
  w.writeVarInt(sapling.outputs.length);
  sapling.outputs.forEach((o, i) => writeFields(w, o, OUTPUT_V4, `sapling output ${i}`));
  w.writeVarInt(tx.joinSplits.length);
  tx.joinSplits.forEach((js, i) => w.writeBytes(encodeJoinSplit(js, i)));
  if (tx.joinSplits.length > 0) {
    writeFixed(w, tx.joinSplitPubKey, 32, 'joinsplit public key');
    writeFixed(w, tx.joinSplitSig, SIGNATURE, 'joinsplit signature');
  } else if (tx.joinSplitPubKey !== undefined || tx.joinSplitSig !== undefined) {
    throw new CoinError('a transaction without joinsplits carries no joinsplit key or signature');
  }
  if (shielded) writeFixed(w, sapling.bindingSig, SIGNATURE, 'sapling binding signature');
  else if (sapling.bindingSig !== undefined) throw new CoinError('a transaction without sapling spends or outputs carries no binding signature');
  return w.toBytes();
}

function encodeV5(tx: ZcashV5Tx): Uint8Array {
  const w = new ByteWriter();
  const { sapling, orchard } = tx;
  const nSapling = sapling.spends.length + sapling.outputs.length;
  checkU32(tx.consensusBranchId, 'consensus branch id');
  checkU32(tx.locktime, 'locktime');
  checkU32(tx.expiryHeight, 'expiry height');
  w.writeU32LE(zcashHeader(tx)).writeU32LE(tx.versionGroupId >>> 0).writeU32LE(tx.consensusBranchId);
  w.writeU32LE(tx.locktime).writeU32LE(tx.expiryHeight);
  writeInputs(w, tx.inputs);
  writeOutputs(w, tx.outputs);

  w.writeVarInt(sapling.spends.length);
  sapling.spends.forEach((s, i) => writeFields(w, s, SPEND_V5, `sapling spend ${i}`));
  w.writeVarInt(sapling.outputs.length);
  sapling.outputs.forEach((o, i) => writeFields(w, o, OUTPUT_V5, `sapling output ${i}`));
  if (nSapling > 0) writeI64(w, sapling.valueBalance, 'sapling value balance');
  else if (sapling.valueBalance !== 0n || sapling.bindingSig !== undefined) {
    throw new CoinError('a v5 transaction without sapling spends or outputs has no sapling value balance or binding signature');
  }
  const [first] = sapling.spends;
  if (first !== undefined) {
    // v5 stores one anchor for all spends.
    if (sapling.spends.some((s) => s.anchor.length !== first.anchor.length || s.anchor.some((b, i) => b !== first.anchor[i]))) {
      throw new CoinError('the sapling spends of a v5 transaction must share one anchor');
    }
    writeFixed(w, first.anchor, 32, 'sapling anchor');
  }
  sapling.spends.forEach((s, i) => writeFixed(w, s.zkproof, GROTH_PROOF, `sapling spend ${i}: zkproof`));
  sapling.spends.forEach((s, i) => writeFixed(w, s.spendAuthSig, SIGNATURE, `sapling spend ${i}: spendAuthSig`));
  sapling.outputs.forEach((o, i) => writeFixed(w, o.zkproof, GROTH_PROOF, `sapling output ${i}: zkproof`));
  if (nSapling > 0) writeFixed(w, sapling.bindingSig, SIGNATURE, 'sapling binding signature');

  if (orchard === undefined || orchard.actions.length === 0) {
    if (orchard !== undefined) throw new CoinError('an orchard bundle needs at least one action (leave it out instead)');
    w.writeVarInt(0);
  } else {
    w.writeVarInt(orchard.actions.length);
    orchard.actions.forEach((a, i) => writeFields(w, a, ACTION, `orchard action ${i}`));
    w.writeU8(orchard.flags);
    writeI64(w, orchard.valueBalance, 'orchard value balance');
    writeFixed(w, orchard.anchor, 32, 'orchard anchor');
    w.writeVarBytes(orchard.proof);
    orchard.actions.forEach((a, i) => writeFixed(w, a.spendAuthSig, SIGNATURE, `orchard action ${i}: spendAuthSig`));
    writeFixed(w, orchard.bindingSig, SIGNATURE, 'orchard binding signature');
  }
  return w.toBytes();
}

export function encodeZcashTx(tx: ZcashTx): Uint8Array {
  refuseWitness(tx.inputs);
  // The types say 4 / 5; a transaction assembled from JSON or by hand may not.
  const version: number = tx.version;
  const expected = tx.format === 'zcash-v4' ? 4 : 5;
  if (version !== expected) throw new CoinError(`a ${tx.format} transaction must have version ${expected}, got ${version}`);
  return tx.format === 'zcash-v4' ? encodeV4(tx) : encodeV5(tx);
}

function decodeV4(r: ByteReader, versionGroupId: number): ZcashV4Tx {
  const inputs = readInputs(r);
  const outputs = readOutputs(r);
  const locktime = r.readU32LE();
  const expiryHeight = r.readU32LE();
  const valueBalance = readI64(r);
  const spends: SaplingSpend[] = [];
  const nSpends = readCount(r, 'sapling spends', size(SPEND_V4));
  for (let i = 0; i < nSpends; i++) spends.push(readFields(r, SPEND_V4));
  const saplingOutputs: SaplingOutput[] = [];
  const nOutputs = readCount(r, 'sapling outputs', size(OUTPUT_V4));
  for (let i = 0; i < nOutputs; i++) saplingOutputs.push(readFields(r, OUTPUT_V4));
  const joinSplits: JoinSplit[] = [];
  const nJoinSplits = readCount(r, 'joinsplits', JOINSPLIT_SIZE);
  for (let i = 0; i < nJoinSplits; i++) joinSplits.push(readJoinSplit(r));
  const tx: ZcashV4Tx = {
    format: 'zcash-v4',
    version: 4,
    versionGroupId,
    inputs,
    outputs,
    locktime,
    expiryHeight,
    sapling: { valueBalance, spends, outputs: saplingOutputs },
    joinSplits,
  };
  if (nJoinSplits > 0) {
    tx.joinSplitPubKey = r.readBytes(32);
    tx.joinSplitSig = r.readBytes(SIGNATURE);
  }
  if (nSpends + nOutputs > 0) tx.sapling.bindingSig = r.readBytes(SIGNATURE);
  return tx;
}

function decodeV5(r: ByteReader, versionGroupId: number): ZcashV5Tx {
  const consensusBranchId = r.readU32LE();
  const locktime = r.readU32LE();
  const expiryHeight = r.readU32LE();
  const inputs = readInputs(r);
  const outputs = readOutputs(r);

  const nSpends = readCount(r, 'sapling spends', size(SPEND_V5));
  const spendParts = Array.from({ length: nSpends }, () => readFields(r, SPEND_V5));
  const nOutputs = readCount(r, 'sapling outputs', size(OUTPUT_V5));
  const outputParts = Array.from({ length: nOutputs }, () => readFields(r, OUTPUT_V5));
  const valueBalance = nSpends + nOutputs > 0 ? readI64(r) : 0n;
  // One anchor for all spends, present only when there are spends.
  const anchor = nSpends > 0 ? r.readBytes(32) : new Uint8Array(0);
  const spendProofs = spendParts.map(() => r.readBytes(GROTH_PROOF));
  const spendSigs = spendParts.map(() => r.readBytes(SIGNATURE));
  const outputProofs = outputParts.map(() => r.readBytes(GROTH_PROOF));
  const sapling: SaplingBundle = {
    valueBalance,
    spends: spendParts.map((p, i) => ({ ...p, anchor, zkproof: spendProofs[i] ?? new Uint8Array(0), spendAuthSig: spendSigs[i] ?? new Uint8Array(0) })),
    outputs: outputParts.map((p, i) => ({ ...p, zkproof: outputProofs[i] ?? new Uint8Array(0) })),
  };
  if (nSpends + nOutputs > 0) sapling.bindingSig = r.readBytes(SIGNATURE);

  const tx: ZcashV5Tx = { format: 'zcash-v5', version: 5, versionGroupId, consensusBranchId, locktime, expiryHeight, inputs, outputs, sapling };
  const nActions = readCount(r, 'orchard actions', size(ACTION));
  if (nActions > 0) {
    const parts = Array.from({ length: nActions }, () => readFields(r, ACTION));
    const flags = r.readU8();
    const orchardValueBalance = readI64(r);
    const orchardAnchor = r.readBytes(32);
    const proof = readVarBytesChecked(r, 'an orchard proof');
    const sigs = parts.map(() => r.readBytes(SIGNATURE));
    const bindingSig = r.readBytes(SIGNATURE);
    tx.orchard = {
      actions: parts.map((p, i) => ({ ...p, spendAuthSig: sigs[i] ?? new Uint8Array(0) })),
      flags,
      valueBalance: orchardValueBalance,
      anchor: orchardAnchor,
      proof,
      bindingSig,
    };
  }
  return tx;
}

/** True when the 4-byte header at the start of `bytes` has the overwintered bit. */
export function isOverwinteredHeader(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && ((bytes[3] ?? 0) & 0x80) !== 0;
}

/** Parses an overwintered v4 or v5 transaction; anything else is a CoinError. */
export function decodeZcashTx(bytes: Uint8Array): ZcashTx {
  const r = new ByteReader(bytes, 'transaction');
  const header = r.readU32LE();
  if ((header & OVERWINTERED) === 0) throw new CoinError('not an overwintered Zcash transaction');
  const version = header & 0x7fffffff;
  const versionGroupId = r.readU32LE();
  let tx: ZcashTx;
  if (version === 4 && versionGroupId === VERSION_GROUP_ID['zcash-v4']) tx = decodeV4(r, versionGroupId);
  else if (version === 5 && versionGroupId === VERSION_GROUP_ID['zcash-v5']) tx = decodeV5(r, versionGroupId);
  else {
    throw new CoinError(
      `unsupported Zcash transaction: version ${version}, version group 0x${versionGroupId.toString(16).padStart(8, '0')} ` +
        '(only Sapling v4 and NU5 v5 transactions are supported)',
    );
  }
  if (!r.done()) throw new CoinError(`transaction has ${r.remaining()} unexpected trailing byte(s)`);
  return tx;
}
