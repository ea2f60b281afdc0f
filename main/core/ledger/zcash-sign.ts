// Signing the P2SH multisig inputs of a Zcash v5 (NU5) payment on the Zcash app (LedgerHQ/app-zcash:
// the Rust app 3.x, and the C app from 2.4.0). Its transparent signing keeps app-bitcoin's commands
// (docs/APDU.md): GET TRUSTED INPUT (42) over each previous transaction, HASH INPUT START (44, P2 05
// to start, 80 to continue), HASH INPUT FINALIZE FULL (4A), HASH SIGN (48). The app signs the
// ZIP-244 digest; the caller checks every signature against our own ZIP-244 hash before storing it.
//
// The exchange, as the app parses it (src/parser/legacy/*.rs, src/handlers/sign_tx.rs) and as its
// own Speculos tests send it (tests/standalone/test_sign_cmd.py, the *_old tests):
//  1. per input, GET TRUSTED INPUT over its previous transaction: the device hashes it to its txid
//     and answers outpoint + amount under its HMAC. The app accepts only such inputs when signing.
//  2. first pass (P2 05): header, every input as its trusted input with the script of the output it
//     spends (the ZIP-244 scripts digest), then the outputs; the person reviews them on the device.
//  3. HASH SIGN with no path: locktime, SIGHASH_ALL and expiry height (the v5 header fields).
//  4. per input, a second pass (P2 80) with that input alone, then HASH SIGN at its path. The
//     second pass fills ZIP-244's txin digest, which commits to the spent scriptPubKey: for P2SH the
//     P2SH script, never the redeem script (unlike hw-app-btc's createTransaction, which sends one).
import { bytesToHex, concatBytes, decodeTx, encodeCompactSize, encodeTx, equalBytes, hash160, hexToBytes, p2shScript, reverseBytes, type ChainParams, type Tx } from '../../../shared/coins/index.ts';
import type { ZcashV4Tx, ZcashV5Tx } from '../../../shared/coins/tx.ts';
import { serializeOutputs, u32be, u32le, u64le } from './apdu-fields.ts';
import { LedgerError } from './errors.ts';
import type { LegacySignature } from './input-signature.ts';
import type { LedgerInput } from './payment-inputs.ts';
import { parsePath, zcashAccountPathProblem } from './paths.ts';
import type { Transport } from './transport.ts';

const CLA = 0xe0;
const INS_GET_TRUSTED_INPUT = 0x42;
const INS_HASH_INPUT_START = 0x44;
const INS_HASH_SIGN = 0x48;
const INS_HASH_INPUT_FINALIZE_FULL = 0x4a;
const P1_FIRST = 0x00;
const P1_NEXT = 0x80;
/** HASH INPUT START's P2 on its first chunk: 05 starts a (Sapling-style) transaction, 80 continues it. The app reads P2 on that chunk only (src/main.rs). */
const P2_START = 0x05;
const P2_CONTINUE = 0x80;
const SIGHASH_ALL = 0x01;
/** magic 2 + random 2 + outpoint 36 + amount 8 + HMAC 8 (src/consts.rs TRUSTED_INPUT_TOTAL_SIZE). */
const TRUSTED_INPUT_SIZE = 56;
const MAGIC_TRUSTED_INPUT = 0x32;
/** Script and locktime bytes go in blocks of 50, as hw-app-btc sends them (the app streams them). */
const BLOCK = 50;
const MAX_APDU_DATA = 255;
/** The app's legacy parser keeps at most 8 transparent outputs (src/consts.rs MAX_OUTPUTS_NUMBER). */
export const ZCASH_MAX_OUTPUTS = 8;
/** Each encCiphertext: 52 compact bytes, a 512-byte memo, a 16-byte tag (ZIP-244 T.3b, T.4). */
const ENC_COMPACT = 52;
const ENC_MEMO_END = 564;
const MEMO_CHUNK = 128;

const varint = (n: number): Uint8Array => encodeCompactSize(n);

