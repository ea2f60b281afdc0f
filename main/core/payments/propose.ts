// Proposing a payment from a wallet: the form's checks again (with the field they concern), then
// the choice of inputs (the treasurer's, or free ones oldest first, or every free one for "send
// all"), then the one spend pipeline (spend.ts) builds, checks and stores it.
import type { ChainParams } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';
import type { PaymentRow, WalletRow } from '../store/store.ts';
import { walletUnspent } from '../wallets/funds.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { BatchRefusedError, checkRecipients, type Recipient } from './batch.ts';
import { frozenOutpoints, pickOldestFirst, reservedOutpoints, sortOutputs } from './coin-selection.ts';
import { addressRefusal, DraftRefusedError, refuseDraft } from './draft.ts';
import { signalsReplacement } from './fees.ts';
import { outpointKey, type Outpoint } from './outpoints.ts';
import { canonicalAddress, freshChangeAddress, proposeTreasurySpend, recipientsOf, spendVsize, walletVaultWitness } from './spend.ts';
import { coinAmount, unitsToDecimal } from '../../../shared/coins/units.ts';
import { plural } from '../../../shared/api/words.ts';
import { paymentNames } from './words.ts';

export interface PaymentProposal {
  to: string;
  amount: bigint;
  minersFee: bigint;
  operatorFee?: { address: string; amount: bigint };
  /** What the payment is for: its 'payment' label, written with the payment (never one without the other). */
  purpose?: string;
  /**
   * Units per vbyte: the service computes the fee at this rate (then `minersFee` is ignored and the
   * fee the service built, checked by the desk, is stored).
   */
  feeRate?: bigint;
  /** BIP125: every input signals replaceability (only on coins whose row has bip125). */
  replaceable?: boolean;
  /** Coin control: exactly these outpoints ("txid:vout"); absent, the desk picks free ones oldest first. */
  inputs?: readonly string[];
  /** A batch: every recipient in output order (`to` and `amount` are then its first and its total). */
  recipients?: readonly Recipient[];
  /**
   * Send all: every free output (or every one picked by hand) to `to`, no change, the fee taken
   * from the amount (`amount` is then ignored: it is what is left after the fees).
   */
  sendAll?: boolean;
  /** A vault's spending path, by the blocks after which it opens (default 0: the primary path). */
  vaultPath?: number;
}

/** A batch proposal: `to` and `amount` as stored (the first recipient, the total). Pure. */
export function batchProposal(recipients: readonly Recipient[], minersFee: bigint, operatorFee?: { address: string; amount: bigint }): PaymentProposal {
  return { to: recipients[0]?.to ?? '', amount: recipients.reduce((s, r) => s + r.amount, 0n), minersFee, recipients, ...(operatorFee ? { operatorFee } : {}) };
}

/** Every recipient checked as the form checks one; all bad rows are named at once. */
function refuseBatch(params: ChainParams, recipients: readonly Recipient[]): void {
  const { refusals } = checkRecipients(
    params,
    recipients.map((r, i) => ({ line: i + 1, to: r.to, amount: unitsToDecimal(r.amount, params.decimals), label: r.label ?? '' })),
  );
  if (refusals.length > 0) throw new BatchRefusedError(refusals, params);
}

