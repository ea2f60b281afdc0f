// Which unspent outputs a proposal spends. The desk picks them itself, so a second proposal never
// spends an output an earlier one (awaiting signatures or ready) already spends: those are
// reserved until that payment is cancelled or sent. Frozen outputs (a BIP329 output label with
// spendable false) are never picked automatically; the treasurer may still pick them by hand.
import { bytesToHex, decodeTx, type ChainParams } from '../../../shared/coins/index.ts';
import type { CoordinatorStore } from '../store/store.ts';
import { outpointKey } from './outpoints.ts';

/** Payments in these states hold their inputs. */
const HOLDING = ['awaiting_signatures', 'ready'] as const;

/** Every outpoint an unsent payment of the wallet spends, with that payment's id. */
export function reservedOutpoints(store: Pick<CoordinatorStore, 'payments'>, walletId: string, params: ChainParams): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of store.payments(walletId)) {
    if (!(HOLDING as readonly string[]).includes(p.state)) continue;
    for (const i of decodeTx(p.unsignedTx, params).inputs) out.set(outpointKey({ txid: bytesToHex(i.prevTxid), vout: i.vout }), p.id);
  }
  return out;
}

/** The wallet's frozen outpoints: output labels whose spendable is false. */
export function frozenOutpoints(store: Pick<CoordinatorStore, 'labels'>, walletId: string): Set<string> {
  return new Set(
    store.labels
      .all(walletId)
      .filter((l) => l.type === 'output' && l.spendable === false)
      .map((l) => l.ref.toLowerCase()),
  );
}

/** A wallet's unspent outputs as a proposal sees them: free, reserved by an unsent payment (with its id), or frozen. Pure. */
export function sortOutputs<T extends { txid: string; vout: number }>(store: Pick<CoordinatorStore, 'payments' | 'labels'>, walletId: string, params: ChainParams, unspent: readonly T[]): { free: T[]; reserved: { output: T; by: string }[]; frozen: T[] } {
  const reserved = reservedOutpoints(store, walletId, params);
  const frozen = frozenOutpoints(store, walletId);
  const out: { free: T[]; reserved: { output: T; by: string }[]; frozen: T[] } = { free: [], reserved: [], frozen: [] };
  for (const u of unspent) {
    const key = outpointKey(u);
    const by = reserved.get(key);
    if (by !== undefined) out.reserved.push({ output: u, by });
    else if (frozen.has(key)) out.frozen.push(u);
    else out.free.push(u);
  }
  return out;
}

export interface Candidate {
  outpoint: string;
  amount: bigint;
  /** Confirmations of the transaction that made it (0: unconfirmed). */
  confirmations: number;
}

/**
 * Oldest first, outputs are added until they cover what the payment needs with that many inputs
 * (`needs(n)`: the amounts, operator fee and the miners' fee for n inputs). Null when all of them
 * do not cover it. Pure.
 */
export function pickOldestFirst(candidates: readonly Candidate[], needs: (inputs: number) => bigint): Candidate[] | null {
  const ordered = [...candidates].sort((a, b) => b.confirmations - a.confirmations);
  const picked: Candidate[] = [];
  let sum = 0n;
  for (const c of ordered) {
    picked.push(c);
    sum += c.amount;
    if (sum >= needs(picked.length)) return picked;
  }
  return null;
}
