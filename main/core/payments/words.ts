// How the desk names a payment in a sentence: as the payments list shows it (what it pays, to whom,
// and its purpose when someone gave one), never by its internal id.
import { coinAmount } from '../../../shared/coins/units.ts';
import { plural } from '../../../shared/api/words.ts';
import type { PaymentRow } from '../store/store.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';

/** "payment of 0.5 LTC to ltc1q… ("Rent")": one payment named for a treasurer. */
export function paymentName(deps: Pick<CoreDeps, 'store'>, p: PaymentRow): string {
  const w = requireWallet(deps, p.walletId);
  const recipients = deps.store.paymentRecipients(p.id).length;
  const purpose = deps.store.labels.get(w.id, 'payment', p.id)?.label;
  return `payment of ${coinAmount(walletParams(w), p.amount)} to ${recipients > 1 ? plural(recipients, 'recipient') : p.to}${purpose ? ` ("${purpose}")` : ''}`;
}

/** Payments named by id where the desk holds them; an id it does not know is left as it is. */
export const paymentNames = (deps: Pick<CoreDeps, 'store'>, ids: readonly string[]): string =>
  ids
    .map((id) => {
      const p = deps.store.payment(id);
      return p ? paymentName(deps, p) : `payment ${id}`;
    })
    .join('; ');
