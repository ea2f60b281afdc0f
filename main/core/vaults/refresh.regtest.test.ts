// Keeping a vault's coins fresh (issue 27) on litecoind -regtest: a 2-of-3 vault whose recovery key
// opens 2 days (1,152 blocks) after a coin confirms, with a warning window of 1 day (576 blocks).
// A new coin is not flagged; once its path is within a day it is, in words; the refresh is proposed
// from those coins (the default) on the primary path through the one proposal pipeline, signed by
// two co-signers and confirmed: the coin's clock restarts from the refresh's block, and the warning
// goes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { fundWallet, signAndSend, startRegtestDesk, type RegtestDesk } from '../../../dev/desk-testing/regtest.ts';
import { addressToScript, bytesToHex, chainParams, decodeTx } from '../../../shared/coins/index.ts';
import { refreshConfirmations } from '../payments/submit.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { VAULT_WARNING_SETTING } from './freshness.ts';
import { proposeRefresh, vaultCoinsNow } from './refresh.ts';
import { createVault } from './vaults.ts';
import type { CoreDeps } from '../wallets/wallets.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const PATH_BLOCKS = 2 * 576;
const WINDOW_BLOCKS = 576;
const [alice, bob, carol, lawyer] = ['alice', 'bob', 'carol', 'lawyer'].map((n) => testCosigner(n));
const co = (c: typeof alice) => ({ name: c!.name, xpub: c!.xpub, fingerprint: c!.fingerprint, derivationPath: c!.derivationPath });

let desk: RegtestDesk;
let store: CoordinatorStore;
let deps: CoreDeps;
let vaultId = '';
let refreshId = '';

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
    await expect(proposeRefresh(deps, vaultId, { feeRate: 2n, outpoints: [`${'00'.repeat(32)}:0`] })).rejects.toThrow('is not an unspent output of this wallet');
    expect(store.payments(vaultId)).toEqual([]);
  });

  it('the refresh sends the due coin whole to a fresh change address of the vault on the primary path; while unsigned, the warning says so', async () => {
    const p = await proposeRefresh(deps, vaultId, { feeRate: 2n });
    const tx = decodeTx(p.unsignedTx, params);
    expect(tx.inputs.map((i) => `${bytesToHex(i.prevTxid)}:${i.vout}`)).toEqual([coin]);
    const to = store.addresses(vaultId).find((a) => a.change && a.index === 0)!;
    expect(tx.outputs.map((o) => [bytesToHex(o.script), o.value])).toEqual([[bytesToHex(addressToScript(params, to.address)), 2n * COIN - p.minersFee]]);
    expect(p.minersFee % 2n).toBe(0n);
    expect(store.labels.all(vaultId).find((l) => l.type === 'payment' && l.ref === p.id)?.label).toBe('Refresh of 1 coin: back to the vault on the main path, restarting its recovery clock');
    // Nothing left to refresh: the due coin is in that payment, which the warning names instead.
    const pending = await vaultCoinsNow(deps, vaultId, Date.now());
    expect(pending.warning?.headline).toBe("1 coin's recovery path opens within 1 day: a payment awaiting signatures spends it");
    await expect(proposeRefresh(deps, vaultId, { feeRate: 2n })).rejects.toThrow(`the coins due are already spent by payment ${p.id}, awaiting signatures: sign and send it`);
    refreshId = p.id;
  });

  it("signed by two co-signers and confirmed, the coin's clock restarts from the refresh's block and the warning goes", async () => {
    const { payment } = await signAndSend(deps, store.payment(refreshId)!, [alice!, bob!]);
    expect(payment.state).toBe('broadcast');
    await desk.mine(1);
    expect((await refreshConfirmations(deps, refreshId)).state).toBe('confirmed');
    const height = await desk.node.rpc.call<number>('getblockcount', []);
    const now = await vaultCoinsNow(deps, vaultId, Date.now());
    expect(now.openings.map((o) => [`${o.txid}:${o.vout}`, o.opensAtBlock, o.blocksLeft])).toEqual([[`${payment.txid}:0`, height + PATH_BLOCKS, PATH_BLOCKS - 1]]);
    expect([now.due, now.warning]).toEqual([[], null]);
  });
});
