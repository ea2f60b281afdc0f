// The Ledger screens in Debian's Chromium (web mode), the desk's bridge wired to a replayed device:
// "Read from Ledger" fills a co-signer row of New wallet; "Sign on Ledger" on a locked device says
// so, and unlocked registers the wallet on first use and stores its verified signature (1 of 2);
// "Check on Ledger" has the device show the receive address, and refuses one that differs.
// Screenshots go to e2e/artifacts/ledger-*.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientError, type ApiClient } from '../shared/api/client.ts';
import { bytesToHex, concatBytes, signDer } from '../shared/coins/index.ts';
import { deriveAddress } from '../shared/coins/multisig-address.ts';
import { createHandlers } from '../main/bridge/handlers.ts';
import { startWebServer, type WebServer } from '../main/web/server.ts';
import { ServiceConnection } from '../main/core/chains/connection.ts';
import { MemorySecretStore } from '../main/core/secrets.ts';
import { HARDENED } from '../main/core/ledger/paths.ts';
import { appAndVersion, extendedPubkey, masterFingerprint, registerWallet, replay, Session, signPsbt, u8, walletAddress } from '../dev/ledger-testing/apdu.ts';
import { hmacOf, policyOf, readsInput, signPsbtCommand } from '../dev/ledger-testing/bitcoin-expect.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from '../dev/ledger-testing/fixtures.ts';
import type { LedgerConnector } from '../main/core/ledger/transport.ts';
import { buildRenderer, openBrowser, type BrowserSession } from './browser.ts';

let f: LedgerFixture;
let web: WebServer;
let browser: BrowserSession;
let page: Page;
/** The device the bridge reaches: each test scripts its own exchanges. */
let device: LedgerConnector;
const shot = (name: string) => browser.shot(name);

beforeAll(async () => {
  const built = await buildRenderer();
  f = ledgerFixture('bitcoin', 'testnet');
  const xpubs = f.cosigners.map((c) => c.xpub);
  // No service here: the few answers the wallet screen needs, derived as a service would (the
  // Ledger is what is tested).
  const service = {
    rawTransaction: f.deps.api.rawTransaction,
    // The coin this wallet is on, served and current (the desk refuses a wallet on a coin its service does not serve).
    status: () => Promise.resolve({ coins: [{ coin: 'bitcoin', network: 'testnet', backend: 'none', tip_height: 100, indexed_height: 100, lag: 0, mempool_txs: 0, error: null }] }),
    history: () => Promise.resolve({ total_txs: 0, txs: [] }),
    balances: () => Promise.resolve({ totals: { balance: 0n, unconfirmed_balance: 0n, human_balance: 0, human_unconfirmed_balance: 0, usd_balance: 0 }, addresses: [] }),
    utxos: () => Promise.resolve({ utxos: [] }),
    // A full-index service: it answers any address, and has no watch scan to wait for (409, as the
    // service's watch routes answer). The desk's address walk asks this first (wallets.ts walkChain).
    watchStatus: () => Promise.reject(new ApiClientError(409, 'bitcoin runs the full address index here, which answers any address: there is nothing to register')),
    toNetworkAddresses: (keys: { master_keys: { path: string }[] }) => {
      const [chain, index] = keys.master_keys[0]!.path.replace(/^m\//, '').split('/').map(Number);
      const a = deriveAddress(f.params, 2, xpubs, chain === 1, index!);
      return Promise.resolve([{ addresses: [{ coin: 'bitcoin', network_address: a.address }], public_keys: a.publicKeys.map(bytesToHex) }]);
    },
  };
  const connection = new ServiceConnection({
    store: f.store,
    secrets: new MemorySecretStore(),
    embeddedUrl: 'http://127.0.0.1:9',
    actor: 'treasurer',
    client: () => service as unknown as ApiClient,
  });
  const ledger: LedgerConnector = { list: () => device.list(), open: (id) => device.open(id) };
  web = await startWebServer({ handlers: createHandlers({ store: f.store, connection, actor: 'treasurer', ledger }), rendererDir: built.rendererDir, port: 0 });
  browser = await openBrowser(built, 'ledger-');
  page = browser.page;
  await page.goto(web.openUrl);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  disposeLedgerFixtures();
});

describe('Ledger in the desk (Chromium, web mode)', () => {
  it('New wallet: "Read from Ledger" fills the xpub, fingerprint and path of a co-signer', async () => {
    const alice = f.cosigners[0]!;
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), alice.fingerprint);
    extendedPubkey(s, [45 + HARDENED, HARDENED], true, alice.xpub);
    device = replay(s).connector;
    await page.goto(`${web.url}/#/wallets/new`);
    await page.getByLabel('Coin').selectOption('bitcoin');
    await page.getByLabel('Network').selectOption('testnet');
    await page.getByTestId('cosigner-path-0').fill("m/45'/0'");
    await page.getByTestId('cosigner-ledger-0').click();
    await expect.poll(() => page.getByTestId('cosigner-xpub-0').inputValue()).toBe(alice.xpub);
    await shot('1-new-wallet-read');
  });

  it('Payment: "Sign on Ledger" on a locked device says so; unlocked, the verified signature counts 1 of 2', async () => {
    device = replay(new Session().x('b001000000', '5515')).connector;
    await page.goto(`${web.url}/#/payments/${f.paymentId}`);
    await page.getByTestId('sign-ledger').click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/Ledger is locked.*PIN/);
    await shot('2-payment-locked');

    // First use of this Ledger for the wallet: it registers the wallet (the person approves each key), then signs.
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    registerWallet(s, policyOf(f), hmacOf(policyOf(f)));
    const key = f.device.derivePath("m/45'/0'/0/0");
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), [{ input: 0, pubkey: key.publicKey, signature: concatBytes(signDer(f.hash, key.privateKey!), u8(1)) }], readsInput(f));
    device = replay(s).connector;
    await page.getByTestId('sign-ledger').click();
    await expect.poll(() => page.getByTestId('import-results').textContent()).toMatch(/1 signature by alice stored/);
    await expect.poll(() => page.getByTestId('payment-state').textContent()).toMatch(/1 of 2 signatures so far/);
    await shot('3-payment-signed');
    expect(f.store.signatures(f.paymentId)).toHaveLength(1);
    expect(f.store.ledger.list(f.wallet.id)).toHaveLength(1);
  });

  it('Wallet: "Check on Ledger" has the registered device show the receive address, and a different one is refused', async () => {
    const receive = deriveAddress(f.params, 2, f.cosigners.map((c) => c.xpub), false, 0).address;
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    walletAddress(s, policyOf(f), hmacOf(policyOf(f)), 0, 0, receive);
    device = replay(s).connector;
    await page.goto(`${web.url}/#/wallets/${f.wallet.id}`);
    await expect.poll(() => page.getByTestId('receive-address').textContent()).toBe(receive);
    await page.getByTestId('check-ledger').click();
    await expect.poll(() => page.getByTestId('ledger-address-ok').textContent()).toBe(`alice's Ledger derived ${receive} itself and showed it on its screen: it is this wallet's address.`);
    await shot('4-wallet-address-checked');

    const lying = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    walletAddress(lying, policyOf(f), hmacOf(policyOf(f)), 0, 0, '2N1LGaGg836mqSQqiuUBLfcyGBhyZbremDX');
    device = replay(lying).connector;
    await page.getByTestId('check-ledger').click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/do not use this address/);
    await shot('5-wallet-address-refused');
  });
});
