// Submitting a fully signed payment to the network through the service, and following it to
// confirmation.
import { ApiClientError } from '../../../shared/api/client.ts';
import { bytesToHex, decodeTx, equalBytes, txidHex } from '../../../shared/coins/index.ts';
import { vaultPaymentInputs, type VaultPaymentInput } from './vault-inputs.ts';
import { multisigSignatures } from './signed-size.ts';
import type { PaymentHashRow, SignatureRow } from '../store/store.ts';
import { CoordinatorError } from '../errors.ts';
import { dropConflicts, dropIfParentReplaced, replacementsOf } from './dropped.ts';
import { confirmationWords, requirePayment, spentAddresses, transition } from './payments.ts';
import type { PaymentRow } from '../store/store.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { historyOf } from '../wallets/funds.ts';

/** Submits a ready payment. A rejected broadcast keeps it ready (retryable) with the node's reason. */
export async function submitPayment(deps: CoreDeps, id: string): Promise<PaymentRow> {
  const p = requirePayment(deps, id);
  if (p.state !== 'ready') throw new CoordinatorError('bad_state', `payment ${id} is ${p.state}, not ready: ${p.state === 'awaiting_signatures' ? 'signatures are missing' : 'nothing to submit'}`);
  const w = requireWallet(deps, p.walletId);
  const hashes = deps.store.paymentHashes(id);
  const sigs = deps.store.signatures(id);
  const vault = vaultPaymentInputs(deps, w, p);
  // A vault: every stored signature of the path's keys (each checked when imported); the service
  // finalizes with the cheapest satisfaction they allow. M of N: exactly M per input, in script order.
  const signatures = vault
    ? vaultSignatures(vault, hashes, sigs)
    : multisigSignatures(deps, w, p).map((s) => ({ input_index: s.inputIndex, public_key: bytesToHex(s.publicKey), signature: bytesToHex(s.signature), hash_to_sign: bytesToHex(s.hashToSign) }));
  try {
    const sent = await deps.api.signAndSendMultisig(w.coin, { tx: bytesToHex(p.unsignedTx), signatures });
    // A vault's txid does not depend on its witness: the one broadcast must be the one proposed.
    const proposed = vault ? txidHex(decodeTx(p.unsignedTx, walletParams(w))) : null;
    if (proposed !== null && sent.message !== proposed) {
      deps.store.transaction(() => {
        deps.store.updatePayment(id, { lastError: `the service says it broadcast ${sent.message}, not this payment's ${proposed}` });
        deps.store.audit(deps.actor, 'payment.broadcast_rejected', `payment ${id}: the service answered txid ${sent.message}, the payment's is ${proposed}`, null, { paymentId: id });
      });
      throw new CoordinatorError('broadcast_rejected', `the service says it broadcast transaction ${sent.message}, but payment ${id} is ${proposed}: not marked as sent; check the service before retrying`);
    }
    transition(deps, p, 'broadcast', `broadcast as ${sent.message}`, { txid: sent.message, lastError: null });
    // The node took it: a replacement evicted the children of what it replaces, at once.
    deps.store.transaction(() => dropConflicts(deps, requirePayment(deps, id)));
  } catch (err) {
    if (!(err instanceof ApiClientError)) throw err;
    deps.store.transaction(() => {
      deps.store.updatePayment(id, { lastError: err.message });
      deps.store.audit(deps.actor, 'payment.broadcast_rejected', `payment ${id}: ${err.message}`, null, { paymentId: id });
    });
    throw new CoordinatorError('broadcast_rejected', `the network refused payment ${id} (it stays ready to retry): ${err.message}`);
  }
  return requirePayment(deps, id);
}

/** The signatures of a vault payment for sign_and_send: each input's by the keys of its path. */
function vaultSignatures(inputs: readonly VaultPaymentInput[], hashes: readonly PaymentHashRow[], sigs: readonly SignatureRow[]): { input_index: number; public_key: string; signature: string; hash_to_sign: string }[] {
  return inputs.flatMap((v) =>
    v.spend.pathKeys.flatMap((k) =>
      sigs
        .filter((s) => s.inputIndex === v.inputIndex && equalBytes(s.publicKey, k.publicKey))
        .slice(0, 1)
        .map((s) => ({
          input_index: v.inputIndex,
          public_key: bytesToHex(s.publicKey),
          signature: bytesToHex(s.signature),
          hash_to_sign: bytesToHex(hashes.find((h) => h.inputIndex === v.inputIndex && equalBytes(h.publicKey, s.publicKey))!.hash),
        })),
    ),
  );
}

export { confirmationWords };

/** Reads the broadcast transaction's confirmations from the service's history of the spent addresses. */
export async function refreshConfirmations(deps: CoreDeps, id: string, required = 1): Promise<PaymentRow> {
  const p = requirePayment(deps, id);
  if ((p.state !== 'broadcast' && p.state !== 'confirmed') || !p.txid) return p;
  const w = requireWallet(deps, p.walletId);
  const entry = (await historyOf(deps.api, w.coin, spentAddresses(deps, p))).find((t) => t.txid === p.txid);
  // Still unconfirmed: a broadcast replacement may have confirmed in its place (and drops it).
  const replacements = async () => {
    if (requirePayment(deps, id).state !== 'broadcast') return;
    for (const q of replacementsOf(deps, p)) if (q.state === 'broadcast') await refreshConfirmations(deps, q.id, required);
  };
  if (!entry) {
    await replacements();
    // Gone from the history: a child whose parent was replaced from elsewhere, if the node agrees.
    await dropIfParentReplaced(deps, id);
    return requirePayment(deps, id);
  }
  deps.store.transaction(() => {
    // Read again: the background follower and a screen may both have asked while the service answered.
    const now = requirePayment(deps, id);
    if (now.state === 'broadcast' && entry.confirmations >= required) {
      transition(deps, now, 'confirmed', confirmationWords(entry), { confirmations: entry.confirmations });
      dropConflicts(deps, requirePayment(deps, id));
    } else {
      deps.store.updatePayment(id, { confirmations: entry.confirmations });
    }
  });
  await replacements();
  return requirePayment(deps, id);
}

/**
 * A broadcast payment's confirmations refreshed, for whoever looks at it. A service that cannot
 * answer changes nothing: the stored state is still right, and the next look tries again.
 */
export async function followPayment(deps: CoreDeps, id: string): Promise<PaymentRow> {
  const p = requirePayment(deps, id);
  if (p.state !== 'broadcast') return p;
  try {
    return await refreshConfirmations(deps, id);
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    return requirePayment(deps, id);
  }
}
