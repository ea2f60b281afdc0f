// The README's demo, as a newcomer runs it (`npm run demo`), driven in Chromium: the example 2-of-3
// wallet pays at 1 unit/vbyte, replaceable because the demo's litecoind relays replacements; Alice
// and Bob sign with the keys the demo prints (signature files, as co-signers would send them); the
// payment sits in the mempool, the treasurer bumps it to 20 on its screen, the bump is signed and
// submitted, a block (the demo mines one on SIGUSR1) confirms the bump and drops the original.
// The desk runs as on a treasurer's own node: its embedded service watches the wallet on a node
// with block filters, beside the full-index service of the printed API URL; both are checked.
// With COUNTERSIGN_DEMO_LOG set (scripts/demo-first-run.sh) it drives that already running demo,
// reading its printed URL, keys and pid from the log, instead of starting one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectAndSubmit, openBrowser, type BrowserSession } from './browser.ts';

const ROOT = join(import.meta.dirname, '..');

interface Demo {
  url: string;
  payTo: string;
  keys: Map<string, string>;
  /** The demo's own process: SIGUSR1 mines a block. */
  pid: number;
  /** The desk's own service's word on the example wallet's scan (GET /watch/litecoin/{id}). */
  scan: string;
  /** The full-index service's API. */
  api: string;
}

/** What the demo prints: the URL, the co-signer keys, a node address to pay, its pid. */
function readDemo(log: string): Demo | null {
  const url = /Open +(http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(log)?.[1];
  const payTo = /Pay to \(a node address\): +(\S+)/.exec(log)?.[1];
  const pid = /kill -USR1 (\d+)/.exec(log)?.[1];
  const keys = new Map([...log.matchAll(/^ +(Alice|Bob|Carol) +(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const scan = /The example wallet's scan: +(\S+)/.exec(log)?.[1];
  const api = /The full-index service's v2 API \(no key on 127\.0\.0\.1\): +(\S+)/.exec(log)?.[1];
  if (!url || !payTo || !pid || keys.size !== 3 || !scan || !api) return null;
  return { url, payTo, keys, pid: Number(pid), scan, api };
}

/** `npm run demo` in its own process group, blocks mined only on request; resolves once it printed everything. */
function startDemo(): Promise<{ child: ChildProcess; demo: Demo }> {
  const child = spawn('npm', ['run', 'demo', '--', '--mine-every', '86400'], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const take = (chunk: Buffer) => {
      out += chunk.toString();
      const demo = readDemo(out);
      if (demo) resolve({ child, demo });
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`npm run demo exited (${code}) before printing its URL and keys:\n${out.slice(-3000)}`)));
  });
}

let child: ChildProcess | null = null;
let demo: Demo;
let browser: BrowserSession;

beforeAll(async () => {
  const given = process.env.COUNTERSIGN_DEMO_LOG;
  if (given) {
    const found = readDemo(readFileSync(given, 'utf8'));
    if (!found) throw new Error(`${given} does not hold the demo's URL, co-signer keys, payee and pid`);
    demo = found;
  } else {
    ({ child, demo } = await startDemo());
  }
  browser = await openBrowser({ rendererDir: '', work: mkdtempSync(join(tmpdir(), 'countersign-demo-e2e-')) }, 'demo-');
}, 600_000);
afterAll(async () => {
  await browser?.close();
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM'); // the group we started: npm, tsx, litecoind, hardhat
    await exited;
  }
});

describe('the demo', () => {
  it("runs the desk on its own service in watch mode, on a node with block filters, beside the full-index API", async () => {
    const scan = await fetch(demo.scan);
    expect(scan.status).toBe(200); // a full index answers 409: it watches nothing
    const status = (await scan.json()) as { state: string; filters: boolean; pruned: boolean; birthday_height: number | null };
    expect(status).toMatchObject({ state: 'ready', filters: true, pruned: false });
    expect(status.birthday_height).toBeGreaterThan(0); // born at the tip, not read from genesis
    const desk = (await (await fetch(new URL('/status', demo.scan))).json()) as { coins: { coin: string; replacements?: boolean }[] };
    expect(desk.coins.find((c) => c.coin === 'litecoin')).toMatchObject({ replacements: true });
    // the printed API is the full index's
    expect((await fetch(`${demo.api}/watch/litecoin/any`)).status).toBe(409);
  });

  it('pays from the example wallet, bumps the stuck payment with the printed keys, and a block confirms the bump', async () => {
    const { page } = browser;
    const keys = ['Alice', 'Bob'].map((name) => ({ xprv: demo.keys.get(name)! }));
    const state = () => page.getByTestId('payment-state').getAttribute('data-state');
    const openedId = () => decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);

    await page.goto(demo.url);
    await expect.poll(() => page.getByTestId('service-status').textContent(), { timeout: 60_000 }).toMatch(/connected/);
    await page.getByRole('link', { name: 'Example treasury' }).first().click();
    // Watched on the node: the address walk ends, the next address is given, the figures are final.
    await expect.poll(() => page.getByTestId('receive-address').textContent(), { timeout: 60_000 }).toMatch(/^\s*Q\w{30,}\s*$/);
    expect(await page.getByTestId('watch-status').textContent()).toMatch(/^Watched from block \d+: read to block \d+, the node's tip/);
    await expect.poll(() => page.getByTestId('provisional-badge').count()).toBe(0);
    await browser.shot('00-wallet');
    await page.getByTestId('propose-link').click();
    await page.getByTestId('pay-to').fill(demo.payTo);
    await page.getByTestId('pay-amount').fill('1.5');
    await page.getByTestId('pay-purpose').fill('Demo: a payment to bump');
    await page.getByTestId('fee-mode-custom').check();
    await page.getByTestId('pay-fee-rate').fill('1');
    // The demo's node relays replacements, and the service says so: the payment is replaceable.
    await expect.poll(() => page.getByTestId('replaceable-note').textContent()).toMatch(/^Replaceable \(BIP125\)/);
    await expect.poll(() => page.getByTestId('propose').isDisabled()).toBe(false);
    await page.getByTestId('propose').click();
    await expect.poll(state, { timeout: 30_000 }).toBe('awaiting_signatures');
    const originalId = openedId();
    await browser.shot('01-proposed');

    const originalTxid = await collectAndSubmit(browser, 'demo-original', keys);
    await browser.shot('02-sent');

    await page.getByText('Stuck? Pull it through').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('bump').isVisible()).toBe(true);
    await page.getByTestId('stuck-rate').fill('20');
    await page.getByTestId('bump').click();
    await expect.poll(() => page.url()).not.toContain(originalId);
    const bumpId = openedId();
    await expect.poll(() => page.getByTestId('replacement-links').textContent()).toMatch(/This is a fee bump\..*Replaces payment/);
    await browser.shot('03-bump-proposed');

    const bumpTxid = await collectAndSubmit(browser, 'demo-bump', keys);
    expect(bumpTxid).not.toBe(originalTxid);
    await browser.shot('04-bump-sent');

    process.kill(demo.pid, 'SIGUSR1');
    await expect
      .poll(
        async () => {
          await page.reload();
          return state();
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe('confirmed');
    await browser.shot('05-bump-confirmed');
    await page.goto(`${new URL(demo.url).origin}/#/payments/${originalId}`);
    await expect.poll(() => page.getByTestId('dropped').textContent(), { timeout: 30_000 }).toMatch(new RegExp(`^Dropped: payment .* spent the same coins and confirmed\\.$`));
    expect(await state()).toBe('failed');
    await browser.shot('06-original-dropped');
    expect(bumpId).not.toBe(originalId);
  }, 600_000);
});
