// A balance query the service refuses while its index catches up (503) is "not known yet", not an
// error; any other failure still is one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClientError } from '../../../shared/api/client.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { historyOf, utxosOf, walletFundsOnceIndexed, type FundsDeps } from './funds.ts';

const open: { dir: string; store: CoordinatorStore }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) {
    o.store.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function deps(balances: FundsDeps['api']['balances']): FundsDeps {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-funds-'));
  const store = openStore(join(dir, 'desk.sqlite'));
  open.push({ dir, store });
  store.insertWallet({ id: 'w1', coin: 'litecoin', network: 'regtest', name: 'T', m: 1, createdAt: '2026-01-01T00:00:00Z' }, [
    { position: 0, name: 'a', xpub: 'x', fingerprint: '00000000', derivationPath: 'm' },
  ]);
  store.insertAddresses('w1', [{ change: false, index: 0, address: 'Qaddress', redeemScript: new Uint8Array([0x51]) }]);
  const refuse = () => Promise.reject(new Error('not asked'));
  return { store, api: { balances, history: refuse, utxos: refuse } };
}

describe('walletFundsOnceIndexed', () => {
  it('sums the balances when the service answers', async () => {
    const d = deps(async () => ({ totals: { balance: 5n, unconfirmed_balance: 1n, usd_balance: 2 } }) as Awaited<ReturnType<FundsDeps['api']['balances']>>);
    expect(await walletFundsOnceIndexed(d, 'w1')).toEqual({ balance: 5n, unconfirmedBalance: 1n, usdBalance: 2 });
  });

  it('is null while the service answers 503 for a lagging index, and throws any other failure', async () => {
    expect(await walletFundsOnceIndexed(deps(() => Promise.reject(new ApiClientError(503, 'the index is 900 blocks behind'))), 'w1')).toBeNull();
    await expect(walletFundsOnceIndexed(deps(() => Promise.reject(new ApiClientError(500, 'boom'))), 'w1')).rejects.toThrow('boom');
  });
});

describe('utxosOf', () => {
  // A service whose answers are cut in pages (issue 33): every output of every batch is read.
  const utxo = (n: number) => ({ txid: n.toString(16).padStart(64, '0'), vout: 0, amount: BigInt(n), script_pub_key: '', height: 1, confirmations: 1 });
  const paged = (perAddress: number, pageSize: number) => {
    const asked: { addresses: number; cursor: string | undefined }[] = [];
    const api = {
      utxos: async (_coin: string, addresses: readonly string[], page: { cursor?: string } = {}) => {
        asked.push({ addresses: addresses.length, cursor: page.cursor });
        const all = addresses.flatMap((a) => Array.from({ length: perAddress }, (_, i) => utxo(Number(a) * 1000 + i)));
        const from = page.cursor === undefined ? 0 : Number(page.cursor.slice(1));
        const next = from + pageSize < all.length ? `o${from + pageSize}` : undefined;
        return { utxos: all.slice(from, from + pageSize), ...(next ? { next_cursor: next } : {}) };
      },
    };
    return { api, asked };
  };

  it('follows next_cursor to the last page of each batch of 200 addresses', async () => {
    const { api, asked } = paged(7, 1000);
    const addresses = Array.from({ length: 450 }, (_, i) => String(i + 1));
    const got = await utxosOf(api, 'litecoin', addresses);
    expect(got).toHaveLength(450 * 7);
    expect(new Set(got.map((u) => u.txid)).size).toBe(450 * 7);
    // 200 addresses x 7 = 1,400 outputs: two pages; the last batch of 50 (350 outputs): one
    expect(asked).toEqual([
      { addresses: 200, cursor: undefined },
      { addresses: 200, cursor: 'o1000' },
      { addresses: 200, cursor: undefined },
      { addresses: 200, cursor: 'o1000' },
      { addresses: 50, cursor: undefined },
    ]);
  });

  it('refuses a service whose pages go round in a circle, in words', async () => {
    const api = { utxos: async () => ({ utxos: [utxo(1)], next_cursor: 'c1.0' }) };
    await expect(utxosOf(api, 'litecoin', ['a'])).rejects.toThrow(/gave the unspent outputs' page cursor c1\.0 twice/);
  });
});

describe('historyOf', () => {
  const entry = (n: number, address: string) => ({ confirmations: 1, time: 1_700_000_000 + n, is_deposit: true, address, amount: BigInt(n), human_amount: n / 1e8, txid: n.toString(16).padStart(64, '0') });

  it('reads every page of a batch to total_txs, not only the first 1,000 entries', async () => {
    const asked: { addresses: number; offset: number | undefined }[] = [];
    const api = {
      history: async (_coin: string, addresses: readonly string[], page: { limit?: number; offset?: number } = {}) => {
        asked.push({ addresses: addresses.length, offset: page.offset });
        const all = addresses.flatMap((a) => Array.from({ length: 7 }, (_, i) => entry(Number(a) * 1000 + i, a)));
        const from = page.offset ?? 0;
        return { total_txs: all.length, txs: all.slice(from, from + (page.limit ?? 50)) };
      },
    };
    const got = await historyOf(api, 'litecoin', Array.from({ length: 450 }, (_, i) => String(i + 1)));
    expect(got).toHaveLength(450 * 7);
    expect(asked).toEqual([
      { addresses: 200, offset: 0 },
      { addresses: 200, offset: 1000 },
      { addresses: 200, offset: 0 },
      { addresses: 200, offset: 1000 },
      { addresses: 50, offset: 0 },
    ]);
  });

  it('keeps an entry once when a new transaction pushes it onto the next page', async () => {
    // 1,500 entries, newest first; a new one arrives after the first page is read.
    let entries = Array.from({ length: 1500 }, (_, i) => entry(1500 - i, 'a'));
    const api = {
      history: async (_coin: string, _addresses: readonly string[], page: { limit?: number; offset?: number } = {}) => {
        const from = page.offset ?? 0;
        const answer = { total_txs: entries.length, txs: entries.slice(from, from + (page.limit ?? 50)) };
        if (from === 0) entries = [entry(1501, 'a'), ...entries];
        return answer;
      },
    };
    const got = await historyOf(api, 'litecoin', ['a']);
    expect(got).toHaveLength(1500);
    expect(new Set(got.map((t) => t.txid)).size).toBe(1500);
  });
});
