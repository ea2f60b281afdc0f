// Replacing a broadcast payment that is stuck unconfirmed (BIP125): a fee bump (same inputs and
// recipients, a higher fee rate, less change, another of the wallet's inputs when the change cannot
// pay) or a cancel (everything back to a fresh change address of the wallet). The replacement is a
// payment like any other: co-signers sign it from its own signing request. The service refuses a
// replacement that does not pay both a higher fee and a higher rate (409 with both figures).
import { ApiClientError } from '../../../shared/api/client.ts';
import { plural } from '../../../shared/api/words.ts';
import { addressToScript, bytesToHex, decodeTx, equalBytes, isUtxoCoin, utxoCoinRow } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';
import { IN_FLIGHT, requirePayment } from './payments.ts';
import type { AddressRow, PaymentRow, WalletRow } from '../store/store.ts';
import { paymentVaultPath } from './vault-inputs.ts';
import { outpointKey, type Outpoint } from './outpoints.ts';
import { freshChangeAddress, proposeTreasurySpend, REPLACEABLE_SEQUENCE, spendVsize, walletVaultWitness } from './spend.ts';
import { replacementsRelayed } from '../chains/service-status.ts';
import { relaysReplacements } from './fees.ts';
import { walletUnspent } from '../wallets/funds.ts';
import { coinAmount } from '../../../shared/coins/units.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';

/** The outpoints a payment's transaction spends. */
export function paymentOutpoints(p: Pick<PaymentRow, 'unsignedTx'>, w: WalletRow): Outpoint[] {
  return decodeTx(p.unsignedTx, walletParams(w)).inputs.map((i) => ({ txid: bytesToHex(i.prevTxid), vout: i.vout }));
}

/** A replacement the network refused at broadcast: still ready, with the node's reason (the original stays stuck). */
export const refusedReplacement = (q: Pick<PaymentRow, 'replaces' | 'state' | 'lastError'>): boolean => q.replaces !== null && q.state === 'ready' && q.lastError !== null;

/**
 * Why a payment cannot be replaced, in words; null when it can. `relayed`: whether the service's
 * node relays replacements (service-status.ts replacementsRelayed); a bump it would refuse is never offered.
 */
export function whyNotReplaceable(deps: Pick<CoreDeps, 'store'>, p: PaymentRow, relayed: boolean): string | null {
  const w = requireWallet(deps, p.walletId);
  const cpfp = 'pull it through by child-pays-for-parent on its change instead';
  if (!isUtxoCoin(w.coin) || !utxoCoinRow(w.coin).bip125) return `${w.coin}'s nodes do not relay replacements (BIP125): ${cpfp}`;
  if (p.state !== 'broadcast' || !p.txid) return `payment ${p.id} is ${p.state}: only a broadcast, unconfirmed payment can be replaced`;
  const seq = decodeTx(p.unsignedTx, walletParams(w)).inputs.map((i) => i.sequence);
  // In words: the sequence number itself means nothing to a treasurer.
  if (seq.some((s) => s > REPLACEABLE_SEQUENCE)) return `this payment was sent as final, without signalling replacement (BIP125): ${cpfp}`;
  if (!relayed && w.network === 'mainnet' && !relaysReplacements(w.coin)) {
    return `most ${w.coin} nodes do not relay replacements (BIP125; Litecoin Core relays them only when started with -mempoolreplacement=1), so a fee bump would not reach the miners: ${cpfp}`;
  }
  const path = paymentVaultPath(deps, w, p);
  if (path !== undefined && path > 0) {
    // The service checks a timelocked path against the coins' depth among its unspent outputs, which
    // the payment being replaced has already spent: the replacement could not be sent.
    return `payment ${p.id} spends on the vault's path that opens after ${plural(path, 'block')}; a replacement of such a spend is not sent by the service yet (it checks the path's timelock on unspent coins only): wait for it to confirm, or ${cpfp}`;
  }
  if (!relayed) return `the service's ${w.coin} node does not relay replacements (BIP125; Litecoin Core relays them only when started with -mempoolreplacement=1), so a fee bump would be refused: ${cpfp}`;
  const open = deps.store.payments(p.walletId).find((q) => q.replaces === p.id && IN_FLIGHT.includes(q.state));
  if (open && refusedReplacement(open)) return `the network refused payment ${open.id}, a ${open.kind === 'cancel' ? 'cancel' : 'fee bump'} of it: ${cpfp}, or cancel payment ${open.id} to try another`;
  if (open) return `payment ${open.id} already replaces it (${open.state}): finish or cancel that one first`;
  return null;
}

async function requireReplaceable(deps: CoreDeps, id: string): Promise<{ p: PaymentRow; w: WalletRow }> {
  const p = requirePayment(deps, id);
  const w = requireWallet(deps, p.walletId);
  const why = whyNotReplaceable(deps, p, await replacementsRelayed(deps.api, w.coin, w.network));
  if (why) throw new CoordinatorError('proposal_refused', `refusing the replacement: ${why}`);
  return { p, w };
}

