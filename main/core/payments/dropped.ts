// The one place that decides a payment is dropped: it can never confirm. No new state: a dropped
// payment is `failed` when it had been broadcast, `cancelled` when it had not, with `droppedBy`
// naming the desk's payment that made it impossible (or `droppedByTxid` the transaction, when the
// desk holds no payment of it); the views show it as "dropped". Three ways in:
// - a payment confirms: every other payment spending one of its inputs (a replaced original, or a
//   replacement whose original got mined first) is dropped, and the payments spending their outputs;
// - a replacement (bump, cancel) is accepted by the node: the node evicts every descendant of what it
//   replaces at once (BIP125), so the children spending the replaced payment's outputs (a
//   child-pays-for-parent on its change) are dropped then. The replaced payment itself stays
//   broadcast until one of the two confirms: a miner may still take it;
// - the follower finds a child the node no longer holds while a transaction spending its parent's
//   inputs is in the service's history (a replacement sent from elsewhere).
// A dropped payment is not final at once: a miner may still take it (a replaced original and its
// children, mined by a miner that never saw the replacement; a block undone). The follower looks at
// each again (recheckDropped) until what it conflicts with is BURIED blocks deep (then final), and
// a dropped payment that confirms after all is shown paid, with its audit entry. Until it is final,
// paying its recipients again is warned of (droppedButPossible).
import { ApiClientError } from '../../../shared/api/client.ts';
import { bytesToHex, decodeTx } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';
import { confirmationWords, IN_FLIGHT, requirePayment, spentAddresses, transition } from './payments.ts';
import { paymentOutpoints } from './replace.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import type { PaymentRow, WalletRow } from '../store/store.ts';
import { outpointKey } from './outpoints.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { coinAmount } from '../units.ts';
import { plural } from '../../../shared/api/words.ts';
import { historyOf } from '../wallets/funds.ts';

/** What made a payment impossible: a payment of the desk, or only a transaction (sent from elsewhere). */
type Dropper = { payment: PaymentRow; txid: string | null } | { payment: null; txid: string };

const dropperWords = (by: Dropper) => (by.payment ? `payment ${by.payment.id}` : `transaction ${by.txid} (sent from elsewhere)`);

function drop(deps: CoreDeps, q: PaymentRow, why: string, by: Dropper): void {
  transition(deps, requirePayment(deps, q.id), q.state === 'broadcast' ? 'failed' : 'cancelled', why, { reason: why });
  deps.store.updatePayment(q.id, by.payment ? { droppedBy: by.payment.id } : { droppedByTxid: by.txid });
}

/**
 * Drops the in-flight payments spending an output of `parents` (replaced, never to confirm), and
 * theirs; `only`: of the parents' own children, only this one (the others are looked at on their own).
 */
