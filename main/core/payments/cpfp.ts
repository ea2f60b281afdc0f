// Child pays for parent: a stuck transaction that pays the wallet (a deposit, or a payment's change)
// is pulled through by spending that output back to the wallet at a fee that brings the pair to the
// target rate. Miners judge the package: (parent fee + child fee) / (parent vsize + child vsize),
// where "parent" is the whole unconfirmed package: the parent and its own unconfirmed ancestors.
// Used where replacement is impossible (the coin's nodes do not relay BIP125, the parent did not
// signal it) and for deposits, whose transaction the wallet did not make.
import { addressToScript, bytesToHex, decodeTx, equalBytes, scriptToAddress, type ChainParams, type CoinName } from '../../../shared/coins/index.ts';
import { isBitcoinTx, txVsize, type Tx } from '../../../shared/coins/tx.ts';
import { CoordinatorError } from '../errors.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import type { PaymentRow } from '../store/store.ts';
import type { Outpoint } from './outpoints.ts';
import { freshChangeAddress, ownersOf, proposeTreasurySpend, spendVsize, walletVaultWitness } from './spend.ts';
import { coinAmount } from '../../../shared/coins/units.ts';
import { feeRateText } from '../units.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { plural } from '../../../shared/api/words.ts';
import { historyOf } from '../wallets/funds.ts';

/** The child's fee that brings the package to `targetRate` units/vbyte: target x (both sizes) - parent fee, at least 1 unit/vbyte of its own. Pure. */
export function childFee(targetRate: bigint, parentVsize: number, childVsize: number, parentFee: bigint): bigint {
  const fee = targetRate * BigInt(parentVsize + childVsize) - parentFee;
  const floor = BigInt(childVsize);
  return fee > floor ? fee : floor;
}

export interface PackageRate {
  /** The fee and size of the whole unconfirmed package the child pulls: the parent and its unconfirmed ancestors. */
  parentFee: bigint;
  parentVsize: number;
  /** The parent's unconfirmed ancestors counted in parentFee and parentVsize, nearest first. */
  ancestors: string[];
  childFee: bigint;
  /** The size the child's fee was computed for (signatures at their largest): the real one is not above it. */
  childVsize: number;
  /** Units per vbyte, to two decimals, of the pair: never below the target. */
  rate: string;
  /** The parent is counted in parentFee/parentVsize (proven unconfirmed); false: the child pays for itself alone. */
  parentCounted: boolean;
  /** Transactions the service calls unconfirmed that nothing proves, left out of the package, in words. */
  leftOut: string[];
}

