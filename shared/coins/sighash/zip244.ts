/**
 * ZIP-244: the signature hash of NU5 v5 transactions. The txid tree (zcash/zip244-digests.ts)
 * with its transparent branch replaced by S.2, which commits to the hash type, to every input's
 * amount and scriptPubKey, and to the input being signed (outpoint, amount, the scriptPubKey of
 * the output it spends, sequence). There is no script code: a P2SH spend commits to the P2SH
 * scriptPubKey, not to the redeem script.
 */
import { ByteWriter } from '../bytes.ts';
import { CoinError } from '../errors.ts';
import { encodeOutpoint } from '../tx-transparent.ts';
import type { ZcashV5Tx } from '../tx-zcash.ts';
import { taggedHash } from '../zcash/blake2b.ts';
import { outputsDigest, prevoutsDigest, rootDigest, sequenceDigest, transparentDigest } from '../zcash/zip244-digests.ts';
import { SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE } from './legacy.ts';

/** The output an input spends: what the amount- and script-committing digests need. */
export interface SpentOutput {
  readonly amount: bigint;
  readonly scriptPubKey: Uint8Array;
}

/** The only hash types ZIP-244 defines; zcashd refuses any other. */
const DEFINED_HASH_TYPES = new Set([0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);

function isCoinbase(tx: ZcashV5Tx): boolean {
  const [only] = tx.inputs;
  return tx.inputs.length === 1 && only !== undefined && only.vout === 0xffffffff && only.prevTxid.every((b) => b === 0);
}

function u32(v: number): Uint8Array {
  return new ByteWriter().writeU32LE(v >>> 0).toBytes();
}

function u64(v: bigint, what: string): Uint8Array {
  if (v < 0n || v > 0xffffffffffffffffn) throw new CoinError(`${what}: amount out of range: ${v}`);
  return new ByteWriter().writeU64LE(v).toBytes();
}

function script(bytes: Uint8Array): Uint8Array {
  return new ByteWriter().writeVarBytes(bytes).toBytes();
}

/**
 * The 32-byte digest (natural order) a signature commits to. `inputIndex` null is the shielded
 * signature hash (SIGHASH_ALL only). `prevouts` are the outputs spent by ALL inputs, in order;
 * they are needed whenever the transaction has non-coinbase transparent inputs.
 */
export function zip244Sighash(tx: ZcashV5Tx, inputIndex: number | null, prevouts: readonly SpentOutput[] | undefined, hashType: number): Uint8Array {
  const type = hashType >>> 0;
  if (inputIndex === null) {
    if (type !== SIGHASH_ALL) throw new CoinError('a shielded signature hash is always SIGHASH_ALL');
  } else {
    if (!Number.isInteger(inputIndex) || inputIndex < 0 || inputIndex >= tx.inputs.length) {
      throw new CoinError(`input index ${inputIndex} is out of range: the transaction has ${tx.inputs.length} input(s)`);
    }
    if (!DEFINED_HASH_TYPES.has(type)) throw new CoinError(`hash type 0x${type.toString(16)} is not defined for Zcash v5 transactions`);
    if ((type & 0x1f) === SIGHASH_SINGLE && inputIndex >= tx.outputs.length) {
      throw new CoinError(`input ${inputIndex}: SIGHASH_SINGLE needs an output at the same index`);
    }
  }
  // Coinbase, or nothing transparent spent: the transparent branch is the txid's (S.2).
  if (tx.inputs.length === 0 || isCoinbase(tx)) {
    if (inputIndex !== null) throw new CoinError('a coinbase input is not signed');
    return rootDigest(tx, transparentDigest(tx));
  }
  if (prevouts === undefined || prevouts.length !== tx.inputs.length) {
    throw new CoinError(
      `a Zcash v5 signature commits to the amount and script of every output the transaction spends: ` +
        `${tx.inputs.length} needed, ${prevouts?.length ?? 0} given`,
    );
  }
  const anyoneCanPay = (type & SIGHASH_ANYONECANPAY) !== 0;
  const base = type & 0x1f;
  const amounts = anyoneCanPay ? [] : prevouts.map((p, i) => u64(p.amount, `input ${i}`));
  const scripts = anyoneCanPay ? [] : prevouts.map((p) => script(p.scriptPubKey));
  let outputs: Uint8Array;
  if (base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) outputs = outputsDigest(tx.outputs);
  else if (base === SIGHASH_SINGLE && inputIndex !== null && tx.outputs[inputIndex] !== undefined) {
    outputs = outputsDigest(tx.outputs.slice(inputIndex, inputIndex + 1), inputIndex);
  } else outputs = outputsDigest([]);

  const input = inputIndex === null ? undefined : tx.inputs[inputIndex];
  const spent = inputIndex === null ? undefined : prevouts[inputIndex];
  const txin =
    inputIndex === null || input === undefined || spent === undefined
      ? taggedHash('Zcash___TxInHash')
      : taggedHash('Zcash___TxInHash', encodeOutpoint(input, inputIndex), u64(spent.amount, `input ${inputIndex}`), script(spent.scriptPubKey), u32(input.sequence));

  const transparent = taggedHash(
    'ZTxIdTranspaHash',
    Uint8Array.of(type),
    anyoneCanPay ? prevoutsDigest([]) : prevoutsDigest(tx.inputs),
    taggedHash('ZTxTrAmountsHash', ...amounts),
    taggedHash('ZTxTrScriptsHash', ...scripts),
    anyoneCanPay ? sequenceDigest([]) : sequenceDigest(tx.inputs),
    outputs,
    txin,
  );
  return rootDigest(tx, transparent);
}