function dropDescendants(deps: CoreDeps, w: WalletRow, parents: readonly PaymentRow[], by: Dropper, replaced: 'replaced' | 'confirmed', only?: string): string[] {
  const dropped: string[] = [];
  const queue = parents.map((parent) => ({ parent, first: true }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { parent, first } = next;
    if (!parent.txid) continue;
    for (const q of deps.store.payments(w.id)) {
      if (first && only !== undefined && q.id !== only) continue;
      if (!IN_FLIGHT.includes(q.state) || !paymentOutpoints(q, w).some((o) => o.txid === parent.txid)) continue;
      const tail = replaced === 'confirmed' ? ' and which can never confirm' : ': the node dropped it with its parent';
      drop(deps, q, `dropped: it spends an output of payment ${parent.id} (${parent.txid}), which ${dropperWords(by)} replaced${tail}`, by);
      dropped.push(q.id);
      queue.push({ parent: requirePayment(deps, q.id), first: false });
    }
  }
  return dropped;
}

/**
 * `winner` confirmed: drops the in-flight payments that spend one of its inputs, and those spending
 * their outputs. `winner` broadcast (a replacement the node accepted): drops only the payments
 * spending an output of what it replaces. Returns the ids dropped.
 */
export function dropConflicts(deps: CoreDeps, winner: PaymentRow): string[] {
  if (winner.state !== 'confirmed' && winner.state !== 'broadcast') throw new CoordinatorError('bad_state', `payment ${winner.id} is ${winner.state}, neither broadcast nor confirmed`);
  const w = requireWallet(deps, winner.walletId);
  const spent = new Set(paymentOutpoints(winner, w).map(outpointKey));
  const conflicts = deps.store.payments(w.id).filter((q) => q.id !== winner.id && IN_FLIGHT.includes(q.state) && paymentOutpoints(q, w).some((o) => spent.has(outpointKey(o))));
  const by: Dropper = { payment: winner, txid: winner.txid };
  if (winner.state === 'broadcast') return dropDescendants(deps, w, conflicts.filter((q) => q.state === 'broadcast'), by, 'replaced');
  for (const q of conflicts) drop(deps, q, `dropped: payment ${winner.id} (${winner.txid ?? ''}) spent the same inputs and confirmed`, by);
  // Children of what was dropped, and theirs: their parent's outputs will never exist.
  return [...conflicts.map((q) => q.id), ...dropDescendants(deps, w, conflicts, by, 'confirmed')];
}

/** Whether the service's node holds `txid` (in its mempool or chain): a 404 of the raw transaction says it does not. */
async function nodeHolds(deps: CoreDeps, coin: WalletRow['coin'], txid: string): Promise<boolean> {
  try {
    await deps.api.rawTransaction(coin, txid);
    return true;
  } catch (err) {
    if (err instanceof ApiClientError && err.status === 404) return false;
    throw err;
  }
}

/** A transaction other than `parent` that spends one of its inputs, as the service's history of those inputs' addresses shows it. */
async function replacementOf(deps: CoreDeps, w: WalletRow, parent: PaymentRow): Promise<string | null> {
  const mine = replacementsOf(deps, parent).find((q) => (q.state === 'broadcast' || q.state === 'confirmed') && q.txid !== null);
  if (mine?.txid) return mine.txid;
  const params = walletParams(w);
  const addresses = spentAddresses(deps, parent);
  const inputs = new Set(paymentOutpoints(parent, w).map(outpointKey));
  // The desk's own payments that spend none of them need no look.
  const known = new Set(deps.store.payments(w.id).flatMap((q) => (q.txid && !paymentOutpoints(q, w).some((o) => inputs.has(outpointKey(o))) ? [q.txid] : [])));
  const seen = await historyOf(deps.api, w.coin, addresses);
  for (const txid of new Set(seen.flatMap((t) => (t.txid && t.txid.toLowerCase() !== parent.txid && !known.has(t.txid.toLowerCase()) ? [t.txid.toLowerCase()] : [])))) {
    // Its bytes must hash to the txid the history named: nothing is dropped on the service's word alone.
    const tx = decodeTx((await PreviousTransactions.fetch(deps.api, w.coin, params, [txid])).raw(txid), params);
    if (tx.inputs.some((i) => inputs.has(outpointKey({ txid: bytesToHex(i.prevTxid), vout: i.vout })))) return txid;
  }
  return null;
}

/**
 * The follower's look at a broadcast payment the service's history no longer shows: when it spends
 * an output of a broadcast payment of the desk that another transaction replaced, and the node
 * holds it no more, it is dropped (with its own children). Never while the node still holds it.
 */
export async function dropIfParentReplaced(deps: CoreDeps, id: string): Promise<string[]> {
  const child = requirePayment(deps, id);
  if (child.state !== 'broadcast' || !child.txid) return [];
  const w = requireWallet(deps, child.walletId);
  const spends = new Set(paymentOutpoints(child, w).map((o) => o.txid));
  const parents = deps.store.payments(w.id).filter((q) => q.state === 'broadcast' && q.txid !== null && spends.has(q.txid));
  if (parents.length === 0 || (await nodeHolds(deps, w.coin, child.txid))) return [];
  for (const parent of parents) {
    const txid = await replacementOf(deps, w, parent);
    if (txid === null) continue;
    const payment = deps.store.payments(w.id).find((q) => q.txid === txid) ?? null;
    return deps.store.transaction(() => {
      // Read again: a screen and the follower may both have looked while the service answered.
      if (requirePayment(deps, id).state !== 'broadcast') return [];
      return dropDescendants(deps, w, [parent], payment ? { payment, txid } : { payment: null, txid }, 'replaced', id);
    });
  }
  return [];
}

/** The payments that replace `p` (bumps, cancels), oldest first. */
export function replacementsOf(deps: Pick<CoreDeps, 'store'>, p: PaymentRow): PaymentRow[] {
  return deps.store.payments(p.walletId).filter((q) => q.replaces === p.id);
}

/** How deep what a dropped payment conflicts with must be before the drop is final (the depth exchanges and wallets take as settled). */
export const BURIED = 6;

/** A dropped payment that had been broadcast, not yet final: a miner may still take it. */
export const droppedButOpen = (p: PaymentRow): boolean => p.state === 'failed' && p.txid !== null && !p.droppedFinal && (p.droppedBy !== null || p.droppedByTxid !== null);

/** The transaction a dropped payment conflicts with: its dropper's. */
function conflictTxid(deps: CoreDeps, p: PaymentRow): string | null {
  return p.droppedBy ? (deps.store.payment(p.droppedBy)?.txid ?? null) : p.droppedByTxid;
}

/**
 * Where the service's history shows a dropped payment and what it conflicts with: the addresses its
 * inputs spend, its dropper's, and those of the desk's payments whose outputs it spends (a
 * replacement of a parent spends the parent's inputs), up the chain of parents.
 */
function droppedAddresses(deps: CoreDeps, w: WalletRow, p: PaymentRow): string[] {
  const out = new Set<string>();
  const queue = [p, ...(p.droppedBy ? [requirePayment(deps, p.droppedBy)] : [])];
  const seen = new Set<string>();
  for (let q = queue.shift(); q !== undefined; q = queue.shift()) {
    if (seen.has(q.id)) continue;
    seen.add(q.id);
    for (const a of spentAddresses(deps, q)) out.add(a);
    const parents = new Set(paymentOutpoints(q, w).map((o) => o.txid));
    queue.push(...deps.store.payments(w.id).filter((r) => r.txid !== null && parents.has(r.txid)));
  }
  return [...out];
}

/**
 * The follower's look at a dropped payment not yet final: confirmed after all (a miner took it):
 * shown paid, with an audit entry saying so, and what it conflicts with is dropped in turn; what it
 * conflicts with BURIED blocks deep: final, never looked at again. Otherwise nothing changes.
 */
export async function recheckDropped(deps: CoreDeps, id: string): Promise<PaymentRow> {
  const p = requirePayment(deps, id);
  if (!droppedButOpen(p)) return p;
  const w = requireWallet(deps, p.walletId);
  const history = await historyOf(deps.api, w.coin, droppedAddresses(deps, w, p));
  const own = history.find((t) => (t.txid ?? '').toLowerCase() === p.txid && t.confirmations > 0);
  const conflict = conflictTxid(deps, p);
  const buried = conflict === null ? undefined : history.find((t) => (t.txid ?? '').toLowerCase() === conflict && t.confirmations >= BURIED);
  deps.store.transaction(() => {
    // Read again: the follower and a screen may both have looked while the service answered.
    const now = requirePayment(deps, id);
    if (!droppedButOpen(now)) return;
    if (own) {
      transition(deps, now, 'confirmed', `confirmed after all: it had been dropped (${now.reason ?? 'no reason stored'}), but a miner took it and the recipient is paid; ${confirmationWords(own)}`, { confirmations: own.confirmations });
      deps.store.updatePayment(id, { droppedBy: null, droppedByTxid: null, reason: null });
      dropConflicts(deps, requirePayment(deps, id));
    } else if (buried) {
      deps.store.updatePayment(id, { droppedFinal: true });
      deps.store.audit(deps.actor, 'payment.dropped_final', `payment ${id}: final: transaction ${conflict} that it conflicts with is ${plural(buried.confirmations, 'block')} deep; it can never confirm`, null, { paymentId: id, walletId: w.id });
    }
  });
  return requirePayment(deps, id);
}

/**
 * The dropped payments not yet final that pay one of `recipients` (any wallet of the desk): they may
 * still confirm, so paying the same recipient again now may pay twice. In words, naming each.
 */
export function droppedButPossible(deps: Pick<CoreDeps, 'store'>, recipients: readonly string[]): string[] {
  const wanted = new Set(recipients.map((r) => r.trim()).filter((r) => r !== ''));
  if (wanted.size === 0) return [];
  return deps.store.payments().flatMap((p) => {
    if (!droppedButOpen(p)) return [];
    const listed = deps.store.paymentRecipients(p.id);
    const paid = listed.length > 0 ? listed.map((r) => ({ address: r.address, amount: r.amount })) : [{ address: p.to, amount: p.amount }];
    const params = walletParams(requireWallet(deps, p.walletId));
    return paid
      .filter((r) => wanted.has(r.address))
      .map((r) => `payment ${p.id} (${p.txid}) of ${coinAmount(params, r.amount)} to ${r.address} was dropped, but it can still confirm until what replaced it is ${BURIED} blocks deep: paying ${r.address} again now may pay twice; wait, or check that payment first`);
  });
}
