// A vault's coins now (when each recovery path opens for each, which are due for a refresh) and the
// refresh itself (issue 27): one payment from the vault to a fresh change address of its own,
// spending exactly the chosen coins (default: the due ones), all of them, the fee taken from the
// amount, on the primary path. It is an ordinary proposal (payments/propose.ts, the one pipeline);
// what this module adds is the choice of coins and destination, and the purpose that names it.
import type { ApiClient } from '../../../shared/api/client.ts';
import { plural } from '../../../shared/api/words.ts';
import { CoordinatorError } from '../errors.ts';
import { reservedOutpoints } from '../payments/coin-selection.ts';
import { outpointKey } from '../payments/outpoints.ts';
import { proposePayment } from '../payments/propose.ts';
import { replaceableByDefault } from '../payments/fees.ts';
import { freshChangeAddress } from '../payments/spend.ts';
import type { PaymentRow } from '../store/store.ts';
import { coinsDue, dueWords, vaultWarningDays, type DueCoin } from './freshness.ts';
import { vaultCoinOpenings, vaultPaths, type VaultCoinOpening } from './vaults.ts';
import { walletUnspent } from '../wallets/funds.ts';
import { requireWallet, walletParams, type CoreDeps } from '../wallets/wallets.ts';

export interface VaultCoinsNow {
  openings: VaultCoinOpening[];
  /** The warning window in days (Settings). */
  days: number;
  due: DueCoin[];
  /** The warning's headline and whole words; null when no coin is due. */
  warning: { headline: string; words: string } | null;
}

/** Each coin's openings at the service's tip, and the coins due for a refresh; refused in words while the tip is unknown. */
export async function vaultCoinsNow(deps: Pick<CoreDeps, 'store'> & { api: Pick<ApiClient, 'utxos' | 'status'> }, walletId: string, now: number): Promise<VaultCoinsNow> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const paths = vaultPaths(deps, walletId);
  const [utxos, status] = await Promise.all([walletUnspent(deps, walletId), deps.api.status()]);
  const tip = status.coins.find((c) => c.coin === w.coin)?.tip_height ?? null;
  if (tip === null) throw new CoordinatorError('service_unavailable', `the service has not told ${w.coin}'s tip yet`);
  const openings = vaultCoinOpenings(params, paths, utxos, tip, now);
  const days = vaultWarningDays(deps.store);
  const due = coinsDue(params, openings, days, reservedOutpoints(deps.store, walletId, params));
  return { openings, days, due, warning: dueWords(due, days, paths[0]!) };
}

/**
 * Proposes the refresh of `outpoints` (default: the coins due) at `feeRate` units per vbyte: send
 * all to a fresh change address of the vault, on the primary path. Refused in words when there is
 * nothing to refresh; every other refusal is the proposal's own.
 */
export async function proposeRefresh(deps: CoreDeps, walletId: string, input: { outpoints?: readonly string[]; feeRate: bigint }): Promise<PaymentRow> {
  const w = requireWallet(deps, walletId);
  if (!w.vaultTemplate) throw new CoordinatorError('proposal_refused', `"${w.name}" is an M-of-N wallet: it has no recovery path whose clock a refresh would restart`);
  let outpoints = input.outpoints;
  if (outpoints === undefined || outpoints.length === 0) {
    const now = await vaultCoinsNow(deps, walletId, Date.now());
    outpoints = now.due.filter((d) => d.spentBy === null).map((d) => outpointKey(d.opening));
    if (outpoints.length === 0) {
      const spent = [...new Set(now.due.map((d) => d.spentBy))].join(', ');
      throw new CoordinatorError('proposal_refused', now.due.length === 0 ? `no coin of "${w.name}" has a recovery path opening within ${plural(now.days, 'day')}; pick the coins to refresh` : `the coins due are already spent by payment ${spent}, awaiting signatures: sign and send it`, { field: 'inputs' });
    }
  }
  const to = await freshChangeAddress(deps, walletId);
  const n = outpoints.length;
  return proposePayment(deps, walletId, {
    to: to.address,
    amount: 0n,
    minersFee: 0n,
    feeRate: input.feeRate,
    sendAll: true,
    inputs: outpoints,
    vaultPath: 0,
    replaceable: replaceableByDefault(deps.store),
    purpose: `Refresh of ${plural(n, 'coin')}: back to the vault on the main path, restarting ${n === 1 ? 'its' : 'their'} recovery clock`,
  });
}
