// The wallet's books: its confirmed transactions oldest first, each with the fee (payments this
// desk sent), the balance after it, its label and its USD value on the day it confirmed (the
// service's historical rates). The CSV and the balance chart are both drawn from these rows, and
// the rows sum to the confirmed balance.
import type { ApiClient } from '../../shared/api/client.ts';
import { unitsToDecimal } from '../../shared/coins/units.ts';
import { csvCell } from './csv.ts';
import { unitOf, type CoinUnit } from './units.ts';
import { fileSafe } from './file-names.ts';
import { labelMap, purposesByTx } from './labels.ts';
import { walletHistory, type FundsDeps, type WalletTx } from './wallets/funds.ts';
import { requireWallet, walletParams } from './wallets/wallets.ts';
import type { CoordinatorStore } from './store/store.ts';

export interface BooksDeps {
  store: CoordinatorStore;
  api: FundsDeps['api'] & Pick<ApiClient, 'priceHistory'>;
}

export interface BooksRow {
  /** Unix seconds (the block's time). */
  time: number;
  txid: string;
  /** Signed: positive received, negative sent (fees included). */
  amount: bigint;
  /** Miners' fee of a payment this desk sent; null otherwise. */
  fee: bigint | null;
  balanceAfter: bigint;
  label: string;
  /** USD per whole coin that day; null when the service has no rate. */
  usdRate: number | null;
}

/** Confirmed transactions oldest first with running balances. Pure. */
export function booksRows(history: readonly WalletTx[], fees: ReadonlyMap<string, bigint>, labels: ReadonlyMap<string, string>, rates: ReadonlyMap<number, number | null>): BooksRow[] {
  const confirmed = history.filter((t) => t.confirmations > 0).sort((a, b) => a.time - b.time || b.confirmations - a.confirmations);
  let balance = 0n;
  return confirmed.map((t) => {
    balance += t.amount;
    return { time: t.time, txid: t.txid, amount: t.amount, fee: fees.get(t.txid) ?? null, balanceAfter: balance, label: labels.get(t.txid) ?? '', usdRate: rates.get(t.time) ?? null };
  });
}

/** Every confirmed row of the wallet (the chart's series; the CSV filters it by date). */
export async function walletBooks(deps: BooksDeps, walletId: string): Promise<BooksRow[]> {
  const w = requireWallet(deps, walletId);
  const history = await walletHistory(deps, walletId);
  const payments = deps.store.payments(walletId).filter((p) => p.txid !== null);
  const fees = new Map(payments.map((p) => [p.txid!, p.minersFee]));
  // A transaction's own label, else the purpose of the payment that made it.
  const labels = new Map([...purposesByTx(deps.store, walletId), ...labelMap(deps.store, walletId, 'tx')]);
  const times = [...new Set(history.filter((t) => t.confirmations > 0).map((t) => t.time))];
  const rates = new Map<number, number | null>();
  for (let i = 0; i < times.length; i += 500) {
    for (const r of (await deps.api.priceHistory(w.coin, times.slice(i, i + 500))).rates) rates.set(r.at, r.usd_rate);
  }
  return booksRows(history, fees, labels, rates);
}

const day = (time: number) => new Date(time * 1000).toISOString().slice(0, 10);

/** USD value of `units` at `rate`, to the cent; '' without a rate. */
export function usdValue(units: bigint, decimals: number, rate: number | null): string {
  if (rate === null) return '';
  return ((Number(units) / 10 ** decimals) * rate).toFixed(2);
}

/**
 * The CSV of the rows whose UTC day is within [from, to] (inclusive, either open). Numbers are
 * written plainly (they are ours, never outside text); the unit and the label are guarded cells.
 */
export function booksCsv(rows: readonly BooksRow[], unit: Pick<CoinUnit, 'ticker' | 'decimals'>, range: { from?: string; to?: string }): string {
  const { decimals } = unit;
  const kept = rows.filter((r) => (range.from === undefined || day(r.time) >= range.from) && (range.to === undefined || day(r.time) <= range.to));
  // The unit of amount, fee and balance_after on every row, so a file read alone says what its numbers count.
  const header = ['date_utc', 'txid', 'amount', 'fee', 'balance_after', 'unit', 'label', 'usd_value'];
  const lines = kept.map((r) =>
    [
      new Date(r.time * 1000).toISOString().replace('.000Z', 'Z'),
      r.txid,
      unitsToDecimal(r.amount, decimals),
      r.fee === null ? '' : unitsToDecimal(r.fee, decimals),
      unitsToDecimal(r.balanceAfter, decimals),
      csvCell(unit.ticker),
      csvCell(r.label),
      usdValue(r.amount, decimals, r.usdRate),
    ].join(','),
  );
  return `\uFEFF${[header.join(','), ...lines].map((l) => `${l}\r\n`).join('')}`;
}

export async function exportBooks(deps: BooksDeps, walletId: string, range: { from?: string; to?: string }): Promise<{ fileName: string; text: string }> {
  const w = requireWallet(deps, walletId);
  const rows = await walletBooks(deps, walletId);
  const span = `${range.from ?? 'start'}-to-${range.to ?? 'now'}`;
  return { fileName: `${fileSafe(w.name)}-books-${span}.csv`, text: booksCsv(rows, unitOf(w.coin, w.network, walletParams(w).decimals), range) };
}