/** fee / vsize in units per vbyte, two decimals, rounded down. Pure. */
export function rateText(fee: bigint, vsize: number): string {
  const hundredths = (fee * 100n) / BigInt(vsize);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

function vsizeOf(tx: Tx, raw: Uint8Array): number {
  return isBitcoinTx(tx) ? txVsize(tx) : raw.length;
}

/** The parent's fee and size, from its bytes and its own inputs' transactions (nothing on the service's word). */
export async function parentFigures(deps: CoreDeps, coin: CoinName, params: ChainParams, txid: string): Promise<{ fee: bigint; vsize: number; tx: Tx }> {
  const parent = await PreviousTransactions.fetch(deps.api, coin, params, [txid]);
  const raw = parent.raw(txid);
  const tx = decodeTx(raw, params);
  const prevs = await PreviousTransactions.fetch(deps.api, coin, params, tx.inputs.map((i) => bytesToHex(i.prevTxid)));
  let inValue = 0n;
  for (const i of tx.inputs) {
    const out = prevs.output(bytesToHex(i.prevTxid), i.vout);
    if (!out) throw new CoordinatorError('service_mismatch', `the parent ${txid} spends an output its previous transaction does not have`);
    inValue += out.value;
  }
  const outValue = tx.outputs.reduce((s, o) => s + o.value, 0n);
  return { fee: inValue - outValue, vsize: vsizeOf(tx, raw), tx };
}

/** Litecoin Core's default -limitancestorcount: a deeper package would not be accepted anyway. */
const MAX_ANCESTORS = 25;

/** Whether the service's history shows `txid` unconfirmed, asked of the address of its first output that has one (only for the words: never counted on it). */
async function serviceSaysUnconfirmed(deps: CoreDeps, coin: CoinName, params: ChainParams, txid: string, tx: Tx): Promise<boolean> {
  const address = tx.outputs.map((o) => scriptToAddress(params, o.script)).find((a) => a !== null);
  if (!address) return false;
  const seen = (await historyOf(deps.api, coin, [address])).find((t) => t.txid === txid);
  return seen !== undefined && seen.confirmations === 0;
}

/**
 * Whether `txid` is proven unconfirmed, and so may raise a child's fee: the desk's own payment still
 * broadcast in its store, or a transaction the treasurer's own node holds in its mempool. 'unproven':
 * neither can say (no own node, or it could not be asked): the caller leaves it out, so a service
 * calling a confirmed transaction unconfirmed can never make the child pay for it.
 */
export async function unconfirmedProof(deps: CoreDeps, coin: CoinName, txid: string): Promise<{ proof: 'desk' | 'node' } | { proof: 'confirmed' } | { proof: 'unproven'; why: string }> {
  const mine = deps.store.payments().find((q) => q.txid === txid);
  if (mine?.state === 'broadcast') return { proof: 'desk' };
  if (mine?.state === 'confirmed') return { proof: 'confirmed' };
  const node = deps.ownNode?.where(coin) ?? null;
  if (node === null) return { proof: 'unproven', why: `no node of your own is connected for ${coin} in Settings, and only the desk's own payments count without one` };
  try {
    return (await deps.ownNode!.inMempool(coin, txid)) ? { proof: 'node' } : { proof: 'confirmed' };
  } catch (err) {
    return { proof: 'unproven', why: `your node at ${node} could not be asked (${err instanceof Error ? err.message : String(err)})` };
  }
}

export interface UnconfirmedPackage {
  fee: bigint;
  vsize: number;
  /** The ancestors counted, nearest first. */
  ancestors: string[];
  /** The parent itself is counted. */
  parentCounted: boolean;
  /** What the service calls unconfirmed but nothing proves, and that would raise the child's fee: left out of the package, in words. */
  leftOut: string[];
}

/**
 * The unconfirmed package a child of `txid` pulls through at `targetRate`: the parent and its
 * unconfirmed ancestors, fees and sizes summed. A transaction proven unconfirmed (unconfirmedProof)
 * is counted. One only the service calls unconfirmed is counted only where it pays at least the
 * target itself, so that it can lower the child's fee and never raise it; below the target it is
 * left out and named in `leftOut`: the child pays for less, never more.
 */
export async function unconfirmedPackage(deps: CoreDeps, coin: CoinName, params: ChainParams, txid: string, targetRate: bigint): Promise<UnconfirmedPackage> {
  const leftOut: string[] = [];
  let fee = 0n;
  let vsize = 0;
  let parentCounted = false;
  const ancestors: string[] = [];
  const seen = new Set<string>();
  const queue = [txid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next)) continue;
    seen.add(next);
    const isParent = next === txid;
    const proof = await unconfirmedProof(deps, coin, next);
    if (proof.proof === 'confirmed') {
      if (isParent) throw new CoordinatorError('proposal_refused', `refusing the child-pays-for-parent: ${txid} is confirmed already (${deps.store.payments().some((q) => q.txid === txid) ? "the desk's own payment" : 'your own node does not hold it unconfirmed'}): nothing to pull through`);
      continue;
    }
    const f = await parentFigures(deps, coin, params, next);
    if (proof.proof === 'unproven') {
      // The parent: the service's word is why it is offered at all; an ancestor: asked for the words only.
      if (!isParent && !(await serviceSaysUnconfirmed(deps, coin, params, next, f.tx))) continue;
      if (f.fee < targetRate * BigInt(f.vsize)) {
        leftOut.push(
          isParent
            ? `the parent ${txid} is unconfirmed on the service's word only (${proof.why}) and pays below the target: it is left out, so the child pays for itself alone at the target rate and does not lift it`
            : `the ancestor ${next} is unconfirmed on the service's word only (${proof.why}) and pays below the target: it is left out, so the child pays for less than the whole package, never more`,
        );
        continue;
      }
    }
    if (!isParent && ancestors.length === MAX_ANCESTORS) throw new CoordinatorError('proposal_refused', `refusing the child-pays-for-parent: ${txid} has more than ${MAX_ANCESTORS} unconfirmed ancestors, more than nodes accept in one package`);
    fee += f.fee;
    vsize += f.vsize;
    if (isParent) parentCounted = true;
    else ancestors.push(next);
    queue.push(...f.tx.inputs.map((i) => bytesToHex(i.prevTxid)));
  }
  return { fee, vsize, ancestors, parentCounted, leftOut };
}

