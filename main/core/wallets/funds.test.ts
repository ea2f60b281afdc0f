// A balance query the service refuses while its index catches up (503) is "not known yet", not an
// error; any other failure still is one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClientError } from '../../../shared/api/client.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { walletFundsOnceIndexed, type FundsDeps } from './funds.ts';

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
