// How a payment stands to replacements and child-pays-for-parent, for the payment detail screen.
import { addressToScript, decodeTx, equalBytes } from '../../shared/coins/index.ts';
import { replacementsOf } from '../core/payments/dropped.ts';
import { IN_FLIGHT } from '../core/payments/payments.ts';
import { whyNotReplaceable } from '../core/payments/replace.ts';
import type { CoordinatorStore, PaymentRow } from '../core/store/store.ts';
import { requireWallet, walletParams } from '../core/wallets.ts';
import type { ReplacementView } from './contract.ts';

export function replacementView(deps: { store: CoordinatorStore }, p: PaymentRow): ReplacementView {
  const replacements = replacementsOf(deps, p);
  const replacedBy = replacements.find((q) => q.state === 'broadcast' || q.state === 'confirmed');
  const open = replacements.find((q) => IN_FLIGHT.includes(q.state));
  const stuck = p.state === 'broadcast' && !replacedBy && !open;
  const why = p.state === 'broadcast' ? whyNotReplaceable(deps, p) : null;
  let change: ReplacementView['change_output'] = null;
  if (stuck && why !== null && p.txid) {
    const w = requireWallet(deps, p.walletId);
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
    relief: !stuck ? null : why === null ? 'replace' : change ? 'cpfp' : null,
    not_replaceable: stuck ? why : null,
    change_output: change,
  };
}
