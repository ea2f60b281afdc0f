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
import { requireWallet, walletParams, type CoreDeps } from '../wallets.ts';
import { plural } from '../../../shared/api/words.ts';

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

/** Whether the service's history shows `txid` unconfirmed, asked of the address of its first output that has one. */
async function isUnconfirmed(deps: CoreDeps, coin: CoinName, params: ChainParams, txid: string, tx: Tx): Promise<boolean> {
  const address = tx.outputs.map((o) => scriptToAddress(params, o.script)).find((a) => a !== null);
  // No output with an address (bare scripts only): the service cannot be asked; counted as confirmed.
  if (!address) return false;
  const seen = (await deps.api.history(coin, [address], { limit: 1000 })).txs.find((t) => t.txid === txid);
  return seen !== undefined && seen.confirmations === 0;
}

/**
 * The unconfirmed package a child of `txid` pulls through: the parent and every unconfirmed
 * ancestor (the parents' parents that have no confirmation yet), fees and sizes summed. Miners rate
 * the child with all of them, so its fee must lift the whole package to the target.
 */
export async function unconfirmedPackage(deps: CoreDeps, coin: CoinName, params: ChainParams, txid: string): Promise<{ fee: bigint; vsize: number; ancestors: string[] }> {
  const parent = await parentFigures(deps, coin, params, txid);
  let fee = parent.fee;
  let vsize = parent.vsize;
  const ancestors: string[] = [];
  const seen = new Set([txid]);
  const queue = parent.tx.inputs.map((i) => bytesToHex(i.prevTxid));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next)) continue;
    seen.add(next);
    const tx = decodeTx((await PreviousTransactions.fetch(deps.api, coin, params, [next])).raw(next), params);
    if (!(await isUnconfirmed(deps, coin, params, next, tx))) continue;
    if (ancestors.length === MAX_ANCESTORS) throw new CoordinatorError('proposal_refused', `refusing the child-pays-for-parent: ${txid} has more than ${MAX_ANCESTORS} unconfirmed ancestors, more than nodes accept in one package`);
    const f = await parentFigures(deps, coin, params, next);
    fee += f.fee;
    vsize += f.vsize;
    ancestors.push(next);
    queue.push(...f.tx.inputs.map((i) => bytesToHex(i.prevTxid)));
  }
  return { fee, vsize, ancestors };
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
  const history = await deps.api.history(w.coin, [owner.address], { limit: 1000 });
  const seen = history.txs.find((t) => t.txid === output.txid.toLowerCase());
  if (seen && seen.confirmations > 0) refuse(`${output.txid} already has ${plural(seen.confirmations, 'confirmation')}`);
  const parent = await unconfirmedPackage(deps, w.coin, params, output.txid.toLowerCase());
  const back = await freshChangeAddress(deps, walletId);
  // The child's size is the desk's own estimate (one input, one output), not the service's word.
  const childVsize = spendVsize(params, w, deps.store.cosigners(walletId).length, 1, [back.address], walletVaultWitness(deps, w));
  const fee = childFee(targetRate, parent.vsize, childVsize, parent.fee);
  if (value - fee < params.dustLimit) refuse(`the output holds ${coinAmount(params, value)}: a child fee of ${coinAmount(params, fee)} leaves less than the dust limit of ${coinAmount(params, params.dustLimit)}`);
  const payment = await proposeTreasurySpend(deps, walletId, { to: back.address, amount: value - fee, inputs: [output], fee: { amount: fee }, replaceable: false, changeAddress: back, kind: 'cpfp' });
  return {
    payment,
    package: { parentFee: parent.fee, parentVsize: parent.vsize, ancestors: parent.ancestors, childFee: fee, childVsize, rate: rateText(parent.fee + fee, parent.vsize + childVsize) },
  };
}
