// Keeping a vault's coins fresh (issue 27) on litecoind -regtest: a 2-of-3 vault whose recovery key
// opens 2 days (1,152 blocks) after a coin confirms, with a warning window of 1 day (576 blocks).
// A new coin is not flagged; once its path is within a day it is, in words; the refresh is proposed
// from those coins (the default) on the primary path through the one proposal pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCosigner } from '../../dev/desk-testing/keys.ts';
import { fundWallet, startRegtestDesk, type RegtestDesk } from '../../dev/desk-testing/regtest.ts';
import { openStore, type CoordinatorStore } from './store/store.ts';
import { VAULT_WARNING_SETTING } from './vault-freshness.ts';
import { proposeRefresh, vaultCoinsNow } from './vault-refresh.ts';
import { createVault } from './vaults.ts';
import type { CoreDeps } from './wallets.ts';

const COIN = 100_000_000n;
const PATH_BLOCKS = 2 * 576;
const WINDOW_BLOCKS = 576;
const [alice, bob, carol, lawyer] = ['alice', 'bob', 'carol', 'lawyer'].map((n) => testCosigner(n));
const co = (c: typeof alice) => ({ name: c!.name, xpub: c!.xpub, fingerprint: c!.fingerprint, derivationPath: c!.derivationPath });

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let vaultId = '';

beforeAll(async () => {
  desk = await startRegtestDesk();
  store = openStore(`${desk.dir}/refresh-desk.sqlite`);
  deps = { store, api: desk.api, actor: 'treasurer' };
  store.setSettings({ [VAULT_WARNING_SETTING]: '1' });
  vaultId = (
    await createVault(deps, {
      template: 'recovery',
      coin: 'litecoin',
      network: 'regtest',
      name: 'Fresh vault',
      primary: { threshold: 2, cosigners: [alice, bob, carol].map(co) },
      recovery: [{ threshold: 1, cosigners: [co(lawyer)], after: { days: 2 } }],
    })
  ).id;
}, 180_000);
afterAll(async () => {
  store?.close();
  await desk?.dispose();
});

describe('refreshing a vault whose recovery path nears', () => {
  let coin = '';
  it('a new coin is not flagged; a refresh with nothing due is refused in words', async () => {
    const txid = await fundWallet(desk, deps, vaultId, 2n * COIN);
    const now = await vaultCoinsNow(deps, vaultId, Date.now());
    const [o] = now.openings;
    coin = `${o!.txid}:${o!.vout}`;
    expect(o!.txid).toBe(txid);
    expect(o!.blocksLeft).toBe(PATH_BLOCKS - 1);
    expect([now.days, now.due, now.warning]).toEqual([1, [], null]);
    await expect(proposeRefresh(deps, vaultId, { feeRate: 2n })).rejects.toThrow('no coin of "Fresh vault" has a recovery path opening within 1 day; pick the coins to refresh');
  });

  it('within a day of its opening block the coin is flagged, in words; the refresh takes it by default, on the primary path', async () => {
    // One block short of the window, then into it.
    await desk.mine(PATH_BLOCKS - 1 - WINDOW_BLOCKS - 1);
    expect((await vaultCoinsNow(deps, vaultId, Date.now())).due).toEqual([]);
    await desk.mine(1);
    const now = await vaultCoinsNow(deps, vaultId, Date.now());
    expect(now.due.map((d) => [`${d.opening.txid}:${d.opening.vout}`, d.opening.blocksLeft, d.open])).toEqual([[coin, WINDOW_BLOCKS, false]]);
    expect(now.warning?.words).toBe(
      "1 coin's recovery path opens within 1 day: refresh it. After that date the recovery keys alone (1 of lawyer) can move this coin, without the co-signers. A refresh pays it back to the vault on the main path, which starts its clock again.",
    );
    // The desk's proposal pipeline takes the refresh (send all of the due coin to a fresh change
    // address, path 0) and, until it builds vault spends, refuses it there in words; nothing is stored.
    await expect(proposeRefresh(deps, vaultId, { feeRate: 2n })).rejects.toThrow('"Fresh vault" is a vault with recovery paths; its spends (a path, its timelock) are not proposed by this desk yet');
    await expect(proposeRefresh(deps, vaultId, { feeRate: 2n, outpoints: [`${'00'.repeat(32)}:0`] })).rejects.toThrow('is not an unspent output of this wallet');
    expect(store.payments(vaultId)).toEqual([]);
  });
});
