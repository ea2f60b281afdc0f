// The payment as a PSBTv2 (BIP370) for the Bitcoin app >= 2.1, built with ledger-bitcoin's own
// PsbtV2 from what the desk stored: each input's whole previous transaction (legacy P2SH needs
// it), its redeem script and every co-signer's key origin; the change output's script and key
// origins, so the device recognises it as the wallet's own and does not ask to approve it.
import { PsbtV2 } from 'ledger-bitcoin';
import { derivePublicKey, equalBytes, hash160, hexToBytes, p2shScript, reverseBytes, type ChainParams, type Tx } from '../../../shared/coins/index.ts';
import { addressPath } from '../../../shared/coins/multisig-address.ts';
import type { AddressRow, CosignerRow } from '../store/store.ts';
import type { LedgerInput } from './payment-inputs.ts';
import { parsePath } from './paths.ts';
import { UNKNOWN_FINGERPRINT } from './policy.ts';

/** Key origins of the wallet's keys at [change, index], for the co-signers whose origin is known. */
function origins(params: ChainParams, cosigners: readonly CosignerRow[], change: number, index: number) {
  return cosigners.flatMap((c) =>
    c.fingerprint === UNKNOWN_FINGERPRINT || c.derivationPath === 'm'
      ? []
      : [{ pubkey: Buffer.from(derivePublicKey(params, c.xpub, addressPath(change === 1, index))), fingerprint: Buffer.from(hexToBytes(c.fingerprint)), path: [...parsePath(c.derivationPath), change, index] }],
  );
}

const amountOf = (v: bigint): number => {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount ${v} is too large for a PSBT built here`);
  return Number(v);
};

export function paymentPsbt(params: ChainParams, tx: Tx, inputs: readonly LedgerInput[], cosigners: readonly CosignerRow[], walletAddresses: readonly AddressRow[]): PsbtV2 {
  const psbt = new PsbtV2();
  psbt.setGlobalPsbtVersion(2);
  psbt.setGlobalTxVersion(tx.version);
  psbt.setGlobalFallbackLocktime(tx.locktime);
  psbt.setGlobalInputCount(inputs.length);
  psbt.setGlobalOutputCount(tx.outputs.length);
  for (const input of inputs) {
    const i = input.index;
    // PSBT_IN_PREVIOUS_TXID is in the transaction's own byte order, not the displayed one.
    psbt.setInputPreviousTxId(i, Buffer.from(reverseBytes(hexToBytes(input.prevTxid))));
    psbt.setInputOutputIndex(i, input.vout);
    psbt.setInputSequence(i, input.sequence);
    psbt.setInputNonWitnessUtxo(i, Buffer.from(input.prevTx));
    psbt.setInputRedeemScript(i, Buffer.from(input.redeemScript));
    for (const o of origins(params, cosigners, ...input.below)) psbt.setInputBip32Derivation(i, o.pubkey, o.fingerprint, o.path);
  }
  tx.outputs.forEach((out, i) => {
    psbt.setOutputAmount(i, amountOf(out.value));
    psbt.setOutputScript(i, Buffer.from(out.script));
    const own = walletAddresses.find((a) => equalBytes(p2shScript(hash160(a.redeemScript)), out.script));
    if (own) {
      psbt.setOutputRedeemScript(i, Buffer.from(own.redeemScript));
      for (const o of origins(params, cosigners, own.change ? 1 : 0, own.index)) psbt.setOutputBip32Derivation(i, o.pubkey, o.fingerprint, o.path);
    }
  });
  return psbt;
}