/**
 * Proposes a child spending `output` (an unconfirmed output paying the wallet) back to a fresh
 * change address of the wallet, at the fee that brings parent + child to `targetRate`.
 */
export async function proposeCpfp(deps: CoreDeps, walletId: string, spent: { txid: string; vout?: number }, targetRate: bigint): Promise<{ payment: PaymentRow; package: PackageRate }> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const refuse = (why: string): never => {
    throw new CoordinatorError('proposal_refused', `refusing the child-pays-for-parent: ${why}`);
  };
  // Without an output index (a deposit picked from the history): the parent's first output paying the wallet.
  let vout = spent.vout;
  if (vout === undefined) {
    const raw = (await PreviousTransactions.fetch(deps.api, w.coin, params, [spent.txid])).raw(spent.txid);
    const scripts = deps.store.addresses(walletId).map((a) => addressToScript(params, a.address));
    vout = decodeTx(raw, params).outputs.findIndex((o) => scripts.some((sc) => equalBytes(sc, o.script)));
    if (vout < 0) return refuse(`${spent.txid} pays none of this wallet's addresses`);
  }
  const output: Outpoint = { txid: spent.txid.toLowerCase(), vout };
  if (targetRate < 1n) refuse(`the target rate must be at least ${feeRateText(params, 1n)}`);
  const { owners, amounts } = await ownersOf(deps, w, [output]).catch((err: unknown) => (err instanceof CoordinatorError ? refuse(err.message) : Promise.reject(err)));
  const value = amounts[0]!;
  const owner = owners[0]!;
  // Only an unconfirmed parent needs pulling through.
  const seen = (await historyOf(deps.api, w.coin, [owner.address])).find((t) => t.txid === output.txid.toLowerCase());
  if (seen && seen.confirmations > 0) refuse(`${output.txid} already has ${plural(seen.confirmations, 'confirmation')}`);
  const parent = await unconfirmedPackage(deps, w.coin, params, output.txid.toLowerCase(), targetRate);
  const back = await freshChangeAddress(deps, walletId);
  // The child's size is the desk's own estimate (one input, one output), not the service's word.
  const childVsize = spendVsize(params, w, deps.store.cosigners(walletId).length, 1, [back.address], walletVaultWitness(deps, w));
  const fee = childFee(targetRate, parent.vsize, childVsize, parent.fee);
  if (value - fee < params.dustLimit) refuse(`the output holds ${coinAmount(params, value)}: a child fee of ${coinAmount(params, fee)} leaves less than the dust limit of ${coinAmount(params, params.dustLimit)}`);
  const payment = await proposeTreasurySpend(deps, walletId, { to: back.address, amount: value - fee, inputs: [output], fee: { amount: fee }, replaceable: false, changeAddress: back, kind: 'cpfp' });
  return {
    payment,
    package: { parentFee: parent.fee, parentVsize: parent.vsize, ancestors: parent.ancestors, childFee: fee, childVsize, rate: rateText(parent.fee + fee, parent.vsize + childVsize), parentCounted: parent.parentCounted, leftOut: parent.leftOut },
  };
}
