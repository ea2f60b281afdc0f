// On litecoind -regtest: a wallet whose receive addresses 0..44 were paid elsewhere (another desk)
// is known here by its first addresses only, so its balance is partial until the background walk
// finds the rest; the walk's progress says how far it is, and once done the balance is whole. And a
// wallet on a coin the service does not serve is refused at creation, in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressScans, scanProgress } from './address-scan.ts';
import { apiWith, startWalletDesk, type WalletDesk } from '../../../dev/desk-testing/regtest.ts';
import { testCosigner } from '../../../dev/desk-testing/keys.ts';
import { walletFunds } from './funds.ts';
import { createWallet, GAP_LIMIT, requireWallet, walletParams } from './wallets.ts';
import { walletAddress } from './script.ts';
import { chainParams } from '../../../shared/coins/index.ts';
import { CoordinatorError } from '../errors.ts';

const USED = 45;
let wd: WalletDesk;

beforeAll(async () => {
  wd = await startWalletDesk('Scanned treasury');
  // Paid from outside (derived here, not stored: this desk knows only the first address of each chain,
  // as one that imported the wallet from a set-up file would): addresses 0..44 get 0.1 LTC each.
  const w = requireWallet(wd.deps, wd.walletId);
  const xpubs = wd.store.cosigners(w.id).map((c) => c.xpub);
  const paid = Array.from({ length: USED }, (_, i) => walletAddress(walletParams(w), w, xpubs, false, i).address);
  await wd.desk.node.walletRpc.call('sendmany', ['', Object.fromEntries(paid.map((a) => [a, 0.1]))]);
  await wd.desk.mine(1);
  expect(wd.store.addresses(w.id)).toHaveLength(2);
}, 120_000);
afterAll(() => wd?.dispose());

describe('the address walk', () => {
  it('counts what it has checked against what it must still check; pure', () => {
    expect(scanProgress({ receive: { checked: 0, done: false, lastUsed: -1 }, change: { checked: 0, done: false, lastUsed: -1 } })).toEqual({ checked: 0, of: 2 * GAP_LIMIT });
    expect(scanProgress({ receive: { checked: 60, done: false, lastUsed: 44 }, change: { checked: 0, done: false, lastUsed: -1 } })).toEqual({ checked: 60, of: 60 + 2 * GAP_LIMIT });
    expect(scanProgress({ receive: { checked: 80, done: true, lastUsed: 44 }, change: { checked: 20, done: true, lastUsed: -1 } })).toEqual({ checked: 100, of: 100 });
  });

  it('reports progress while it walks, then nothing, and the balance is whole once it is done', async () => {
    const scans = new AddressScans(wd.deps);
    // Started by the first question: nothing checked yet, at least one gap-limit batch per chain to go.
    expect(scans.progress(wd.walletId)).toEqual({ checked: 0, of: 2 * GAP_LIMIT });
    expect(await scans.finished(wd.walletId)).toBe(true);
    expect(scans.progress(wd.walletId)).toBeNull();
    // Receive 0..64 and change 0..19 were asked about (the gap limit past the last used one); the
    // used ones and the next receive address are stored, each checked with the service.
    const known = wd.store.addresses(wd.walletId);
    expect(known.filter((a) => !a.change).map((a) => a.index)).toEqual(Array.from({ length: USED + 1 }, (_, i) => i));
    expect(known.filter((a) => a.change).map((a) => a.index)).toEqual([0]);
    expect((await walletFunds({ store: wd.store, api: wd.desk.api }, wd.walletId)).balance).toBe(BigInt(USED) * 10_000_000n);
  }, 120_000);

  it('walks again on the next question when the service failed', async () => {
    const failing = { ...wd.deps, api: apiWith(wd.deps.api, { history: () => Promise.reject(new Error('the service did not answer')) }) };
    const reports: unknown[] = [];
    const scans = new AddressScans(failing, (err) => reports.push(err));
    expect(await scans.finished(wd.walletId)).toBe(false);
    expect(reports.map(String)).toEqual(['Error: the service did not answer']);
    expect(scans.progress(wd.walletId)).toEqual({ checked: 0, of: 2 * GAP_LIMIT });
    expect(await scans.finished(wd.walletId)).toBe(false);
  }, 60_000);
});

describe('a wallet on a coin the service does not serve', () => {
  it('is refused at creation, saying what the service serves and what to do', async () => {
    const cosigners = ['dave', 'erin'].map((n) => testCosigner(n, chainParams('bitcoin', 'mainnet')));
    const attempt = createWallet(wd.deps, { coin: 'bitcoin', network: 'mainnet', name: 'Main street', m: 1, cosigners });
    await expect(attempt).rejects.toThrow(
      'refusing the wallet: the service this desk uses serves litecoin regtest only, not bitcoin mainnet: a bitcoin mainnet wallet there can show no balance and make no payment. Choose a coin and network it serves, or point the desk at a service that serves bitcoin mainnet (Settings).',
    );
    await attempt.catch((err: unknown) => {
      expect(err).toBeInstanceOf(CoordinatorError);
      expect(err).toMatchObject({ code: 'coin_not_served', subject: { field: 'coin' } });
    });
    // The same coin on another network is not served either.
    await expect(createWallet(wd.deps, { coin: 'litecoin', network: 'mainnet', name: 'Main LTC', m: 1, cosigners: [testCosigner('dave', chainParams('litecoin', 'mainnet'))] })).rejects.toThrow(/serves litecoin regtest only, not litecoin mainnet/);
    expect(wd.store.wallets().map((w) => w.name)).toEqual(['Scanned treasury']);
  });
});