/** `bytes` in blocks of 50, `tail` appended to the last (alone when `bytes` is empty). */
function blocks(bytes: Uint8Array, tail: Uint8Array = new Uint8Array(0)): Uint8Array[] {
  if (bytes.length === 0) return [tail];
  const out: Uint8Array[] = [];
  for (let o = 0; o < bytes.length; o += BLOCK) {
    const end = Math.min(o + BLOCK, bytes.length);
    out.push(end === bytes.length ? concatBytes(bytes.subarray(o, end), tail) : bytes.subarray(o, end));
  }
  return out;
}

/** An output as one APDU (amount, script length, script), its script continued when it does not fit. */
function outputChunks(value: bigint, script: Uint8Array): Uint8Array[] {
  const head = concatBytes(u64le(value), varint(script.length));
  const first = MAX_APDU_DATA - head.length;
  const out = [concatBytes(head, script.subarray(0, first))];
  for (let o = first; o < script.length; o += MAX_APDU_DATA) out.push(script.subarray(o, o + MAX_APDU_DATA));
  return out;
}

const outpoint = (txidDisplay: Uint8Array, vout: number): Uint8Array => concatBytes(reverseBytes(txidDisplay), u32le(vout));

/** A previous transaction the Zcash app can make a trusted input of: v5, or a v4 without shielded parts. */
export type ZcashPrevTx = ZcashV5Tx | ZcashV4Tx;

