// An M-of-N payment's signatures as the service is given them, and the size they make: before the
// co-signers sign, the desk can only estimate with the largest signatures; once M have signed each
// input, the signed transaction is known to the byte, and so is its fee rate.
import { assembleMultisigSpend, decodeTx, equalBytes, parseMultisigRedeemScript, txVsize } from '../../../shared/coins/index.ts';
import { isBitcoinTx } from '../../../shared/coins/tx.ts';
import type { SuppliedSignature } from '../../../shared/coins/assemble.ts';
import type { PaymentRow, WalletRow } from '../store/store.ts';
import { walletParams, type CoreDeps } from '../wallets/wallets.ts';

/** Exactly M signatures per input, in redeem-script key order (what a multisig script checks), with the hash each signed. */
export function multisigSignatures(deps: Pick<CoreDeps, 'store'>, w: WalletRow, p: PaymentRow): Required<SuppliedSignature>[] {
  const hashes = deps.store.paymentHashes(p.id);
  const sigs = deps.store.signatures(p.id);
  return deps.store.paymentInputs(p.id).flatMap((inp) => {
    const keys = parseMultisigRedeemScript(inp.redeemScript)?.pubkeys ?? [];
    const chosen = keys.flatMap((k) => sigs.filter((s) => s.inputIndex === inp.inputIndex && equalBytes(s.publicKey, k))).slice(0, w.m);
    return chosen.map((s) => ({
      inputIndex: inp.inputIndex,
      publicKey: s.publicKey,
      signature: s.signature,
      hashToSign: hashes.find((h) => h.inputIndex === inp.inputIndex && equalBytes(h.publicKey, s.publicKey))!.hash,
    }));
  });
}

/** The signed transaction's virtual size once every input has M signatures (M-of-N, Bitcoin format); null before, or when it cannot be put together here. */
export function signedVsize(deps: Pick<CoreDeps, 'store'>, w: WalletRow, p: PaymentRow): number | null {
  if (w.vaultTemplate || p.state === 'awaiting_signatures' || p.state === 'cancelled') return null;
  const params = walletParams(w);
  const unsigned = decodeTx(p.unsignedTx, params);
  if (!isBitcoinTx(unsigned)) return null;
  const inputs = deps.store.paymentInputs(p.id);
  const signatures = multisigSignatures(deps, w, p);
  if (signatures.length !== inputs.length * w.m) return null;
  try {
    const spends = inputs.map((i) => ({ scriptType: w.scriptType, multisigScript: i.redeemScript, amount: i.amount }));
    return txVsize(assembleMultisigSpend(params, unsigned, spends, signatures));
  } catch {
    // A signature the assembler does not take: the estimate stands (submit says what is wrong).
    return null;
  }
}
