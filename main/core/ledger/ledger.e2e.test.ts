// The Ledger screens in Debian's Chromium (web mode), the desk's bridge wired to a replayed device:
// "Read from Ledger" fills a co-signer row of New wallet; "Sign on Ledger" on a locked device says
// so, and unlocked registers the wallet on first use and stores its verified signature (1 of 2). Screenshots go to e2e/artifacts/.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../shared/api/client.ts';
import { concatBytes, signDer } from '../../../shared/coins/index.ts';
import { createHandlers } from '../../bridge/handlers.ts';
import { startWebServer, type WebServer } from '../../web/server.ts';
import { ServiceConnection } from '../connection.ts';
import { MemorySecretStore } from '../secrets.ts';
import { HARDENED } from './paths.ts';
import { appAndVersion, extendedPubkey, masterFingerprint, registerWallet, replay, Session, signPsbt, u8 } from './testing/apdu.ts';
import { hmacOf, policyOf, readsInput, signPsbtCommand } from './testing/bitcoin-expect.ts';
import { disposeLedgerFixtures, ledgerFixture, type LedgerFixture } from './testing/fixtures.ts';
import type { LedgerConnector } from './transport.ts';

const CHROMIUM = '/usr/bin/chromium';
const root = join(import.meta.dirname, '../../..');
const artifacts = join(root, 'e2e/artifacts');

let f: LedgerFixture;
let web: WebServer;
let context: BrowserContext;
let page: Page;
let tmp: string;
/** The device the bridge reaches: each test scripts its own exchanges. */
let device: LedgerConnector;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's package (apt-get install chromium); the e2e test never downloads a browser`);
  mkdirSync(artifacts, { recursive: true });
  tmp = mkdtempSync(join(tmpdir(), 'countersign-ledger-ui-'));
  const rendererDir = join(tmp, 'renderer');
  await build({ configFile: join(root, 'renderer/vite.config.ts'), logLevel: 'warn', build: { outDir: rendererDir, emptyOutDir: true } });
  f = ledgerFixture('bitcoin', 'testnet');
  const connection = new ServiceConnection({
    store: f.store,
    secrets: new MemorySecretStore(),
    embeddedUrl: 'http://127.0.0.1:9',
    actor: 'treasurer',
    client: () => ({ rawTransaction: f.deps.api.rawTransaction, status: () => Promise.resolve({ coins: [] }) }) as unknown as ApiClient,
  });
  const ledger: LedgerConnector = { list: () => device.list(), open: (id) => device.open(id) };
  web = await startWebServer({ handlers: createHandlers({ store: f.store, connection, actor: 'treasurer', ledger }), rendererDir, port: 0 });
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  await page.goto(web.openUrl);
}, 300_000);

afterAll(async () => {
  await context?.close();
  await web?.close();
  disposeLedgerFixtures();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
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
    await page.screenshot({ path: join(artifacts, 'ledger-1-new-wallet-read.png'), fullPage: true });
  });

  it('Payment: "Sign on Ledger" on a locked device says so; unlocked, the verified signature counts 1 of 2', async () => {
    device = replay(new Session().x('b001000000', '5515')).connector;
    await page.goto(`${web.url}/#/payments/${f.paymentId}`);
    await page.getByTestId('sign-ledger').click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/Ledger is locked.*PIN/);
    await page.screenshot({ path: join(artifacts, 'ledger-2-payment-locked.png'), fullPage: true });

    // First use of this Ledger for the wallet: it registers the wallet (the person approves each key), then signs.
    const s = masterFingerprint(appAndVersion(new Session(), 'Bitcoin Test', '2.1.3'), f.cosigners[0]!.fingerprint);
    registerWallet(s, policyOf(f), hmacOf(policyOf(f)));
    const key = f.device.derivePath("m/45'/0'/0/0");
    signPsbt(s, signPsbtCommand(f, policyOf(f)), policyOf(f), [{ input: 0, pubkey: key.publicKey, signature: concatBytes(signDer(f.hash, key.privateKey!), u8(1)) }], readsInput(f));
    device = replay(s).connector;
    await page.getByTestId('sign-ledger').click();
    await expect.poll(() => page.getByTestId('import-results').textContent()).toMatch(/1 signature\(s\) by alice stored/);
    await expect.poll(() => page.getByTestId('payment-state').textContent()).toMatch(/1 of 2 so far/);
    await page.screenshot({ path: join(artifacts, 'ledger-3-payment-signed.png'), fullPage: true });
    expect(f.store.signatures(f.paymentId)).toHaveLength(1);
    expect(f.store.ledger.list(f.wallet.id)).toHaveLength(1);
  });
});
