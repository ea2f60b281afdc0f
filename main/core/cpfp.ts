// Child pays for parent: a stuck transaction that pays the wallet (a deposit, or a payment's change)
// is pulled through by spending that output back to the wallet at a fee that brings the pair to the
// target rate. Miners judge the package: (parent fee + child fee) / (parent vsize + child vsize).
// Used where replacement is impossible (the coin's nodes do not relay BIP125, the parent did not
// signal it) and for deposits, whose transaction the wallet did not make.
import { addressToScript, bytesToHex, decodeTx, equalBytes, type ChainParams, type CoinName } from '../../shared/coins/index.ts';
import { isBitcoinTx, txVsize, type Tx } from '../../shared/coins/tx.ts';
import { CoordinatorError } from './errors.ts';
import { PreviousTransactions } from './previous-transactions.ts';
import type { PaymentRow } from './store/store.ts';
import { freshChangeAddress, ownersOf, proposeTreasurySpend, spendRequest, type Outpoint } from './treasury-spend.ts';
import { requireWallet, walletParams, type CoreDeps } from './wallets.ts';
import { plural } from '../../shared/api/words.ts';

/** The child's fee that brings the package to `targetRate` units/vbyte: target x (both sizes) - parent fee, at least 1 unit/vbyte of its own. Pure. */
export function childFee(targetRate: bigint, parentVsize: number, childVsize: number, parentFee: bigint): bigint {
  const fee = targetRate * BigInt(parentVsize + childVsize) - parentFee;
  const floor = BigInt(childVsize);
  return fee > floor ? fee : floor;
}

export interface PackageRate {
  parentFee: bigint;
  parentVsize: number;
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
  if (targetRate < 1n) refuse('the target rate must be at least 1 unit per vbyte');
  const { owners, amounts } = await ownersOf(deps, w, [output]).catch((err: unknown) => (err instanceof CoordinatorError ? refuse(err.message) : Promise.reject(err)));
  const value = amounts[0]!;
  const owner = owners[0]!;
  // Only an unconfirmed parent needs pulling through.
  const history = await deps.api.history(w.coin, [owner.address], { limit: 1000 });
  const seen = history.txs.find((t) => t.txid === output.txid.toLowerCase());
  if (seen && seen.confirmations > 0) refuse(`${output.txid} already has ${plural(seen.confirmations, 'confirmation')}`);
  const parent = await parentFigures(deps, w.coin, params, output.txid.toLowerCase());
  const back = await freshChangeAddress(deps, walletId);
  const xpubs = deps.store.cosigners(walletId).map((c) => c.xpub);
  const probe = await deps.api.createMultisig(w.coin, spendRequest(params, w, xpubs, { to: back.address, amount: params.dustLimit, inputs: [output], fee: { rate: 1n }, replaceable: false }, back, owners));
  if (probe.vsize === undefined) return refuse('the service did not state the size of the child');
  const fee = childFee(targetRate, parent.vsize, probe.vsize, parent.fee);
  if (value - fee < params.dustLimit) refuse(`the output holds ${value}: a child fee of ${fee} leaves less than the dust limit of ${params.dustLimit}`);
  const payment = await proposeTreasurySpend(deps, walletId, { to: back.address, amount: value - fee, inputs: [output], fee: { amount: fee }, replaceable: false, changeAddress: back, kind: 'cpfp' });
  return {
    payment,
    package: { parentFee: parent.fee, parentVsize: parent.vsize, childFee: fee, childVsize: probe.vsize, rate: rateText(parent.fee + fee, parent.vsize + probe.vsize) },
  };
}
