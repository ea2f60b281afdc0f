// A payment as it is being typed, checked before anything is asked of the service: each address
// for the wallet's coin and network, each amount against the dust limit and what the wallet holds.
// Refusals are data (field, kind, amounts): the bridge words them in the coin's unit.
import { CoinError, allChainParams, decodeAddress, isValidAddress, type ChainParams } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';
import { walletUnspent, type FundsDeps } from '../wallets/funds.ts';
import { sortOutputs } from './coin-selection.ts';
import { requireWallet, walletParams } from '../wallets/wallets.ts';

export interface PaymentDraft {
  to?: string;
  amount?: bigint;
  minersFee?: bigint;
  operatorFee?: { address?: string; amount?: bigint };
}

/** Field names are the bridge's input names (payments.propose). */
export type DraftField = 'to' | 'amount' | 'miners_fee' | 'operator.address' | 'operator.fee_amount';

export type DraftRefusal =
  | { field: 'to' | 'operator.address'; kind: 'address'; words: string }
  | { field: 'amount' | 'operator.fee_amount'; kind: 'dust'; limit: bigint }
  | { field: 'amount'; kind: 'insufficient'; holds: bigint; needs: bigint; operatorFee: boolean }
  | { field: 'miners_fee'; kind: 'negative' };

/** A draft refused: carries the refusal and the chain, so the bridge can word it in the coin's unit. */
export class DraftRefusedError extends CoordinatorError {
  constructor(
    readonly refusal: DraftRefusal,
    readonly params: ChainParams,
  ) {
    super('proposal_refused', `refusing the proposed payment: ${plainWords(refusal)}`, { field: refusal.field });
    this.name = 'DraftRefusedError';
  }
}

/** Words in smallest units, for logs and for callers without a unit. */
function plainWords(r: DraftRefusal): string {
  switch (r.kind) {
    case 'address':
      return r.words;
    case 'dust':
      return `${r.field} is below the dust limit ${r.limit}`;
    case 'insufficient':
      return `the wallet holds ${r.holds}, the payment needs ${r.needs}`;
    case 'negative':
      return 'the miners fee cannot be negative';
  }
}

/**
 * Why `text` is no address of this wallet's chain, or null when it is one. An address of the same
 * coin on another network says so plainly; anything else gets the codec's own reason. Pure.
 */
export function addressRefusal(params: ChainParams, text: string): string | null {
  const t = text.trim();
  let reason: string;
  try {
    decodeAddress(params, t);
    return null;
  } catch (err) {
    if (!(err instanceof CoinError)) throw err;
    reason = err.message;
  }
  const other = allChainParams().find((p) => p.coin === params.coin && p.network !== params.network && isValidAddress(p, t));
  if (other) return `"${t}" is a ${other.coin} ${other.network} address; this wallet is on ${params.network}`;
  return reason;
}

/** What can be refused without the wallet's funds (`holds` null) or with them. Pure. */
export function refuseDraft(params: ChainParams, draft: PaymentDraft, holds: bigint | null): DraftRefusal[] {
  const out: DraftRefusal[] = [];
  const to = draft.to?.trim();
  if (to) {
    const words = addressRefusal(params, to);
    if (words !== null) out.push({ field: 'to', kind: 'address', words });
  }
  const opAddress = draft.operatorFee?.address?.trim();
  if (opAddress) {
    const words = addressRefusal(params, opAddress);
    if (words !== null) out.push({ field: 'operator.address', kind: 'address', words });
  }
  if (draft.minersFee !== undefined && draft.minersFee < 0n) out.push({ field: 'miners_fee', kind: 'negative' });
  const opFee = draft.operatorFee?.amount;
  if (opFee !== undefined && opFee < params.dustLimit) out.push({ field: 'operator.fee_amount', kind: 'dust', limit: params.dustLimit });
  if (draft.amount !== undefined) {
    if (draft.amount < params.dustLimit) out.push({ field: 'amount', kind: 'dust', limit: params.dustLimit });
    else if (holds !== null) {
      const needs = draft.amount + (opFee ?? 0n) + (draft.minersFee !== undefined && draft.minersFee > 0n ? draft.minersFee : 0n);
      if (needs > holds) out.push({ field: 'amount', kind: 'insufficient', holds, needs, operatorFee: opFee !== undefined });
    }
  }
  return out;
}

/** What the wallet can spend now: the sum of its unspent outputs, as a proposal would find them. */
export async function spendable(deps: FundsDeps, walletId: string): Promise<bigint> {
  const params = walletParams(requireWallet(deps, walletId));
  return sortOutputs(deps.store, walletId, params, await walletUnspent(deps, walletId)).free.reduce((s, u) => s + u.amount, 0n);
}

/** Checks a draft of a payment from the wallet; the funds are asked of the service only when an amount is given. */
export async function checkPaymentDraft(deps: FundsDeps, walletId: string, draft: PaymentDraft): Promise<{ params: ChainParams; refusals: DraftRefusal[] }> {
  const params = walletParams(requireWallet(deps, walletId));
  const offline = refuseDraft(params, draft, null);
  if (draft.amount === undefined || offline.some((r) => r.field === 'amount')) return { params, refusals: offline };
  return { params, refusals: refuseDraft(params, draft, await spendable(deps, walletId)) };
}
