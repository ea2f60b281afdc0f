/**
 * The BIP143 signature hash: the digest of segwit v0 inputs (Bitcoin, Litecoin, Bitcoin Gold) and,
 * with the fork id in bits 8..31 of the hash type it commits to, of every input of the fork-id
 * coins (Bitcoin Cash Node's SignatureHash with SIGHASH_FORKID, BTCGPU's with FORKID_BTG). One
 * implementation: the callers differ only in the 32-bit hash type they pass.
 */
import { ByteWriter, concatBytes } from '../bytes.ts';
import { CoinError } from '../errors.ts';
import { sha256d } from '../hash.ts';
import { encodeOutpoint, encodeOutput } from '../tx-transparent.ts';
import type { BitcoinTx } from '../tx.ts';
import { SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE } from './legacy.ts';

const ZERO32: Uint8Array = new Uint8Array(32);

/**
 * The 32-byte digest (natural order) a BIP143 signature of input `inputIndex` commits to.
 * `hashTypeInDigest` is the full 32-bit value hashed: 0x00000001 for a segwit input signed with
 * SIGHASH_ALL, 0x00000041 (BCH) or 0x00004F41 (BTG) for the fork-id coins; its low byte selects
 * ALL / NONE / SINGLE and ANYONECANPAY. `scriptCode` is hashed as given: the witness script of a
 * P2WSH spend (from its last executed OP_CODESEPARATOR on), the redeem script of a fork-id P2SH
 * spend, the scriptPubKey of a P2PKH one (and of P2WPKH, as BIP143 says). Bit 0x20
 * (SIGHASH_UTXOS) is hashed as part of the type but changes nothing else, as before Bitcoin
 * Cash's 2023 upgrade (the vectors are made so); signatureHash refuses it for a coin.
 */
export function bip143Sighash(tx: BitcoinTx, inputIndex: number, scriptCode: Uint8Array, amount: bigint, hashTypeInDigest: number): Uint8Array {
  const input = tx.inputs[inputIndex];
  if (!Number.isInteger(inputIndex) || input === undefined) {
    throw new CoinError(`input index ${inputIndex} is out of range: the transaction has ${tx.inputs.length} input(s)`);
  }
  if (amount < 0n || amount > 0xffffffffffffffffn) throw new CoinError(`input ${inputIndex}: amount out of range: ${amount}`);
  const type = hashTypeInDigest >>> 0;
  const base = type & 0x1f;
  const anyoneCanPay = (type & SIGHASH_ANYONECANPAY) !== 0;
  const singleOrNone = base === SIGHASH_SINGLE || base === SIGHASH_NONE;

  const hashPrevouts = anyoneCanPay ? ZERO32 : sha256d(concatBytes(...tx.inputs.map((i, n) => encodeOutpoint(i, n))));
  const hashSequence = anyoneCanPay || singleOrNone ? ZERO32 : sha256d(concatBytes(...tx.inputs.map((i) => u32(i.sequence))));
  let hashOutputs = ZERO32;
  const sameIndexOutput = tx.outputs[inputIndex];
  if (!singleOrNone) hashOutputs = sha256d(concatBytes(...tx.outputs.map((o, n) => encodeOutput(o, n))));
  else if (base === SIGHASH_SINGLE && sameIndexOutput !== undefined) hashOutputs = sha256d(encodeOutput(sameIndexOutput, inputIndex));

  const w = new ByteWriter();
  w.writeU32LE(tx.version >>> 0).writeBytes(hashPrevouts).writeBytes(hashSequence);
  w.writeBytes(encodeOutpoint(input, inputIndex)).writeVarBytes(scriptCode).writeU64LE(amount).writeU32LE(input.sequence);
  w.writeBytes(hashOutputs).writeU32LE(tx.locktime).writeU32LE(type);
  return sha256d(w.toBytes());
}

function u32(v: number): Uint8Array {
  return new ByteWriter().writeU32LE(v).toBytes();
}