/** Decodes a previous transaction and refuses what the app cannot read (src/parser/legacy: v4, v5; a v4 with shielded parts is refused). */
export function zcashPrevTx(params: ChainParams, raw: Uint8Array, txid: string): ZcashPrevTx {
  let tx: Tx;
  try {
    tx = decodeTx(raw, params);
  } catch (err) {
    throw new LedgerError('ledger_failed', `previous transaction ${txid} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (tx.format !== 'zcash-v5' && tx.format !== 'zcash-v4') {
    throw new LedgerError('ledger_failed', `previous transaction ${txid} is a version ${tx.version} transaction: the Zcash app reads only v4 and v5 ones, so this payment cannot be signed on the Ledger; sign it with a signature file instead`);
  }
  if (tx.format === 'zcash-v4' && (tx.sapling.spends.length + tx.sapling.outputs.length + tx.joinSplits.length > 0)) {
    throw new LedgerError('ledger_failed', `previous transaction ${txid} is a v4 transaction with shielded parts, which the Zcash app does not read: sign this payment with a signature file instead`);
  }
  // The stream is rebuilt from the decoded fields: they must be the very bytes the txid was checked on.
  if (!equalBytes(encodeTx(tx), raw)) throw new LedgerError('ledger_failed', `previous transaction ${txid} does not re-serialize to its own bytes: it cannot be streamed to the Ledger`);
  return tx;
}

/**
 * GET TRUSTED INPUT's data, one entry per APDU (P1 00 for the first, 80 after): the output index
 * (big-endian), the header with a consensus branch id, the inputs and outputs, the shielded
 * counts and bundles (ZIP-244's compact / memo / non-compact split), then locktime and the rest of
 * the header. The layout of hw-app-btc's getTrustedInput, which the app's tests send byte for byte.
 * A v4 transaction carries no branch id: the app reads one there but hashes none (its txid is
 * SHA-256d), so the payment's own is sent.
 */
export function trustedInputChunks(prev: ZcashPrevTx, vout: number, branchId: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const v5 = prev.format === 'zcash-v5';
  const header = concatBytes(u32le((prev.version | 0x80000000) >>> 0), u32le(prev.versionGroupId), u32le(v5 ? prev.consensusBranchId : branchId));
  out.push(concatBytes(u32be(vout), header, varint(prev.inputs.length)));
  for (const input of prev.inputs) {
    out.push(concatBytes(outpoint(input.prevTxid, input.vout), varint(input.scriptSig.length)));
    out.push(...blocks(input.scriptSig, u32le(input.sequence)));
  }
  out.push(varint(prev.outputs.length));
  for (const o of prev.outputs) out.push(...outputChunks(o.value, o.script));
  if (!v5) {
    // A v4 transaction without shielded parts: zero counts, then locktime and its tail as serialized.
    out.push(concatBytes(varint(0), varint(0), varint(0)));
    const rest = concatBytes(u32le(prev.expiryHeight), u64le(prev.sapling.valueBalance), varint(0), varint(0), varint(0));
    out.push(...blocks(concatBytes(u32le(prev.locktime), varint(rest.length), rest)));
    return out;
  }
  const { sapling, orchard } = prev;
  const actions = orchard?.actions ?? [];
  out.push(concatBytes(varint(sapling.spends.length), varint(sapling.outputs.length), varint(actions.length)));
  if (sapling.spends.length + sapling.outputs.length > 0) {
    out.push(concatBytes(u64le(sapling.valueBalance), sapling.spends.length > 0 ? sapling.spends[0]!.anchor : new Uint8Array(0)));
    for (const s of sapling.spends) out.push(concatBytes(s.cv, s.nullifier, s.rk));
    for (const o of sapling.outputs) out.push(concatBytes(o.cmu, o.ephemeralKey, o.encCiphertext.subarray(0, ENC_COMPACT)));
    for (const o of sapling.outputs) for (let k = ENC_COMPACT; k < ENC_MEMO_END; k += MEMO_CHUNK) out.push(o.encCiphertext.subarray(k, k + MEMO_CHUNK));
    for (const o of sapling.outputs) out.push(concatBytes(o.cv, o.encCiphertext.subarray(ENC_MEMO_END), o.outCiphertext));
  }
  if (orchard !== undefined && actions.length > 0) {
    for (const a of actions) out.push(concatBytes(a.nullifier, a.cmx, a.ephemeralKey, a.encCiphertext.subarray(0, ENC_COMPACT)));
    for (const a of actions) for (let k = ENC_COMPACT; k < ENC_MEMO_END; k += MEMO_CHUNK) out.push(a.encCiphertext.subarray(k, k + MEMO_CHUNK));
    for (const a of actions) out.push(concatBytes(a.cv, a.rk, a.encCiphertext.subarray(ENC_MEMO_END), a.outCiphertext));
    out.push(concatBytes(Uint8Array.of(orchard.flags), u64le(orchard.valueBalance), orchard.anchor));
  }
  const rest = u32le(prev.expiryHeight);
  out.push(...blocks(concatBytes(u32le(prev.locktime), varint(rest.length), rest)));
  return out;
}

/** One input as HASH INPUT START takes it: its trusted input, the spent output's script, its sequence. */
export interface ZcashHashedInput {
  trustedInput: Uint8Array;
  script: Uint8Array;
  sequence: number;
}

/** HASH INPUT START's data: header (version, group, branch id) and input count, then each input as 01 + length + trusted input + script length, then its script blocks with the sequence. */
export function hashInputChunks(tx: ZcashV5Tx, inputs: readonly ZcashHashedInput[]): Uint8Array[] {
  const out = [concatBytes(u32le((tx.version | 0x80000000) >>> 0), u32le(tx.versionGroupId), u32le(tx.consensusBranchId), varint(inputs.length))];
  for (const i of inputs) {
    out.push(concatBytes(Uint8Array.of(0x01, i.trustedInput.length), i.trustedInput, varint(i.script.length)));
    out.push(...blocks(i.script, u32le(i.sequence)));
  }
  return out;
}

/** The outputs as HASH INPUT FINALIZE FULL takes them: count, then each value and script, in blocks of 50 (P1 80 on the last). */
export function outputsChunks(tx: ZcashV5Tx): Uint8Array[] {
  return blocks(serializeOutputs(tx.outputs));
}

/** HASH SIGN's data: path (none for the header call), no authorization, locktime, SIGHASH_ALL, expiry height; the numbers big-endian (src/handlers/sign_tx.rs). */
export function hashSignData(tx: ZcashV5Tx, steps: readonly number[]): Uint8Array {
  return concatBytes(Uint8Array.of(steps.length), ...steps.map(u32be), Uint8Array.of(0x00), u32be(tx.locktime), Uint8Array.of(SIGHASH_ALL), u32be(tx.expiryHeight));
}

/** What the device needs for one input of the payment. */
export interface ZcashDeviceInput {
  /** Index in the payment. */
  index: number;
  prevTxid: string;
  prev: ZcashPrevTx;
  vout: number;
  amount: bigint;
  /** The scriptPubKey of the output spent: what ZIP-244 commits to. */
  script: Uint8Array;
  sequence: number;
  /** The device's key for this input, e.g. m/44'/133'/0'/0/3. */
  path: readonly number[];
}

function statusOf(err: unknown): number | null {
  const code = typeof err === 'object' && err !== null ? (err as { statusCode?: unknown }).statusCode : undefined;
  return typeof code === 'number' ? code : null;
}

async function exchange(t: Transport, ins: number, p1: number, p2: number, data: Uint8Array): Promise<Uint8Array> {
  const answer = await t.send(CLA, ins, p1, p2, Buffer.from(data));
  return new Uint8Array(answer.subarray(0, answer.length - 2));
}

/** Streams `chunks` to one command, P1 00 then 80; returns the last answer. */
async function stream(t: Transport, ins: number, p2First: number, p2Next: number, chunks: readonly Uint8Array[]): Promise<Uint8Array> {
  let answer: Uint8Array = new Uint8Array(0);
  for (const [k, c] of chunks.entries()) answer = await exchange(t, ins, k === 0 ? P1_FIRST : P1_NEXT, k === 0 ? p2First : p2Next, c);
  return answer;
}

const upgradeName = (params: ChainParams, branchId: number): string => {
  const u = params.networkUpgrades.find((n) => n.branchId === branchId);
  return `0x${branchId.toString(16).padStart(8, '0')}${u ? ` (${u.name})` : ''}`;
};

/**
 * Signs every input with the device, in the order given; returns DER signatures (without the hash
 * type byte). The trusted inputs are checked to name the outpoint and amount we expect.
 */
export async function signZcashInputs(transport: Transport, params: ChainParams, tx: ZcashV5Tx, inputs: readonly ZcashDeviceInput[]): Promise<LegacySignature[]> {
  const hashed: ZcashHashedInput[] = [];
  for (const i of inputs) {
    const ti = await stream(transport, INS_GET_TRUSTED_INPUT, 0x00, 0x00, trustedInputChunks(i.prev, i.vout, tx.consensusBranchId));
    const expected = concatBytes(outpoint(hexToBytes(i.prevTxid), i.vout), u64le(i.amount));
    if (ti.length !== TRUSTED_INPUT_SIZE || ti[0] !== MAGIC_TRUSTED_INPUT || ti[1] !== 0x00) {
      throw new LedgerError('ledger_failed', `the Zcash app answered GET TRUSTED INPUT for input ${i.index} with ${ti.length} bytes that are not a trusted input: nothing was signed`);
    }
    if (!equalBytes(ti.subarray(4, 48), expected)) {
      const got = bytesToHex(reverseBytes(ti.subarray(4, 36)));
      throw new LedgerError('ledger_failed', `the Zcash app read the previous transaction of input ${i.index} (${i.prevTxid}:${i.vout}) as ${got}:${new DataView(ti.buffer, ti.byteOffset + 36, 4).getUint32(0, true)}: nothing was signed`);
    }
    hashed.push({ trustedInput: ti, script: i.script, sequence: i.sequence });
  }

  // First pass: all inputs with the scripts they spend, then the outputs (the person reviews them).
  const first = hashInputChunks(tx, hashed);
  try {
    await exchange(transport, INS_HASH_INPUT_START, P1_FIRST, P2_START, first[0]!);
  } catch (err) {
    // The app parses the consensus branch id at once and refuses one it does not know (6A80).
    if (statusOf(err) === 0x6a80) {
      throw new LedgerError('ledger_app_too_old', `the Zcash app refused this payment's consensus branch id ${upgradeName(params, tx.consensusBranchId)}: update the Zcash app with Ledger Live, then try again`);
    }
    throw err;
  }
  for (const c of first.slice(1)) await exchange(transport, INS_HASH_INPUT_START, P1_NEXT, P2_START, c);
  const outputs = outputsChunks(tx);
  for (const [k, c] of outputs.entries()) await exchange(transport, INS_HASH_INPUT_FINALIZE_FULL, k === outputs.length - 1 ? 0x80 : 0x00, 0x00, c);
  await exchange(transport, INS_HASH_SIGN, 0x00, 0x00, hashSignData(tx, []));

  // Then each input alone, and its signature.
  const out: LegacySignature[] = [];
  for (const [k, i] of inputs.entries()) {
    await stream(transport, INS_HASH_INPUT_START, P2_CONTINUE, P2_CONTINUE, hashInputChunks(tx, [hashed[k]!]));
    const signed = await exchange(transport, INS_HASH_SIGN, 0x00, 0x00, hashSignData(tx, i.path));
    // DER || hash type; the DER's first byte carries R's Y parity in its low bit (30 or 31).
    if (signed.length < 9 || (signed[0]! & 0xfe) !== 0x30) throw new LedgerError('ledger_failed', `the Zcash app's answer for input ${i.index} is not a signature: nothing was stored`);
    if (signed.at(-1) !== SIGHASH_ALL) throw new LedgerError('ledger_failed', `the Zcash app signed input ${i.index} with hash type ${signed.at(-1)}, not SIGHASH_ALL: nothing was stored`);
    const der = Uint8Array.from(signed.subarray(0, -1));
    der[0] = 0x30;
    out.push({ inputIndex: i.index, signature: der });
  }
  return out;
}

