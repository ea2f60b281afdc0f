// When a payment confirms, every other payment of the desk that spends one of its inputs can never
// confirm: a replaced original, or a replacement whose original got mined first. Such a payment is
// dropped: `failed` when it had been broadcast, `cancelled` when it had not, with `droppedBy` naming
// the payment that confirmed (the views show it as "dropped"). No new state: both are terminal.
// A payment spending an output of a dropped one (a child-pays-for-parent on a replaced original's
// change) can never confirm either: it is dropped the same way, naming its parent.
import { CoordinatorError } from '../errors.ts';
import { IN_FLIGHT, requirePayment, transition } from './payments.ts';
import { paymentOutpoints } from './replace.ts';
import type { PaymentRow } from '../store/store.ts';
import { outpointKey } from './spend.ts';
import { requireWallet, type CoreDeps } from '../wallets.ts';

/** Drops the in-flight payments that spend an input of `confirmed`, and those spending their outputs; returns their ids. */
export function dropConflicts(deps: CoreDeps, confirmed: PaymentRow): string[] {
  if (confirmed.state !== 'confirmed') throw new CoordinatorError('bad_state', `payment ${confirmed.id} is ${confirmed.state}, not confirmed`);
  const w = requireWallet(deps, confirmed.walletId);
  const spent = new Set(paymentOutpoints(confirmed, w).map(outpointKey));
  const dropped: string[] = [];
  const drop = (q: PaymentRow, why: string) => {
    transition(deps, requirePayment(deps, q.id), q.state === 'broadcast' ? 'failed' : 'cancelled', why, { reason: why });
    deps.store.updatePayment(q.id, { droppedBy: confirmed.id });
    dropped.push(q.id);
  };
  for (const q of deps.store.payments(w.id)) {
    if (q.id === confirmed.id || !IN_FLIGHT.includes(q.state)) continue;
    if (!paymentOutpoints(q, w).some((o) => spent.has(outpointKey(o)))) continue;
    drop(q, `dropped: payment ${confirmed.id} (${confirmed.txid ?? ''}) spent the same inputs and confirmed`);
  }
  // Children of what was dropped, and theirs: their parent's outputs will never exist.
  for (let i = 0; i < dropped.length; i++) {
    const parent = requirePayment(deps, dropped[i]!);
    if (!parent.txid) continue;
    for (const q of deps.store.payments(w.id)) {
      if (!IN_FLIGHT.includes(q.state) || !paymentOutpoints(q, w).some((o) => o.txid === parent.txid)) continue;
      drop(q, `dropped: it spends an output of payment ${parent.id} (${parent.txid}), which payment ${confirmed.id} replaced and which can never confirm`);
    }
  }
  return dropped;
}

/** The payments that replace `p` (bumps, cancels), oldest first. */
export function replacementsOf(deps: Pick<CoreDeps, 'store'>, p: PaymentRow): PaymentRow[] {
  return deps.store.payments(p.walletId).filter((q) => q.replaces === p.id);
}