/** The service's refusal, in its words (the 409 gives both fees and both rates). */
function refusal(err: unknown, what: string): never {
  if (err instanceof ApiClientError) throw new CoordinatorError('proposal_refused', `refusing the ${what}: ${err.message}`);
  throw err;
}

/** The wallet's change address that the payment pays change to, if it pays any. */
function changeOf(deps: CoreDeps, p: PaymentRow, w: WalletRow): AddressRow | undefined {
  const params = walletParams(w);
  const outs = decodeTx(p.unsignedTx, params).outputs;
  return deps.store.addresses(w.id).find((a) => a.change && outs.some((o) => equalBytes(o.script, addressToScript(params, a.address))));
}

/** Unspent outputs of the wallet that no payment in flight spends, largest first. */
async function freeOutputs(deps: CoreDeps, w: WalletRow): Promise<(Outpoint & { amount: bigint })[]> {
  const taken = new Set(deps.store.payments(w.id).filter((q) => IN_FLIGHT.includes(q.state)).flatMap((q) => paymentOutpoints(q, w).map(outpointKey)));
  return (await walletUnspent(deps, w.id))
    .map((u) => ({ txid: u.txid, vout: u.vout, amount: u.amount }))
    .filter((u) => !taken.has(outpointKey(u)))
    .sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1));
}

/**
 * Proposes a fee bump of a broadcast payment: the same inputs and recipients at `feeRate` units per
 * vbyte, the change reduced; when the change cannot pay, the wallet's largest free output is added.
 */
export async function proposeBump(deps: CoreDeps, id: string, feeRate: bigint): Promise<PaymentRow> {
  const { p, w } = await requireReplaceable(deps, id);
  const inputs = paymentOutpoints(p, w);
  const change = changeOf(deps, p, w) ?? (await freshChangeAddress(deps, w.id));
  // A vault's replacement is spent on the path the original was (its signers are at hand).
  const vaultPath = paymentVaultPath(deps, w, p);
  const spend = (extra: readonly Outpoint[]) =>
    proposeTreasurySpend(deps, w.id, {
      to: p.to,
      amount: p.amount,
      // Every recipient of a batch, as the original paid them (absent rows: one recipient, p.to).
      recipients: deps.store.paymentRecipients(p.id).map((r) => ({ to: r.address, amount: r.amount, label: r.label })),
      ...(p.operatorFee !== null && p.operatorAddress !== null ? { operatorFee: { address: p.operatorAddress, amount: p.operatorFee } } : {}),
      inputs: [...inputs, ...extra],
      fee: { rate: feeRate },
      replaceable: true,
      changeAddress: change,
      kind: 'bump',
      replaces: p,
      ...(vaultPath !== undefined ? { vaultPath } : {}),
    });
  try {
    return await spend([]);
  } catch (err) {
    // The change cannot pay the new fee: add the wallet's largest free output (once).
    if (err instanceof ApiClientError && /insufficient funds/i.test(err.message)) {
      const [more] = await freeOutputs(deps, w);
      if (!more) return refusal(err, 'fee bump (the wallet has no other free output to add)');
      try {
        return await spend([more]);
      } catch (again) {
        return refusal(again, 'fee bump');
      }
    }
    return refusal(err, 'fee bump');
  }
}

/**
 * Proposes the cancel of a broadcast payment: its inputs pay everything, less the fee, to one fresh
 * change address of the wallet, at `feeRate` units per vbyte of the desk's own size of that
 * one-output transaction.
 */
export async function proposeCancel(deps: CoreDeps, id: string, feeRate: bigint): Promise<PaymentRow> {
  const { p, w } = await requireReplaceable(deps, id);
  const params = walletParams(w);
  const inputs = paymentOutpoints(p, w);
  const back = await freshChangeAddress(deps, w.id);
  const vaultPath = paymentVaultPath(deps, w, p);
  const fee = feeRate * BigInt(spendVsize(params, w, deps.store.cosigners(w.id).length, inputs.length, [back.address], walletVaultWitness(deps, w, vaultPath)));
  const amount = p.totalInputValue - fee;
  if (amount < params.dustLimit) throw new CoordinatorError('proposal_refused', `refusing the cancel: a fee of ${coinAmount(params, fee)} leaves ${coinAmount(params, amount)}, below the dust limit of ${coinAmount(params, params.dustLimit)}`);
  try {
    return await proposeTreasurySpend(deps, w.id, { to: back.address, amount, inputs, fee: { amount: fee }, replaceable: true, changeAddress: back, kind: 'cancel', replaces: p, ...(vaultPath !== undefined ? { vaultPath } : {}) });
  } catch (err) {
    return refusal(err, 'cancel');
  }
}
