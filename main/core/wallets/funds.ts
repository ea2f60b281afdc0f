// What a wallet holds, from the service's address endpoints over every address the desk has
// derived for it: balances, history (one entry per transaction) and unspent outputs. The service
// takes at most 200 addresses per request, so each question is asked in batches.
import { ApiClientError, type ApiClient } from '../../../shared/api/client.ts';
import type { HistoryTx, Utxo } from '../../../shared/api/schemas.ts';
import { addressToScript, bytesToHex } from '../../../shared/coins/index.ts';
import { addressPath } from '../../../shared/coins/multisig-address.ts';
import type { CoordinatorStore } from '../store/store.ts';
import { requireWallet, walletParams } from './wallets.ts';

export interface FundsDeps {
  store: CoordinatorStore;
  api: Pick<ApiClient, 'balances' | 'history' | 'utxos'>;
}

/** The service takes at most 200 addresses per request. */
export const MAX_ADDRESSES = 200;

/** `items` in batches of at most `size`. Pure. */
export function chunks<T>(items: readonly T[], size = MAX_ADDRESSES): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The unspent outputs of `addresses`, asked in batches of at most 200: the one way the desk asks
 * the service for a wallet's outputs. The service answers a page at a time (at most 1,000 outputs:
 * an address may hold hundreds of thousands), so each batch is read page by page to the last: a
 * payment must see every coin of the wallet.
 */
export async function utxosOf(api: Pick<ApiClient, 'utxos'>, coin: string, addresses: readonly string[]): Promise<Utxo[]> {
  const out: Utxo[] = [];
  for (const batch of chunks(addresses)) {
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await api.utxos(coin, batch, cursor === undefined ? {} : { cursor });
      out.push(...page.utxos);
      cursor = page.next_cursor;
      // a service that hands back a cursor it gave before would be read for ever
      if (cursor !== undefined && seen.has(cursor)) throw new ApiClientError(0, `the service gave the unspent outputs' page cursor ${cursor} twice: its pages go round in a circle`);
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined);
  }
  return out;
}

/** History entries the desk asks for a page (the service's largest). */
const HISTORY_PAGE = 1000;

/**
 * Every history entry of `addresses`, asked in batches of at most 200 and read page by page
 * (`offset`) to the service's `total_txs`: 200 busy addresses easily hold more than one page, and a
 * treasurer's history, books and payment follow-up must not lose the older ones. Newest first, a
 * transaction arriving between two pages pushes an entry onto the next page again: entries are
 * kept once. A page shorter than asked is the last (the total may shrink in a reorganisation).
 */
export async function historyOf(api: Pick<ApiClient, 'history'>, coin: string, addresses: readonly string[]): Promise<HistoryTx[]> {
  const out: HistoryTx[] = [];
  for (const batch of chunks(addresses)) {
    const seen = new Set<string>();
    for (let offset = 0; ; ) {
      const page = await api.history(coin, batch, { limit: HISTORY_PAGE, offset });
      for (const t of page.txs) {
        const key = `${t.txid ?? `${t.time}`}:${t.address}:${t.is_deposit}:${t.amount}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(t);
      }
      offset += page.txs.length;
      if (page.txs.length < HISTORY_PAGE || offset >= page.total_txs) break;
    }
  }
  return out;
}

export interface Funds {
  balance: bigint;
  unconfirmedBalance: bigint;
  /** USD value of the confirmed balance at the service's rate (0 when it has none). */
  usdBalance: number;
}

/** The wallet's balances, summed over every batch of its addresses. */
export async function walletFunds(deps: FundsDeps, walletId: string): Promise<Funds> {
  const w = requireWallet(deps, walletId);
  const funds: Funds = { balance: 0n, unconfirmedBalance: 0n, usdBalance: 0 };
  for (const batch of chunks(deps.store.addresses(walletId).map((a) => a.address))) {
    const { totals } = await deps.api.balances(w.coin, batch);
    funds.balance += totals.balance;
    funds.unconfirmedBalance += totals.unconfirmed_balance;
    funds.usdBalance += totals.usd_balance;
  }
  return funds;
}

/**
 * The wallet's balances, or null when the service refuses address queries because its index is
 * still catching up (HTTP 503): the desk then shows the indexing progress, not an error.
 */
export async function walletFundsOnceIndexed(deps: FundsDeps, walletId: string): Promise<Funds | null> {
  try {
    return await walletFunds(deps, walletId);
  } catch (err) {
    if (err instanceof ApiClientError && err.status === 503) return null;
    throw err;
  }
}

export interface WalletTx {
  txid: string;
  /** Net effect on the wallet: positive received, negative sent. */
  amount: bigint;
  confirmations: number;
  time: number;
}

/** The wallet's transactions, unconfirmed first, then newest first. */
export async function walletHistory(deps: FundsDeps, walletId: string): Promise<WalletTx[]> {
  const w = requireWallet(deps, walletId);
  const rows = await historyOf(deps.api, w.coin, deps.store.addresses(walletId).map((a) => a.address));
  // The service lists one entry per (transaction, address); the treasurer wants one per transaction.
  const byTx = new Map<string, WalletTx>();
  for (const r of rows) {
    const txid = r.txid ?? `${r.address}@${r.time}`;
    const e = byTx.get(txid) ?? { txid, amount: 0n, confirmations: r.confirmations, time: r.time };
    e.amount += r.is_deposit ? r.amount : -r.amount;
    byTx.set(txid, e);
  }
  return [...byTx.values()].sort((a, b) => a.confirmations - b.confirmations || b.time - a.time);
}

export interface WalletUtxo {
  txid: string;
  vout: number;
  amount: bigint;
  address: string;
  /** Below each co-signer's xpub. */
  path: string;
  /** Of the transaction that made it, at the service's tip (0: unconfirmed): how old the coin is. */
  confirmations: number;
  /** The block holding it (null: unconfirmed): where its relative timelocks count from. */
  height: number | null;
}

/**
 * The block an unspent output was confirmed in (null: unconfirmed), as the service names it: the
 * one reading of a coin's age that the vault's openings and the recovery-path spend check share.
 * Never the node's tip less the confirmations, which the service counts at its indexed tip.
 */
export const coinHeight = (u: Pick<Utxo, 'height' | 'confirmations'>): number | null => (u.confirmations > 0 ? u.height : null);

/** The wallet's unspent outputs: those the service lists that pay one of the wallet's addresses. */
export async function walletUnspent(deps: { store: CoordinatorStore; api: Pick<ApiClient, 'utxos'> }, walletId: string): Promise<WalletUtxo[]> {
  const w = requireWallet(deps, walletId);
  const params = walletParams(w);
  const rows = deps.store.addresses(walletId);
  const byScript = new Map(rows.map((a) => [bytesToHex(addressToScript(params, a.address)), a]));
  const out: WalletUtxo[] = [];
  for (const u of await utxosOf(deps.api, w.coin, rows.map((a) => a.address))) {
    const row = byScript.get(u.script_pub_key.toLowerCase());
    if (row) out.push({ txid: u.txid.toLowerCase(), vout: u.vout, amount: u.amount, address: row.address, path: addressPath(row.change, row.index), confirmations: u.confirmations, height: coinHeight(u) });
  }
  return out;
}
