// How a payment stands to replacements and child-pays-for-parent, for the payment detail screen.
import { addressToScript, decodeTx, equalBytes } from '../../shared/coins/index.ts';
import { replacementsOf } from '../core/payments/dropped.ts';
import { relaysReplacements } from '../core/payments/fees.ts';
import { IN_FLIGHT } from '../core/payments/payments.ts';
import { paymentOutpoints, refusedReplacement, whyNotReplaceable } from '../core/payments/replace.ts';
import type { CoordinatorStore, PaymentRow } from '../core/store/store.ts';
import { outpointKey } from '../core/payments/outpoints.ts';
import { requireWallet, walletParams } from '../core/wallets/wallets.ts';
import type { ReplacementView } from './contract.ts';

/**
 * The payment whose output a dropped `p` spends and that was replaced: the one its dropper
 * conflicts with (shares an input), or one dropped by the same payment (a child's child), or,
 * for a replacement sent from elsewhere, the payment it spends from.
 */
function droppedParentOf(deps: { store: CoordinatorStore }, p: PaymentRow): PaymentRow | undefined {
  if (p.droppedBy === null && p.droppedByTxid === null) return undefined;
  const w = requireWallet(deps, p.walletId);
  const spent = new Set(paymentOutpoints(p, w).map((o) => o.txid));
  const parents = deps.store.payments(p.walletId).filter((q) => q.id !== p.id && q.txid !== null && spent.has(q.txid));
  const by = p.droppedBy === null ? null : deps.store.payment(p.droppedBy);
  if (!by) return parents[0];
  const byInputs = new Set(paymentOutpoints(by, w).map(outpointKey));
  return parents.find((q) => q.droppedBy === by.id || (q.id !== by.id && paymentOutpoints(q, w).some((o) => byInputs.has(outpointKey(o)))));
}

/** The payment a child-pays-for-parent spends an output of: the one it speeds up. */
export function cpfpParentOf(deps: { store: CoordinatorStore }, p: PaymentRow): PaymentRow | undefined {
  if (p.kind !== 'cpfp') return undefined;
  const spent = new Set(paymentOutpoints(p, requireWallet(deps, p.walletId)).map((o) => o.txid));
  return deps.store.payments(p.walletId).find((q) => q.id !== p.id && q.txid !== null && spent.has(q.txid));
}

/** The children-pay-for-parent proposed from `p`'s outputs. */
function cpfpChildrenOf(deps: { store: CoordinatorStore }, p: PaymentRow): PaymentRow[] {
  if (p.txid === null) return [];
  const w = requireWallet(deps, p.walletId);
  return deps.store.payments(p.walletId).filter((q) => q.kind === 'cpfp' && paymentOutpoints(q, w).some((o) => o.txid === p.txid));
}

/**
 * `relayed`: whether the service's node relays replacements (asked by the caller that can wait for
 * the service; absent: the coin network's default). A replacement the network refused leaves the
 * original stuck: the original then offers a child from its change, and both link to each other.
 */
export function replacementView(deps: { store: CoordinatorStore }, p: PaymentRow, relayed?: boolean): ReplacementView {
  const w = requireWallet(deps, p.walletId);
  const replacements = replacementsOf(deps, p);
  const replacedBy = replacements.find((q) => q.state === 'broadcast' || q.state === 'confirmed');
  const open = replacements.find((q) => IN_FLIGHT.includes(q.state) && !refusedReplacement(q));
  const stuck = p.state === 'broadcast' && !replacedBy && !open;
  const why = p.state === 'broadcast' ? whyNotReplaceable(deps, p, relayed ?? relaysReplacements(w.coin)) : null;
  let change: ReplacementView['change_output'] = null;
  if (stuck && why !== null && p.txid) {
    const params = walletParams(w);
    const ours = deps.store.addresses(w.id).filter((a) => a.change);
    const vout = decodeTx(p.unsignedTx, params).outputs.findIndex((o) => ours.some((a) => equalBytes(addressToScript(params, a.address), o.script)));
    if (vout >= 0) change = { txid: p.txid, vout };
  }
  return {
    kind: p.kind,
    replaces: p.replaces,
    replaced_by: replacedBy?.id ?? null,
    dropped_by: p.droppedBy,
    dropped_by_txid: p.droppedByTxid,
    relief: !stuck ? null : why === null ? 'replace' : change ? 'cpfp' : null,
    not_replaceable: stuck ? why : null,
    change_output: change,
    replacements: replacements.map((q) => ({ id: q.id, kind: q.kind === 'cancel' ? 'cancel' : 'bump', state: q.state, refused: refusedReplacement(q) ? q.lastError : null })),
    refused: refusedReplacement(p) ? p.lastError : null,
    dropped_parent: droppedParentOf(deps, p)?.id ?? null,
    parent: cpfpParentOf(deps, p)?.id ?? null,
    children: cpfpChildrenOf(deps, p).map((q) => ({ id: q.id, state: q.state })),
    home: w.vaultTemplate ? 'vault' : 'wallet',
  };
}
