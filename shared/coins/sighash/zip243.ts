/**
 * ZIP-243: the signature hash of Sapling-era v4 transactions (zcashd's SignatureHash for
 * SIGVERSION_SAPLING). BLAKE2b-256 personalised "ZcashSigHash" || branch id, over the header,
 * digests of prevouts, sequences, outputs, JoinSplits and Sapling spends and outputs (32 zero
 * bytes for an empty or excluded part), lock time, expiry, value balance, the 4-byte hash type
 * and, for a transparent input, its outpoint, script code, amount and sequence.
 */
import { ByteWriter } from '../bytes.ts';
import { CoinError } from '../errors.ts';
import { encodeOutpoint, encodeOutput } from '../tx-transparent.ts';
import { encodeJoinSplit, encodeSaplingOutputV4, encodeSaplingSpendForSighash, zcashHeader } from '../tx-zcash.ts';
import type { ZcashV4Tx } from '../tx-zcash.ts';
import { blake2b256, personalization, taggedHash } from '../zcash/blake2b.ts';
import { SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE } from './legacy.ts';

const ZERO32: Uint8Array = new Uint8Array(32);

/** The transparent input a signature is for; null signs for the shielded parts (NOT_AN_INPUT). */
export interface Zip243Input {
  index: number;
  /** The redeem script (P2SH) or scriptPubKey (P2PKH), hashed with its length as given. */
  scriptCode: Uint8Array;
  amount: bigint;
}

function u32(v: number): Uint8Array {
  return new ByteWriter().writeU32LE(v >>> 0).toBytes();
}

export function zip243Sighash(tx: ZcashV4Tx, input: Zip243Input | null, hashType: number, consensusBranchId: number): Uint8Array {
  const spent = input === null ? undefined : tx.inputs[input.index];
  if (input !== null && (!Number.isInteger(input.index) || spent === undefined)) {
    throw new CoinError(`input index ${input.index} is out of range: the transaction has ${tx.inputs.length} input(s)`);
  }
  const type = hashType >>> 0;
  const base = type & 0x1f;
  const anyoneCanPay = (type & SIGHASH_ANYONECANPAY) !== 0;
  const singleOrNone = base === SIGHASH_SINGLE || base === SIGHASH_NONE;

  const hashPrevouts = anyoneCanPay ? ZERO32 : taggedHash('ZcashPrevoutHash', ...tx.inputs.map((i, n) => encodeOutpoint(i, n)));
  const hashSequence = anyoneCanPay || singleOrNone ? ZERO32 : taggedHash('ZcashSequencHash', ...tx.inputs.map((i) => u32(i.sequence)));
  let hashOutputs = ZERO32;
  if (!singleOrNone) hashOutputs = taggedHash('ZcashOutputsHash', ...tx.outputs.map((o, n) => encodeOutput(o, n)));
  else if (base === SIGHASH_SINGLE && input !== null) {
    const output = tx.outputs[input.index];
    if (output !== undefined) hashOutputs = taggedHash('ZcashOutputsHash', encodeOutput(output, input.index));
  }
  const { sapling, joinSplits } = tx;
  const hashJoinSplits =
    joinSplits.length === 0 ? ZERO32 : taggedHash('ZcashJSplitsHash', ...joinSplits.map((js, i) => encodeJoinSplit(js, i)), tx.joinSplitPubKey ?? new Uint8Array(0));
  const hashSpends = sapling.spends.length === 0 ? ZERO32 : taggedHash('ZcashSSpendsHash', ...sapling.spends.map((s, i) => encodeSaplingSpendForSighash(s, i)));
  const hashOutputsSapling = sapling.outputs.length === 0 ? ZERO32 : taggedHash('ZcashSOutputHash', ...sapling.outputs.map((o, i) => encodeSaplingOutputV4(o, i)));

  const w = new ByteWriter();
  w.writeU32LE(zcashHeader(tx)).writeU32LE(tx.versionGroupId >>> 0);
  w.writeBytes(hashPrevouts).writeBytes(hashSequence).writeBytes(hashOutputs);
  w.writeBytes(hashJoinSplits).writeBytes(hashSpends).writeBytes(hashOutputsSapling);
  w.writeU32LE(tx.locktime).writeU32LE(tx.expiryHeight);
  w.writeU64LE(BigInt.asUintN(64, sapling.valueBalance));
  w.writeU32LE(type);
  if (input !== null && spent !== undefined) {
    if (input.amount < 0n || input.amount > 0xffffffffffffffffn) throw new CoinError(`input ${input.index}: amount out of range: ${input.amount}`);
    w.writeBytes(encodeOutpoint(spent, input.index)).writeVarBytes(input.scriptCode).writeU64LE(input.amount).writeU32LE(spent.sequence);
  }
  return blake2b256(personalization('ZcashSigHash', consensusBranchId), w.toBytes());
}