/**
 * What the Zcash app cannot do with this payment, refused before the device is used: another
 * transaction format, shielded parts (the app's transparent flow leaves them out of its digest),
 * more outputs than it keeps, previous transactions it cannot read.
 */
export function zcashPreflight(params: ChainParams, tx: Tx, inputs: readonly LedgerInput[]): { tx: ZcashV5Tx; prevs: ZcashPrevTx[] } {
  if (tx.format !== 'zcash-v5') throw new LedgerError('ledger_failed', `the Zcash app signs v5 transactions; this payment is ${tx.format ?? 'a Bitcoin-format transaction'}: sign it with a signature file instead`);
  if (tx.sapling.spends.length + tx.sapling.outputs.length + (tx.orchard?.actions.length ?? 0) > 0) {
    throw new LedgerError('ledger_failed', 'this payment has shielded parts, which the desk does not sign on a Ledger: sign it with a signature file instead');
  }
  if (tx.outputs.length === 0 || tx.outputs.length > ZCASH_MAX_OUTPUTS) {
    throw new LedgerError('ledger_failed', `the Zcash app reviews 1 to ${ZCASH_MAX_OUTPUTS} transparent outputs; this payment has ${tx.outputs.length}: sign it with a signature file instead`);
  }
  return { tx, prevs: inputs.map((i) => zcashPrevTx(params, i.prevTx, i.prevTxid)) };
}

/** signLegacy's Zcash case: the inputs at `accountPath`/change/index, the P2SH scriptPubKey of each. */
export async function signZcash(transport: Transport, params: ChainParams, tx: Tx, inputs: readonly LedgerInput[], accountPath: string): Promise<LegacySignature[]> {
  const problem = zcashAccountPathProblem(accountPath);
  if (problem) throw new LedgerError('ledger_wrong_key', `${problem}: this co-signer's key cannot sign on the Zcash app; sign with a signature file instead`);
  const { tx: v5, prevs } = zcashPreflight(params, tx, inputs);
  const account = parsePath(accountPath);
  return signZcashInputs(
    transport,
    params,
    v5,
    inputs.map((i, k) => ({
      index: i.index,
      prevTxid: i.prevTxid,
      prev: prevs[k]!,
      vout: i.vout,
      amount: i.amount,
      script: p2shScript(hash160(i.redeemScript)),
      sequence: i.sequence,
      path: [...account, ...i.below],
    })),
  );
}
