// What every browser test needs: the run's renderer build (one per vitest run, which every file
// reads and none writes: e2e/renderer-once.ts), Debian's Chromium with the flags this closed
// network wants, screenshots under e2e/artifacts/ and downloads saved to a folder. A missing
// Chromium fails the test, naming it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { expect, inject } from 'vitest';
import { startDevDesk, type DevDesk, type DevDeskOptions } from '../dev/dev-desk.ts';
import { signRequest } from '../main/core/software-signer.ts';
import { addressToScript, chainParams } from '../shared/coins/index.ts';

export const CHROMIUM = '/usr/bin/chromium';
const ROOT = join(import.meta.dirname, '..');
export const ARTIFACTS = join(import.meta.dirname, 'artifacts');
/** Chromium's flags for this closed network, for every browser a test starts. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface BrowserSession {
  page: Page;
  context: BrowserContext;
  /** The run's renderer build, to serve from the desk (shared by every file: never written to). */
  rendererDir: string;
  /** A folder of this session's own, removed at close: downloads and files to upload. */
  work: string;
  /** A full-page screenshot to e2e/artifacts/<prefix><name>.png. */
  shot(name: string): Promise<void>;
  /** Clicks, waits for the download it starts, saves it under `work` and returns its path. */
  download(click: () => Promise<void>, name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The run's renderer build (made by the first file that asks) and a fresh work folder for this
 * session; the browser starts with `openBrowser`.
 */
export async function buildRenderer(): Promise<{ rendererDir: string; work: string }> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's package (apt-get install chromium); the e2e tests never download a browser`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const runDir = inject('rendererRunDir');
  const rendererDir = join(runDir, 'renderer');
  if (!existsSync(join(rendererDir, 'index.html'))) {
    // Two files may build at once: each builds into a folder of its own and renames it into place;
    // the rename of the one that comes second fails (the folder is there and not empty) and it
    // uses the first one's, so no file ever serves a half-written build.
    const mine = mkdtempSync(join(runDir, 'build-'));
    await build({ configFile: join(ROOT, 'renderer/vite.config.ts'), logLevel: 'warn', build: { outDir: mine, emptyOutDir: true } });
    try {
      renameSync(mine, rendererDir);
    } catch (err) {
      if (!existsSync(join(rendererDir, 'index.html'))) throw err;
      rmSync(mine, { recursive: true, force: true });
    }
  }
  return { rendererDir, work: mkdtempSync(join(tmpdir(), 'countersign-e2e-')) };
}

export async function openBrowser(built: { rendererDir: string; work: string }, screenshotPrefix = ''): Promise<BrowserSession> {
  const context = await chromium.launchPersistentContext(join(built.work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  return {
    page,
    context,
    ...built,
    shot: async (name) => {
      await page.screenshot({ path: join(ARTIFACTS, `${screenshotPrefix}${name}.png`), fullPage: true });
    },
    download: async (click, name) => {
      const [d] = await Promise.all([page.waitForEvent('download'), click()]);
      const path = join(built.work, name);
      await d.saveAs(path);
      return path;
    },
    close: async () => {
      await context.close();
      rmSync(built.work, { recursive: true, force: true });
    },
  };
}

export interface DeskInBrowser {
  desk: DevDesk;
  browser: BrowserSession;
  page: Page;
  close(): Promise<void>;
}

/** The desk in web mode on the dev chains, and Chromium to drive it. */
export async function openDeskInBrowser(options: Omit<DevDeskOptions, 'rendererDir'> = {}, screenshotPrefix = ''): Promise<DeskInBrowser> {
  const built = await buildRenderer();
  const desk = await startDevDesk({ ...options, rendererDir: built.rendererDir });
  // The service's first catch-up done before the test acts (a test of a slow index watches it happen).
  if (!options.slowIndexer) {
    await desk.synced().catch(async (err: unknown) => {
      await desk.dispose();
      throw err;
    });
  }
  const browser = await openBrowser(built, screenshotPrefix);
  return {
    desk,
    browser,
    page: browser.page,
    close: async () => {
      await browser.close();
      await desk.dispose();
    },
  };
}

/**
 * On the open payment screen: export the signing request, each key signs it in software (as a
 * co-signer would), the signature files are imported on the screen, and it is submitted; the txid.
 */
export async function collectAndSubmit(browser: BrowserSession, tag: string, keys: readonly { xprv: string }[]): Promise<string> {
  const { page } = browser;
  const request = readFileSync(await browser.download(() => page.getByTestId('export-request').click(), `${tag}-request.json`), 'utf8');
  const signed = keys.map((key) => signRequest(request, key));
  const files = signed.map((s) => {
    const path = join(browser.work, `${tag}-${s.signer}.json`);
    writeFileSync(path, s.file);
    return path;
  });
  await page.getByTestId('import-files').setInputFiles(files);
  // Named by this round's files: the screen keeps the last import's results when it moves to another payment.
  await expect
    .poll(() => page.getByTestId('import-results').locator('li').allTextContents())
    .toEqual(signed.map((s) => expect.stringMatching(new RegExp(`^Imported ${tag}-${s.signer}\\.json: 1 signature by ${s.signer} imported`))));
  await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state')).toBe('ready');
  await page.getByTestId('submit').click();
  await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('broadcast');
  return (await page.getByTestId('txid').textContent())!.trim();
}

/**
 * On the open wallet screen: the node pays its receive address `units` of litecoin (regtest) in a
 * mined block, and the screen shows the balance `shown` ("2.00 LTC (regtest)"); the address paid.
 */
export async function fundShownWallet(page: Page, desk: DevDesk, units: bigint, shown: string): Promise<string> {
  const address = (await page.getByTestId('receive-address').textContent())!.trim();
  await desk.node.fundScript(addressToScript(chainParams('litecoin', 'regtest'), address), units);
  await desk.node.mine(1);
  await desk.synced();
  await expect.poll(() => page.getByTestId('balance').first().textContent(), { timeout: 30_000 }).toBe(shown);
  return address;
}

/**
 * From the open wallet screen: a payment of `amount` (as typed) to a new address of the node, at
 * the default fee rate or a fixed `fee`, proposed until it awaits signatures on its own screen.
 */
export async function proposeOnScreen(page: Page, desk: DevDesk, o: { amount: string; fee?: string }): Promise<void> {
  await page.getByTestId('propose-link').click();
  await page.getByTestId('pay-to').fill(await desk.node.newAddress('legacy'));
  await page.getByTestId('pay-amount').fill(o.amount);
  if (o.fee !== undefined) {
    await page.getByTestId('fee-mode-fixed').check();
    await page.getByTestId('pay-fee').fill(o.fee);
  }
  await page.getByTestId('propose').click();
  await expect.poll(() => page.getByTestId('payment-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('awaiting_signatures');
}
