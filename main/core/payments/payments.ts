// Payments' lifecycle: awaiting_signatures -> ready -> broadcast -> confirmed, or cancelled /
// failed with a reason; a payment is never deleted. Who has signed what, and the moves between
// states. The use cases that drive it live in their own modules: propose.ts,
// files.ts (import signatures), submit.ts.
import { equalBytes, parseMultisigRedeemScript } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';
import type { PaymentRow, PaymentState } from '../store/store.ts';
import { walletAddress } from '../wallets/script.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { vaultPaymentInputs } from './vault-inputs.ts';
import type { HistoryTx } from '../../../shared/api/schemas.ts';
import { plural } from '../../../shared/api/words.ts';

/** States of a payment not yet settled: its coins and change address are taken. */
export const IN_FLIGHT: readonly PaymentState[] = ['awaiting_signatures', 'ready', 'broadcast'];

/** How many of a wallet's payments are still in flight. */
export function openPaymentCount(deps: Pick<CoreDeps, 'store'>, walletId: string): number {
  return deps.store.payments(walletId).filter((p) => IN_FLIGHT.includes(p.state)).length;
}

const TRANSITIONS: Readonly<Record<PaymentState, readonly PaymentState[]>> = {
  awaiting_signatures: ['ready', 'cancelled', 'failed'],
  ready: ['broadcast', 'cancelled', 'failed'],
  broadcast: ['confirmed', 'failed'],
  confirmed: [],
  cancelled: [],
  // Only a dropped payment a miner took after all (dropped.ts, recheckDropped).
  failed: ['confirmed'],
};

export function requirePayment(deps: Pick<CoreDeps, 'store'>, id: string): PaymentRow {
  const p = deps.store.payment(id);
  if (!p) throw new CoordinatorError('unknown_payment', `no payment ${id} in this store`);
  return p;
}

/** Moves a payment along its lifecycle (TRANSITIONS), with its audit entry, in one transaction. */
export function transition(deps: CoreDeps, p: PaymentRow, to: PaymentState, detail: string, extra: { reason?: string; txid?: string; lastError?: string | null; confirmations?: number } = {}): void {
  if (!TRANSITIONS[p.state].includes(to)) throw new CoordinatorError('bad_state', `payment ${p.id} is ${p.state}: it cannot become ${to}`);
  deps.store.transaction(() => {
    deps.store.updatePayment(p.id, { state: to, ...extra });
    deps.store.audit(deps.actor, `payment.${to}`, `payment ${p.id}: ${detail}`, null, { paymentId: p.id, walletId: p.walletId });
  });
}

/** The wallet's addresses a payment's inputs spend from, once each: where the service's history shows it. */
export function spentAddresses(deps: Pick<CoreDeps, 'store'>, p: Pick<PaymentRow, 'id' | 'walletId'>): string[] {
  const w = requireWallet(deps, p.walletId);
  const params = walletParams(w);
  const xpubs = deps.store.cosigners(w.id).map((c) => c.xpub);
  return [...new Set(deps.store.paymentInputs(p.id).map((i) => walletAddress(params, w, xpubs, i.change, i.index).address))];
}

/** When the payment confirmed, as the chain says (its block's height and time), not when the desk noticed. */
export function confirmationWords(entry: Pick<HistoryTx, 'confirmations' | 'time' | 'block_height'>): string {
  const count = plural(entry.confirmations, 'confirmation');
  if (entry.block_height === undefined) return `${count}; the service did not say in which block`;
  return `confirmed in block ${entry.block_height} at ${new Date(entry.time * 1000).toISOString().replace('.000Z', 'Z')} (block time; ${count} when seen)`;
}

export function cancelPayment(deps: CoreDeps, id: string, reason: string): void {
  transition(deps, requirePayment(deps, id), 'cancelled', reason, { reason });
}

export function failPayment(deps: CoreDeps, id: string, reason: string): void {
  transition(deps, requirePayment(deps, id), 'failed', reason, { reason });
}

export interface InputProgress {
  inputIndex: number;
  required: number;
  signed: number;
  /** Co-signer names, in wallet order, who have signed this input. */
  signers: string[];
}

/** Who has signed what: k of M per input. */
export function progress(deps: Pick<CoreDeps, 'store'>, id: string): { state: PaymentState; inputs: InputProgress[]; complete: boolean } {
  const p = requirePayment(deps, id);
  const w = requireWallet(deps, p.walletId);
  const cosigners = deps.store.cosigners(w.id);
  const sigs = deps.store.signatures(id);
  const params = walletParams(w);
  const xpubs = cosigners.map((c) => c.xpub);
  // A vault: the chosen path's keys and threshold, not M of the co-signers.
  const vault = vaultPaymentInputs(deps, w, p);
  if (vault) {
    const inputs = vault.map((v) => {
      const signers = v.spend.pathKeys.flatMap((k) => (sigs.some((s) => s.inputIndex === v.inputIndex && equalBytes(s.publicKey, k.publicKey)) ? [cosigners[k.key]?.name ?? `key @${k.key}`] : []));
      return { inputIndex: v.inputIndex, required: v.path.signatures, signed: signers.length, signers };
    });
    return { state: p.state, inputs, complete: inputs.every((i) => i.signed >= i.required) };
  }
  const inputs = deps.store.paymentInputs(id).map((inp) => {
    // The keys in co-signer order: a wallet with sorted keys (BIP67) holds them in another order in its script.
    const derived = w.sortKeys ? walletAddress(params, w, xpubs, inp.change, inp.index) : null;
    const keys = derived && equalBytes(derived.redeemScript, inp.redeemScript) ? derived.publicKeys : (parseMultisigRedeemScript(inp.redeemScript)?.pubkeys ?? []);
    const signers = keys.flatMap((k, pos) => (sigs.some((s) => s.inputIndex === inp.inputIndex && equalBytes(s.publicKey, k)) ? [cosigners[pos]?.name ?? `key ${pos}`] : []));
    return { inputIndex: inp.inputIndex, required: w.m, signed: signers.length, signers };
  });
  return { state: p.state, inputs, complete: inputs.every((i) => i.signed >= i.required) };
}

/** Moves a payment to ready once every input has M signatures (called inside the import transaction). */
export function promoteIfComplete(deps: CoreDeps, id: string): boolean {
  const p = requirePayment(deps, id);
  if (p.state !== 'awaiting_signatures' || !progress(deps, id).complete) return false;
  transition(deps, p, 'ready', 'every input has its signatures');
  return true;
}
