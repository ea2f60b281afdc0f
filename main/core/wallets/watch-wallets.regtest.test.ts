// A desk on a watching service (issue 25): litecoind -regtest with block filters, served in watch
// mode as a node connected from Settings is. A new wallet (birthday at the tip) is registered,
// funds sent to it are found with the right balance, "rescan from…" reaches the service, and after
// a restart of the service only the wallets it does not know are registered again (a PUT would
// scan a known wallet again from its birthday).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../shared/api/client.ts';
import type { WatchStatus } from '../../../shared/api/schemas.ts';
import { startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { startDevService, type DevService } from '../../../dev/dev-service.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { addressToScript, chainParams } from '../../../shared/coins/index.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { createWalletWithBirthday, registerUnwatchedWallets, requestRescan, type BirthdayDeps, type WatchApi } from './birthday.ts';
import { walletFunds } from './funds.ts';
import { importWalletSetup } from './setup-files.ts';
import { formatMultisigDescriptor } from '../../../shared/files/descriptor.ts';
import { formatSpecter } from '../../../shared/files/specter.ts';
import { createWallet, nextReceiveAddress, type NewWallet } from './wallets.ts';

let node: RegtestNode;
let service: DevService;
let dir: string;
let store: CoordinatorStore;
let deps: BirthdayDeps & { api: ApiClient };

const wallet = (name: string, names: string[]): NewWallet => ({ coin: 'litecoin', network: 'regtest', name, m: 2, cosigners: names.map((n) => testCosigner(n)), scriptType: 'p2wsh', sortKeys: true });
const startService = () => startDevService(node, dir, { pollIntervalMs: 100, index: 'watch' });

/** Asks until the service has scanned the wallet to the node's tip (the service's own end state). */
async function scanned(api: ApiClient, walletId: string, check: (s: WatchStatus) => boolean = () => true): Promise<WatchStatus> {
  for (let i = 0; i < 600; i++) {
    const tip = await node.rpc.call<number>('getblockcount');
    const s = await api.watchStatus('litecoin', walletId);
    if (s.state === 'error') throw new Error(`the service's scan failed: ${s.error ?? ''}`);
    if (s.state === 'ready' && s.scanned_height === tip && check(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service did not scan wallet ${walletId} to the tip in 60 s`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-watch-desk-'));
  node = await startLitecoind({ extraArgs: ['-blockfilterindex=1'] });
  await node.mine(150);
  service = await startService();
  // The tip a new wallet's birthday is read from, once the service has asked the node.
  while ((await service.api.status()).coins.find((c) => c.coin === 'litecoin')?.tip_height !== 150) await new Promise((r) => setTimeout(r, 100));
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api: service.api, actor: 'treasurer' };
}, 120_000);

afterAll(async () => {
  store?.close();
  await service?.service.close();
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a desk on a watching service', () => {
  let walletId = '';

  it('registers a new wallet from the tip, and finds the funds sent to it', async () => {
    const tip = await node.rpc.call<number>('getblockcount');
    const w = await createWalletWithBirthday(deps, wallet('Watched', ['wa', 'wb', 'wc']), { source: 'tip' });
    walletId = w.id;
    expect(await service.api.watchStatus('litecoin', w.id)).toMatchObject({ birthday_height: tip, filters: true, pruned: false });
    const { address } = await nextReceiveAddress(deps, w.id);
    await node.fundScript(addressToScript(chainParams('litecoin', 'regtest'), address), 123_456_789n);
    await node.mine(1);
    const s = await scanned(service.api, w.id);
    // Only blocks whose filter matched were fetched: the funding block, not the 150 before the birthday.
    expect(s.blocks_matched).toBeGreaterThanOrEqual(1);
    expect(s.blocks_fetched).toBeLessThan(10);
    expect((await walletFunds(deps, w.id)).balance).toBe(123_456_789n);
  });

  it("asks the service to rescan, and refuses an address it does not watch in words", async () => {
    const w = store.wallet(walletId)!;
    const before = await scanned(service.api, w.id);
    const r = await requestRescan(deps, w, { source: 'genesis' });
    expect(r.fromHeight).toBe(0);
    // A rescan from before the birthday moves the birthday there: every block from genesis is looked
    // at once more (the counts are of the scan since it started over, so they end at the chain's length).
    const tip = await node.rpc.call<number>('getblockcount');
    expect(before.blocks_checked).toBeLessThan(tip);
    const after = await scanned(service.api, w.id, (s) => s.blocks_checked === tip + 1);
    expect(after.birthday_height).toBe(0);
    expect((await walletFunds(deps, w.id)).balance).toBe(123_456_789n);
    const stranger = await node.newAddress('bech32');
    // Never a zero balance for an address no wallet registered: a 404 that says why.
    await expect(service.api.balance('litecoin', stranger)).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/belongs to no wallet this service watches/) });
  });

  it("registers an imported vault as a new wallet is: from its file's birthday, else from the beginning", async () => {
    const keys = (names: string[]) => names.map((n) => testCosigner(n)).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint ?? '00000000', derivationPath: c.derivationPath ?? 'm' }));
    const specter = formatSpecter('Imported', 2, keys(['ia', 'ib', 'ic']), { scriptType: 'p2wsh', sortKeys: true }, 140);
    const fromFile = await importWalletSetup(deps, [{ name: 'imported.json', text: specter }], { coin: 'litecoin', network: 'regtest' });
    expect(await service.api.watchStatus('litecoin', fromFile.id)).toMatchObject({ birthday_height: 140 });
    const descriptor = formatMultisigDescriptor(2, keys(['id', 'ie', 'if']), '/<0;1>/*', true, { scriptType: 'p2wsh', sortKeys: true });
    const noBirthday = await importWalletSetup(deps, [{ name: 'vault.txt', text: `${descriptor}\n` }], { coin: 'litecoin', network: 'regtest', name: 'Old vault' });
    expect(await service.api.watchStatus('litecoin', noBirthday.id)).toMatchObject({ birthday_height: 0 });
    expect(store.auditLog().filter((e) => e.action === 'wallet.birthday' && e.walletId === noBirthday.id).map((e) => e.detail)).toEqual(['"Old vault" is read from the beginning of the chain']);
    await scanned(service.api, fromFile.id);
    await scanned(service.api, noBirthday.id);
  });

  it('after a restart, registers only the wallets the service does not know', async () => {
    // A wallet made while the service was away (no registration), beside the registered one.
    const missed = await createWallet({ store, api: service.api, actor: 'treasurer' }, wallet('Missed', ['wd', 'we', 'wf']));
    await service.service.close();
    service = await startService();
    deps = { ...deps, api: service.api };
    const puts: string[] = [];
    const api: WatchApi = {
      watchStatus: (coin, id) => service.api.watchStatus(coin, id),
      watchRescan: (coin, id, from) => service.api.watchRescan(coin, id, from),
      watchRegister: (coin, id, body) => {
        puts.push(id);
        return service.api.watchRegister(coin, id, body);
      },
    };
    expect(await registerUnwatchedWallets({ store, api })).toEqual({ registered: [missed.id], problems: [] });
    expect(puts).toEqual([missed.id]);
    await scanned(service.api, missed.id);
    expect((await walletFunds(deps, walletId)).balance).toBe(123_456_789n);
    // Run again: everything is known, nothing is sent.
    expect(await registerUnwatchedWallets({ store, api })).toEqual({ registered: [], problems: [] });
    expect(puts).toEqual([missed.id]);
  });
});
