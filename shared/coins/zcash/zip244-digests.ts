/**
 * ZIP-244's digest tree of a v5 transaction: T.1 header, T.2 transparent, T.3 Sapling and T.4
 * Orchard digests, combined into the txid digest; and the authorising-data digest (the part of
 * the wtxid the txid leaves out). The signature digest (sighash/zip244.ts) reuses T.1, T.3, T.4
 * and pieces of T.2.
 */
import { ByteWriter } from '../bytes.ts';
import { encodeOutpoint, encodeOutput } from '../tx-transparent.ts';
import type { TxInput, TxOutput } from '../tx-transparent.ts';
import { zcashHeader } from '../tx-zcash.ts';
import type { OrchardBundle, SaplingBundle, ZcashV5Tx } from '../tx-zcash.ts';
import { blake2b256, personalization, taggedHash } from './blake2b.ts';

function u32(v: number): Uint8Array {
  return new ByteWriter().writeU32LE(v >>> 0).toBytes();
}

function i64(v: bigint): Uint8Array {
  return new ByteWriter().writeU64LE(BigInt.asUintN(64, v)).toBytes();
}

/** T.1 */
export function headerDigest(tx: ZcashV5Tx): Uint8Array {
  return taggedHash('ZTxIdHeadersHash', u32(zcashHeader(tx)), u32(tx.versionGroupId), u32(tx.consensusBranchId), u32(tx.locktime), u32(tx.expiryHeight));
}

/** T.2a: every outpoint. */
export function prevoutsDigest(inputs: readonly TxInput[]): Uint8Array {
  return taggedHash('ZTxIdPrevoutHash', ...inputs.map((input, i) => encodeOutpoint(input, i)));
}

/** T.2b: every sequence number. */
export function sequenceDigest(inputs: readonly TxInput[]): Uint8Array {
  return taggedHash('ZTxIdSequencHash', ...inputs.map((input) => u32(input.sequence)));
}

/** T.2c: the given outputs, serialized (all of them for the txid). */
export function outputsDigest(outputs: readonly TxOutput[], firstIndex = 0): Uint8Array {
  return taggedHash('ZTxIdOutputsHash', ...outputs.map((output, i) => encodeOutput(output, firstIndex + i)));
}

/** T.2 */
export function transparentDigest(tx: Pick<ZcashV5Tx, 'inputs' | 'outputs'>): Uint8Array {
  if (tx.inputs.length + tx.outputs.length === 0) return taggedHash('ZTxIdTranspaHash');
  return taggedHash('ZTxIdTranspaHash', prevoutsDigest(tx.inputs), sequenceDigest(tx.inputs), outputsDigest(tx.outputs));
}

/** T.3 */
export function saplingDigest(sapling: SaplingBundle): Uint8Array {
  const { spends, outputs } = sapling;
  if (spends.length + outputs.length === 0) return taggedHash('ZTxIdSaplingHash');
  const spendsDigest =
    spends.length === 0
      ? taggedHash('ZTxIdSSpendsHash')
      : taggedHash(
          'ZTxIdSSpendsHash',
          taggedHash('ZTxIdSSpendCHash', ...spends.map((s) => s.nullifier)),
          taggedHash('ZTxIdSSpendNHash', ...spends.flatMap((s) => [s.cv, s.anchor, s.rk])),
        );
  const outputsPart =
    outputs.length === 0
      ? taggedHash('ZTxIdSOutputHash')
      : taggedHash(
          'ZTxIdSOutputHash',
          taggedHash('ZTxIdSOutC__Hash', ...outputs.flatMap((o) => [o.cmu, o.ephemeralKey, o.encCiphertext.subarray(0, 52)])),
          taggedHash('ZTxIdSOutM__Hash', ...outputs.map((o) => o.encCiphertext.subarray(52, 564))),
          taggedHash('ZTxIdSOutN__Hash', ...outputs.flatMap((o) => [o.cv, o.encCiphertext.subarray(564), o.outCiphertext])),
        );
  return taggedHash('ZTxIdSaplingHash', spendsDigest, outputsPart, i64(sapling.valueBalance));
}

/** T.4 */
export function orchardDigest(orchard: OrchardBundle | undefined): Uint8Array {
  if (orchard === undefined || orchard.actions.length === 0) return taggedHash('ZTxIdOrchardHash');
  const { actions } = orchard;
  return taggedHash(
    'ZTxIdOrchardHash',
    taggedHash('ZTxIdOrcActCHash', ...actions.flatMap((a) => [a.nullifier, a.cmx, a.ephemeralKey, a.encCiphertext.subarray(0, 52)])),
    taggedHash('ZTxIdOrcActMHash', ...actions.map((a) => a.encCiphertext.subarray(52, 564))),
    taggedHash('ZTxIdOrcActNHash', ...actions.flatMap((a) => [a.cv, a.rk, a.encCiphertext.subarray(564), a.outCiphertext])),
    Uint8Array.of(orchard.flags),
    i64(orchard.valueBalance),
    orchard.anchor,
  );
}

/**
 * The root of the tree, personalised with the branch id: over T.2 for the txid, over the
 * transparent signature digest (S.2) for a signature.
 */
export function rootDigest(tx: ZcashV5Tx, transparent: Uint8Array): Uint8Array {
  return blake2b256(personalization('ZcashTxHash_', tx.consensusBranchId), headerDigest(tx), transparent, saplingDigest(tx.sapling), orchardDigest(tx.orchard));
}

/** The txid digest, natural order (zcashd shows it reversed, like every txid). */
export function txidDigest(tx: ZcashV5Tx): Uint8Array {
  return rootDigest(tx, transparentDigest(tx));
}

/** The authorising-data commitment (scriptSigs, proofs, signatures) of the wtxid. */
export function authDigest(tx: ZcashV5Tx): Uint8Array {
  const scripts = taggedHash('ZTxAuthTransHash', ...tx.inputs.map((i) => new ByteWriter().writeVarBytes(i.scriptSig).toBytes()));
  const { sapling, orchard } = tx;
  const saplingAuth =
    sapling.spends.length + sapling.outputs.length === 0
      ? taggedHash('ZTxAuthSapliHash')
      : taggedHash(
          'ZTxAuthSapliHash',
          ...sapling.spends.map((s) => s.zkproof),
          ...sapling.spends.map((s) => s.spendAuthSig),
          ...sapling.outputs.map((o) => o.zkproof),
          sapling.bindingSig ?? new Uint8Array(0),
        );
  const orchardAuth =
    orchard === undefined || orchard.actions.length === 0
      ? taggedHash('ZTxAuthOrchaHash')
      : taggedHash('ZTxAuthOrchaHash', orchard.proof, ...orchard.actions.map((a) => a.spendAuthSig), orchard.bindingSig);
  return blake2b256(personalization('ZTxAuthHash_', tx.consensusBranchId), scripts, saplingAuth, orchardAuth);
}