/** Asks the service to build the payment, re-checks it offline, and stores it awaiting signatures. */
export async function proposePayment(deps: CoreDeps, walletId: string, input: PaymentProposal): Promise<PaymentRow> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const refuse = (why: string): never => {
    throw new CoordinatorError('proposal_refused', `refusing the proposed payment: ${why}`);
  };
  if (input.sendAll && input.recipients && input.recipients.length > 1) refuse('send all pays one recipient; a batch says what each one gets');
  // The same checks the form runs as it is typed: refused here with the field they concern.
  if (input.recipients) refuseBatch(params, input.recipients);
  const form = input.recipients ? { ...input, to: undefined } : input;
  const [early] = refuseDraft(params, input.sendAll ? { ...form, amount: undefined } : form, null);
  if (early) throw new DraftRefusedError(early, params);
  const recipients = input.recipients?.map((r, i) => ({ ...r, to: canonicalAddress(params, r.to, `recipient ${i + 1}`) }));
  const proposal: PaymentProposal = {
    ...input,
    ...(recipients ? { recipients } : {}),
    to: recipients?.[0]?.to ?? canonicalAddress(params, input.to, 'to'),
    ...(input.operatorFee ? { operatorFee: { address: canonicalAddress(params, input.operatorFee.address, 'operator fee address'), amount: input.operatorFee.amount } } : {}),
  };
  const unspent = await walletUnspent(deps, walletId);
  const amounts = new Map(unspent.map((u) => [outpointKey(u), u]));
  if (!input.sendAll) {
    const [short] = refuseDraft(params, input, unspent.reduce((sum, u) => sum + u.amount, 0n));
    if (short) throw new DraftRefusedError(short, params);
  }
  if (unspent.length === 0) refuse('the wallet has no unspent funds');
  // The change goes to a fresh change address, unfunded (the first redeem script, docs/api-decisions.md).
  const change = await freshChangeAddress(deps, walletId);
  const n = deps.store.cosigners(walletId).length;
  // A vault's inputs are sized by the chosen path's largest witness (undefined: M of N).
  const witness = walletVaultWitness(deps, w, proposal.vaultPath ?? 0);
  const chosen = chooseInputs(deps, walletId, params, proposal, amounts, n, change.address, refuse, witness);
  // The treasurer's choice and the coin's row alone (fees.ts): the service's /status only decides whether a bump is offered later.
  const replaceable = signalsReplacement(w.coin, proposal.replaceable === true);
  const common = { inputs: chosen, replaceable, changeAddress: change, kind: 'payment' as const, ...(proposal.operatorFee ? { operatorFee: proposal.operatorFee } : {}), ...(proposal.purpose ? { purpose: proposal.purpose } : {}), ...(proposal.vaultPath !== undefined ? { vaultPath: proposal.vaultPath } : {}) };
  if (proposal.sendAll) {
    const { amount, fee } = sendAllSplit(params, w, n, chosen, proposal, refuse, witness);
    return proposeTreasurySpend(deps, walletId, { ...common, to: proposal.to, amount, fee: { amount: fee } });
  }
  return proposeTreasurySpend(deps, walletId, {
    ...common,
    to: proposal.to,
    amount: proposal.amount,
    ...(recipients ? { recipients } : {}),
    fee: proposal.feeRate !== undefined ? { rate: proposal.feeRate } : { amount: proposal.minersFee },
  });
}

/**
 * Send all: everything chosen to one recipient (and the operator fee), no change; the miners' fee of
 * that transaction (at the rate, by the desk's own size, or the fee given) is taken from the amount.
 */
function sendAllSplit(
  params: ChainParams,
  w: WalletRow,
  n: number,
  chosen: readonly Unspent[],
  p: Pick<PaymentProposal, 'to' | 'feeRate' | 'minersFee' | 'operatorFee'>,
  refuse: (why: string) => never,
  vaultWitness?: number,
): { amount: bigint; fee: bigint; total: bigint } {
  const total = chosen.reduce((sum, o) => sum + o.amount, 0n);
  const outputs = [p.to, ...(p.operatorFee ? [p.operatorFee.address] : [])];
  const fee = p.feeRate !== undefined ? p.feeRate * BigInt(spendVsize(params, w, n, chosen.length, outputs, vaultWitness)) : p.minersFee;
  const amount = total - fee - (p.operatorFee?.amount ?? 0n);
  if (amount < params.dustLimit) {
    refuse(`sending all: the ${plural(chosen.length, 'output')} ${chosen.length === 1 ? 'holds' : 'hold'} ${coinAmount(params, total)}; after the miners' fee of ${coinAmount(params, fee)}${p.operatorFee ? ' and the operator fee' : ''} ${coinAmount(params, amount > 0n ? amount : 0n)} is left, below the dust limit of ${coinAmount(params, params.dustLimit)}`);
  }
  return { amount, fee, total };
}

export interface SpendableFunds {
  /** Free outputs: neither reserved by an unsent payment nor frozen (what a proposal may pick). */
  available: bigint;
  /** The part of `available` still unconfirmed. */
  unconfirmed: bigint;
  /** Outputs that payments awaiting signatures or ready already spend, and those payments. */
  reserved: bigint;
  reservedBy: string[];
  /** Frozen outputs (never picked automatically). */
  frozen: bigint;
  /** What send all would pay and the fee it would take; a refusal in words; null when not asked. */
  sendAll: { amount: bigint; fee: bigint; outputs: number } | { refused: string } | null;
}

/**
 * What the wallet may spend now, apart from what unsent payments reserve and what is frozen; with
 * `sendAll`, what sending everything free (or everything picked) would pay, as Propose would build it.
 * `to` may be absent while it is typed: the wallet's own address type stands in for its size.
 */
