// Wallet birthdays over a real litecoind -regtest and the service: a new wallet's is the tip; an
// imported Specter file's is its blockheight (and the desk's own Specter export carries it back);
// a date becomes the first block whose median time past is at or after it, two hours earlier; the
// mistakes (a day that is no day, a future day) are refused at the date field. Rescans are
// recorded and audited. The first blocks are dated with setmocktime so dates mean something.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../shared/api/client.ts';
import { startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { startDevService, type DevService } from '../../../dev/dev-service.ts';
import { formatSpecter } from '../../../shared/files/specter.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { BIRTHDAY_WINDOW_SECONDS, MEDIAN_TIME_SPAN_BLOCKS, createWalletWithBirthday, dayStart, requestRescan, watchRegistration, type BirthdayDeps } from './birthday.ts';
import { exportWalletSetup, importWalletSetup } from './setup-files.ts';
import type { NewWallet } from './wallets.ts';

let node: RegtestNode;
let service: DevService;
let api: ApiClient;
let dir: string;
let store: CoordinatorStore;
let deps: BirthdayDeps;
/** 2026-03-01 and 2026-03-10, 00:00 UTC. */
const MARCH_1 = 1_772_323_200;
const MARCH_10 = 1_773_100_800;
let heightMarch10 = 0;

const cosigners = (names: string[]) => names.map((n) => testCosigner(n));
const wallet = (name: string, names: string[]): NewWallet => ({ coin: 'litecoin', network: 'regtest', name, m: 2, cosigners: cosigners(names), scriptType: 'p2wsh', sortKeys: true });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-birthday-'));
  node = await startLitecoind();
  // The maturing blocks on February 1, then one block a day from March 1: block times the dates
  // can be checked against (setmocktime; a block may not be older than its predecessors' median).
  await node.rpc.call('setmocktime', [MARCH_1 - 28 * 86_400]);
  await node.mine(101);
  for (let day = 0; day < 20; day++) {
    await node.rpc.call('setmocktime', [MARCH_1 + day * 86_400]);
    await node.mine(1);
    if (day === 9) heightMarch10 = 101 + day + 1;
  }
  service = await startDevService(node, dir, { pollIntervalMs: 100 });
  await service.synced();
  api = service.api;
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api, actor: 'treasurer' };
}, 120_000);

afterAll(async () => {
  store?.close();
  await service?.service.close();
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a wallet birthday', () => {
  it('is the tip for a new wallet, and what a watching service would be told', async () => {
    const tip = await node.rpc.call<number>('getblockcount');
    const w = await createWalletWithBirthday(deps, wallet('New', ['a1', 'b1', 'c1']), { source: 'tip' });
    expect(store.wallet(w.id)).toMatchObject({ birthdayHeight: tip, birthdaySource: 'tip' });
    const reg = watchRegistration(store.wallet(w.id)!, store.cosigners(w.id), 20);
    expect(reg).toMatchObject({ birthday_height: tip, gap_limit: 20 });
    expect(reg.descriptors[0]).toMatch(/^wsh\(sortedmulti\(2,\[[0-9a-f]{8}(\/\d+')+\]tpub\w+\/<0;1>\/\*,.*\)\)#[a-z0-9]{8}$/);
    expect(store.auditLog().find((e) => e.action === 'wallet.birthday')?.detail).toBe(`"New" is read from block ${tip}, the tip when it was made`);
  });

  it("is before the first block of a date: median time past two hours earlier, 10 blocks back", async () => {
    const w = await createWalletWithBirthday(deps, wallet('Dated', ['a2', 'b2', 'c2']), { source: 'date', date: '2026-03-10' });
    const answer = await api.heightAt('litecoin', MARCH_10 - BIRTHDAY_WINDOW_SECONDS);
    // With a block a day, median time past lags 5 days: the answer alone is after March 10's block.
    expect(answer.height).toBeGreaterThan(heightMarch10);
    const birthday = store.wallet(w.id)!.birthdayHeight!;
    expect(store.wallet(w.id)).toMatchObject({ birthdayHeight: answer.height - MEDIAN_TIME_SPAN_BLOCKS, birthdaySource: 'date' });
    // Never after the block dated that day, and not far before it.
    expect(birthday).toBeLessThanOrEqual(heightMarch10);
    expect(birthday).toBeGreaterThan(heightMarch10 - 11);
  });

  it('refuses a day that is no day and a day to come, at the date field, storing nothing', async () => {
    const before = store.wallets().length;
    await expect(createWalletWithBirthday(deps, wallet('Bad', ['a3', 'b3', 'c3']), { source: 'date', date: '2026-02-30' })).rejects.toMatchObject({ subject: { field: 'birthday_date' }, message: 'a date looks like 2026-01-31' });
    await expect(createWalletWithBirthday(deps, wallet('Bad', ['a3', 'b3', 'c3']), { source: 'date', date: '2999-01-01' })).rejects.toMatchObject({ subject: { field: 'birthday_date' }, message: expect.stringMatching(/2999-01-01 is in the future/) });
    expect(store.wallets()).toHaveLength(before);
    expect(dayStart('2026-03-10')).toBe(MARCH_10);
  });

  it("comes from a Specter file's blockheight, and the desk's Specter export carries it", async () => {
    const keys = cosigners(['a4', 'b4', 'c4']).map((c) => ({ name: c.name, xpub: c.xpub, fingerprint: c.fingerprint ?? '00000000', derivationPath: c.derivationPath ?? 'm' }));
    const text = formatSpecter('Imported', 2, keys, { scriptType: 'p2wsh', sortKeys: true }, 123);
    const w = await importWalletSetup(deps, [{ name: 'imported.json', text }], { coin: 'litecoin', network: 'regtest' });
    expect(store.wallet(w.id)).toMatchObject({ birthdayHeight: 123, birthdaySource: 'file' });
    expect(JSON.parse(exportWalletSetup(deps, w.id, 'specter').text)).toMatchObject({ blockheight: 123 });
  });

  it('rescans are recorded and audited, from a date or the beginning', async () => {
    const w = store.wallets()[0]!;
    const r = await requestRescan(deps, w, { source: 'genesis' });
    expect(r).toMatchObject({ walletId: w.id, fromHeight: 0, requestedBy: 'treasurer' });
    await requestRescan(deps, w, { source: 'date', date: '2026-03-01' });
    expect(store.rescans(w.id).map((x) => x.fromHeight)).toEqual([Math.max(0, (await api.heightAt('litecoin', MARCH_1 - BIRTHDAY_WINDOW_SECONDS)).height - MEDIAN_TIME_SPAN_BLOCKS), 0]);
    expect(store.auditLog().filter((e) => e.action === 'wallet.rescan_requested').map((e) => e.detail)).toEqual([
      'rescan of "New" from the beginning of the chain',
      expect.stringMatching(/^rescan of "New" from block \d+, before the first block of 2026-03-01 \(UTC\)$/),
    ]);
  });
});
