// Issue 31, finding 4: the desk's address walk and a watching service agree on the window of
// addresses watched. The service watches the gap limit past the highest index used or shown
// (watch.ts windowEnd); the desk walks to the same gap past the last used one (BIP44's gap, BDK's
// stop_gap) and, where it must ask further (addresses it showed before), asks the service to
// extend its window first and waits for the scan. Before, the desk asked aligned batches of 20
// and the service refused the whole batch with a 404 as soon as one address was past its window:
// after one deposit to receive 0 the walk never finished, and after one payment no second payment
// could be proposed. litecoind -regtest -blockfilterindex=1, the service in watch mode.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../shared/api/client.ts';
import type { WatchStatus } from '../../../shared/api/schemas.ts';
import { startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { startDevService, type DevService } from '../../../dev/dev-service.ts';
import { startSlowRpc, type SlowRpc } from '../../../dev/chains/slow-rpc.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { signAndSend } from '../../../dev/desk-testing/regtest.ts';
import { addressToScript, chainParams } from '../../../shared/coins/index.ts';
import { AddressScans } from './address-scan.ts';
import { proposePayment } from '../payments/propose.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { createWalletWithBirthday, watchRegistration, WATCH_GAP_LIMIT, type BirthdayDeps } from './birthday.ts';
import { walletFunds } from './funds.ts';
import { createWallet, ensureAddresses, nextReceiveAddress, type NewWallet } from './wallets.ts';
import { walletAddress } from './script.ts';

const params = chainParams('litecoin', 'regtest');
let node: RegtestNode;
let proxy: SlowRpc;
let service: DevService;
let dir: string;
let store: CoordinatorStore;
let deps: BirthdayDeps & { api: ApiClient };

const signers = ['wa', 'wb', 'wc'];
const wallet = (name: string, names: string[] = signers): NewWallet => ({ coin: 'litecoin', network: 'regtest', name, m: 2, cosigners: names.map((n) => testCosigner(n)), scriptType: 'p2wsh', sortKeys: true });

/** Asks until the service has scanned the wallet to the node's tip and checked it against the node's UTXO set. */
async function scanned(walletId: string): Promise<WatchStatus> {
  for (;;) {
    const tip = await node.rpc.call<number>('getblockcount');
    const s = await service.api.watchStatus('litecoin', walletId);
    if (s.state === 'error') throw new Error(`the service's scan failed: ${s.error ?? ''}`);
    if (s.state === 'ready' && s.scanned_height === tip) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Pays the wallet's receive address `index` (derived here, as a payer given it would) and mines it. */
async function deposit(walletId: string, index: number, amount: bigint): Promise<void> {
  const w = store.wallet(walletId)!;
  const address = walletAddress(params, w, store.cosigners(walletId).map((c) => c.xpub), false, index).address;
  await node.fundScript(addressToScript(params, address), amount);
  await node.mine(1);
  await scanned(walletId);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-watch-walk-'));
  node = await startLitecoind({ extraArgs: ['-blockfilterindex=1'] });
  await node.mine(150);
  // Passed through untouched: it counts the blocks the service fetches.
  proxy = await startSlowRpc(node.rpcConfig.url, 0);
  service = await startDevService(node, dir, { pollIntervalMs: 100, index: 'watch', nodeRpcUrl: proxy.url });
  while ((await service.api.status()).coins.find((c) => c.coin === 'litecoin')?.tip_height !== 150) await new Promise((r) => setTimeout(r, 100));
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api: service.api, actor: 'treasurer' };
}, 120_000);

afterAll(async () => {
  store?.close();
  await service?.service.close();
  await proxy?.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the desk's address walk on a watching service", () => {
  it('after a deposit to receive 0: the walk finishes, the next receive address is given, and a second payment proposes', async () => {
    const w = await createWalletWithBirthday(deps, wallet('Day one'), { source: 'tip' });
    expect((await nextReceiveAddress(deps, w.id)).index).toBe(0);
    await deposit(w.id, 0, 100_000_000n);
    expect((await walletFunds(deps, w.id)).balance).toBe(100_000_000n);
    const scans = new AddressScans(deps);
    expect(await scans.finished(w.id)).toBe(true);
    expect(scans.failure(w.id)).toBeUndefined();
    expect((await nextReceiveAddress(deps, w.id)).index).toBe(1);

    const first = await proposePayment(deps, w.id, { to: await node.newAddress('bech32'), amount: 10_000_000n, minersFee: 0n, feeRate: 2n });
    await signAndSend(deps, first, [testCosigner('wa'), testCosigner('wb')]);
    await node.mine(1);
    await scanned(w.id);
    const second = await proposePayment(deps, w.id, { to: await node.newAddress('bech32'), amount: 10_000_000n, minersFee: 0n, feeRate: 2n });
    expect(second.state).toBe('awaiting_signatures');
    // Its change goes to change address 1: address 0 holds the first payment's change.
    expect(store.addresses(w.id).filter((a) => a.change).map((a) => a.index)).toEqual([0, 1]);
  });

  it('deposits at the edge of the window (receive 19, then 20): each time the next address is the one after', async () => {
    const w = await createWalletWithBirthday(deps, wallet('Edge', ['we', 'wf', 'wg']), { source: 'tip' });
    await deposit(w.id, 19, 10_000_000n);
    expect((await nextReceiveAddress(deps, w.id)).index).toBe(20);
    await deposit(w.id, 20, 20_000_000n);
    expect((await nextReceiveAddress(deps, w.id)).index).toBe(21);
    expect((await service.api.watchStatus('litecoin', w.id)).watched?.receive).toBe(21 + WATCH_GAP_LIMIT);
    expect(await new AddressScans(deps).finished(w.id)).toBe(true);
    expect((await walletFunds(deps, w.id)).balance).toBe(30_000_000n);
  });

  it('addresses the desk showed past the service\'s window: it asks the service to watch them, waits for the scan, and finds the deposit there', async () => {
    // A desk that walked this wallet to receive 29 before (stored), on a service registered without
    // them (a registration made before the desk told its window): the service watches 0 to 19.
    const w = await createWallet(deps, wallet('Shown before', ['wh', 'wi', 'wj']));
    await ensureAddresses(deps, w.id, false, 1, 30);
    const { shown: _, ...withoutShown } = watchRegistration(w, store.cosigners(w.id), WATCH_GAP_LIMIT);
    await service.api.watchRegister('litecoin', w.id, withoutShown);
    await deposit(w.id, 28, 50_000_000n);
    expect((await service.api.watchStatus('litecoin', w.id)).watched?.receive).toBe(WATCH_GAP_LIMIT);
    expect((await nextReceiveAddress(deps, w.id)).index).toBe(29);
    expect((await service.api.watchStatus('litecoin', w.id)).watched?.receive).toBe(29 + WATCH_GAP_LIMIT);
    expect((await walletFunds(deps, w.id)).balance).toBe(50_000_000n);
  });

  it('watching further reads no block again when the new addresses were never paid: only the filters are checked', async () => {
    const w = await createWalletWithBirthday(deps, wallet('Frugal', ['wk', 'wl', 'wm']), { source: 'tip' });
    await node.mine(5);
    await scanned(w.id);
    const before = proxy.blocksFetched;
    await deposit(w.id, 3, 10_000_000n);
    // The deposit's block, once: receive 20 to 23 are newly watched, and no block's filter names them.
    await expect.poll(async () => (await service.api.watchStatus('litecoin', w.id)).watched?.receive).toBe(4 + WATCH_GAP_LIMIT);
    expect(proxy.blocksFetched - before).toBe(1);
    expect((await nextReceiveAddress(deps, w.id)).index).toBe(4);
    // Paid further out in a later block, within the window: found, its block read once more.
    await deposit(w.id, 23, 5_000_000n);
    // The window moves once the block is in the index (the step after it, as the index follows the tip).
    await expect.poll(async () => (await service.api.watchStatus('litecoin', w.id)).watched?.receive).toBe(24 + WATCH_GAP_LIMIT);
    expect((await nextReceiveAddress(deps, w.id)).index).toBe(24);
    expect((await walletFunds(deps, w.id)).balance).toBe(15_000_000n);
  });
});