export async function spendableFunds(
  deps: CoreDeps,
  walletId: string,
  sendAll?: Partial<Pick<PaymentProposal, 'to' | 'inputs' | 'feeRate' | 'operatorFee'>> & { minersFee?: bigint },
): Promise<SpendableFunds> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const unspent = await walletUnspent(deps, walletId);
  const sorted = sortOutputs(deps.store, walletId, params, unspent);
  const sum = (os: readonly { amount: bigint }[]) => os.reduce((s, u) => s + u.amount, 0n);
  const out: SpendableFunds = {
    available: sum(sorted.free),
    unconfirmed: sum(sorted.free.filter((u) => u.confirmations === 0)),
    reserved: sum(sorted.reserved.map((r) => r.output)),
    reservedBy: [...new Set(sorted.reserved.map((r) => r.by))],
    frozen: sum(sorted.frozen),
    sendAll: null,
  };
  if (sendAll) {
    const refuse = (why: string): never => {
      throw new CoordinatorError('proposal_refused', why);
    };
    try {
      const to = sendAll.to?.trim() && addressRefusal(params, sendAll.to) === null ? canonicalAddress(params, sendAll.to, 'to') : deps.store.addresses(walletId)[0]!.address;
      const p = { to, minersFee: sendAll.minersFee ?? 0n, sendAll: true, amount: 0n, ...(sendAll.feeRate !== undefined ? { feeRate: sendAll.feeRate } : {}), ...(sendAll.inputs ? { inputs: sendAll.inputs } : {}), ...(sendAll.operatorFee ? { operatorFee: sendAll.operatorFee } : {}) };
      const n = deps.store.cosigners(walletId).length;
      const witness = walletVaultWitness(deps, w);
      const chosen = chooseInputs(deps, walletId, params, p, new Map(unspent.map((u) => [outpointKey(u), u])), n, to, refuse, witness);
      const { amount, fee } = sendAllSplit(params, w, n, chosen, p, refuse, witness);
      out.sendAll = { amount, fee, outputs: chosen.length };
    } catch (err) {
      if (!(err instanceof CoordinatorError)) throw err;
      out.sendAll = { refused: err.message };
    }
  }
  return out;
}

interface Unspent extends Outpoint {
  amount: bigint;
  confirmations: number;
}

/**
 * The outpoints the payment spends: the treasurer's (refused when one is not the wallet's or an
 * unsent payment already spends it), every free one (send all), or free ones picked oldest first
 * (neither reserved nor frozen).
 */
function chooseInputs(
  deps: CoreDeps,
  walletId: string,
  params: ChainParams,
  p: PaymentProposal,
  unspent: ReadonlyMap<string, Unspent>,
  n: number,
  changeAddress: string,
  refuse: (why: string) => never,
  vaultWitness?: number,
): Unspent[] {
  const w = requireWallet(deps, walletId);
  const reserved = reservedOutpoints(deps.store, walletId, params);
  const held = (o: string) => {
    const by = reserved.get(o);
    return by === undefined ? null : `${o} is already spent by payment ${by} (${deps.store.payment(by)?.state.replace('_', ' ')}); cancel that payment to release it`;
  };
  const shown = (units: bigint) => coinAmount(params, units);
  if (p.inputs) {
    const picked = [...new Set(p.inputs.map((o) => o.trim().toLowerCase().replace(/^0x/, '')))];
    return picked.map((o) => {
      const u = unspent.get(o) ?? refuse(`${o} is not an unspent output of this wallet`);
      const why = held(o);
      return why ? refuse(why) : u;
    });
  }
  const frozen = frozenOutpoints(deps.store, walletId);
  const free = [...unspent].filter(([o]) => !reserved.has(o) && !frozen.has(o)).map(([o, u]) => ({ outpoint: o, amount: u.amount, confirmations: u.confirmations }));
  const sum = (os: Iterable<string>) => [...os].reduce((s, o) => s + (unspent.get(o)?.amount ?? 0n), 0n);
  const heldHere = [...unspent.keys()].filter((o) => reserved.has(o));
  const frozenHere = [...unspent.keys()].filter((o) => frozen.has(o) && !reserved.has(o));
  const why = () =>
    (heldHere.length ? `; ${plural(heldHere.length, 'output')} holding ${shown(sum(heldHere))} ${heldHere.length === 1 ? 'is' : 'are'} reserved by payments awaiting signatures or ready (${paymentNames(deps, [...new Set(heldHere.map((o) => reserved.get(o)!))])})` : '') +
    (frozenHere.length ? `; ${plural(frozenHere.length, 'frozen output')} ${frozenHere.length === 1 ? 'holds' : 'hold'} ${shown(sum(frozenHere))}` : '');
  if (p.sendAll) {
    if (free.length === 0) refuse(`sending all: the wallet has no free output${why()}`);
    return free.map((c) => unspent.get(c.outpoint)!);
  }
  const paid = recipientsOf(p).reduce((s, r) => s + r.amount, 0n) + (p.operatorFee?.amount ?? 0n);
  const outputs = [...recipientsOf(p).map((r) => r.to), ...(p.operatorFee ? [p.operatorFee.address] : []), changeAddress];
  const needs = (count: number) => paid + (p.feeRate !== undefined ? p.feeRate * BigInt(spendVsize(params, w, n, count, outputs, vaultWitness)) : p.minersFee);
  const picked = pickOldestFirst(free, needs) ?? refuse(`the wallet's free outputs hold ${shown(free.reduce((s, c) => s + c.amount, 0n))}, the payment needs about ${shown(needs(Math.max(free.length, 1)))}${why()}`);
  return picked.map((c) => unspent.get(c.outpoint)!);
}
