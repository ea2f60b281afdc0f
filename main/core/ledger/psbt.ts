// The payment as a PSBTv2 (BIP370) for the Bitcoin app >= 2.1, built with ledger-bitcoin's own
// PsbtV2 from what the desk stored: each input's whole previous transaction (legacy P2SH needs
// it; the app also asks it of segwit inputs, whose amount it proves), for segwit inputs the spent
// output (amount and script) and the witness script, the redeem script (P2SH and nested segwit),
// every co-signer's key origin; the change output's key origins (and redeem script), so the
// device recognises it as the wallet's own from its policy and does not ask to approve it. A vault
// input names only the keys of the path it is spent on (ledger/vault-signing.ts): the app signs for
// a key of its policy only where an input's derivations name it.
import { PsbtV2 } from 'ledger-bitcoin';
import { derivePublicKey, equalBytes, hexToBytes, reverseBytes, type ChainParams, type Tx } from '../../../shared/coins/index.ts';
import type { MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import { addressPath } from '../../../shared/coins/multisig-address.ts';
import type { AddressRow, CosignerRow } from '../store/store.ts';
import type { LedgerInput } from './payment-inputs.ts';
import { parsePath } from './paths.ts';
import { UNKNOWN_FINGERPRINT } from './policy.ts';
import { spendScripts } from './spend-scripts.ts';

/** A key's origin as the PSBT carries it (PSBT_IN/OUT_BIP32_DERIVATION). */
export interface PsbtKeyOrigin {
  pubkey: Buffer;
  fingerprint: Buffer;
  path: number[];
}

/** Which keys the PSBT names, with their origins: for each input, and for each change address of the wallet. */
export interface PsbtOrigins {
  input(input: LedgerInput): PsbtKeyOrigin[];
  change(a: AddressRow): PsbtKeyOrigin[];
}

/** An M-of-N wallet: every co-signer whose origin is known, its key at [change, index]. */
export function multisigOrigins(params: ChainParams, cosigners: readonly CosignerRow[]): PsbtOrigins {
  const at = (change: number, index: number) =>
    cosigners.flatMap((c) =>
      c.fingerprint === UNKNOWN_FINGERPRINT || c.derivationPath === 'm'
        ? []
        : [{ pubkey: Buffer.from(derivePublicKey(params, c.xpub, addressPath(change === 1, index))), fingerprint: Buffer.from(hexToBytes(c.fingerprint)), path: [...parsePath(c.derivationPath), change, index] }],
    );
  return { input: (input) => at(...input.below), change: (a) => at(a.change ? 1 : 0, a.index) };
}

const amountOf = (v: bigint): number => {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount ${v} is too large for a PSBT built here`);
  return Number(v);
};

export function paymentPsbt(tx: Tx, inputs: readonly LedgerInput[], keys: PsbtOrigins, walletAddresses: readonly AddressRow[], scriptType: MultisigScriptType = 'p2sh'): PsbtV2 {
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
    const { spend } = input;
    if (spend.witnessScript) {
      psbt.setInputWitnessUtxo(i, amountOf(input.amount), Buffer.from(spend.scriptPubKey));
      psbt.setInputWitnessScript(i, Buffer.from(spend.witnessScript));
    }
    if (spend.redeemScript) psbt.setInputRedeemScript(i, Buffer.from(spend.redeemScript));
    for (const o of keys.input(input)) psbt.setInputBip32Derivation(i, o.pubkey, o.fingerprint, o.path);
  }
  tx.outputs.forEach((out, i) => {
    psbt.setOutputAmount(i, amountOf(out.value));
    psbt.setOutputScript(i, Buffer.from(out.script));
    const own = walletAddresses.map((a) => ({ a, spend: spendScripts(scriptType, a.redeemScript) })).find(({ spend }) => equalBytes(spend.scriptPubKey, out.script));
    if (own) {
      // ledger-bitcoin's PsbtV2 has no setter for an output's witness script; the app checks change by its policy and the key origins.
      if (own.spend.redeemScript) psbt.setOutputRedeemScript(i, Buffer.from(own.spend.redeemScript));
      for (const o of keys.change(own.a)) psbt.setOutputBip32Derivation(i, o.pubkey, o.fingerprint, o.path);
    }
  });
  return psbt;
}
