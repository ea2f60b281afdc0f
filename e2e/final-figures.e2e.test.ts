// Figures never shown as final before they are (issue 32, point 3), in Chromium over a real
// litecoind -regtest with block filters and the service in watch mode, reading the node through
// dev/chains/slow-rpc.ts so the scans are seen in progress. A 2-of-3 with 60 funded receive
// addresses is registered from its birthday; the wallet page and the wallets list are watched
// while the desk walks the addresses and the service reads the blocks. The test fails on any figure
// shown as final (no "provisional" mark) that later changes, on a card of the page marked apart
// from the balance, and on a receive address offered before the walk is past the used ones. Then
// "Rescan from the beginning" must mark every figure again until the service has read the blocks.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainParams } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet } from '../main/core/wallets/wallets.ts';
import { walletAddress } from '../main/core/wallets/script.ts';
import { registerBirthday } from '../main/core/wallets/birthday.ts';
import type { WalletRow } from '../main/core/store/store.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const cosigners = [alice, bob, carol].map((c) => ({ name: c.name, xpub: c.xpub, derivationPath: c.derivationPath }));
const FUNDED = 60;
/** Litoshis paid to receive address i: all different, so a partial sum never equals the whole. */
const paidTo = (i: number) => 5_000_000n + BigInt(i) * 1_000_000n;
const EXPECTED = Array.from({ length: FUNDED }, (_, i) => paidTo(i)).reduce((a, b) => a + b, 0n);
const ltc = (units: bigint) => (Number(units) / 1e8).toFixed(8);
/** The figure as the page writes it, e.g. "12.05 LTC": digits and the point only, trailing zeros dropped. */
const figure = (text: string | null) => (text ?? '').replace(/[^\d.]/g, '').replace(/\.?0+$/, '');

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
let list: Page;
let wallet: WalletRow;
const core = () => ({ store: desk.store, api: desk.connection.api, actor: 'treasurer' });

interface Sample {
  balance: string;
  balanceMarked: boolean;
  /** Whether each card of the page carries the provisional mark (null: not on screen yet). */
  history: boolean | null;
  unspent: boolean | null;
  books: boolean | null;
  receive: string | null;
  card: string;
  cardMarked: boolean;
}

/** What the two pages show now. */
async function sample(): Promise<Sample> {
  // Read in the page as one expression (the test's own TypeScript has no DOM types).
  const onPage = await page.evaluate<Omit<Sample, 'card' | 'cardMarked'>>(`(() => {
    const marked = (title) => {
      const card = [...document.querySelectorAll('section.card')].find((s) => s.querySelector('h2')?.textContent === title);
      return card ? card.querySelector('[data-testid="provisional-badge"]') !== null : null;
    };
    const balance = document.querySelector('[data-testid="balance"]');
    return {
      balance: balance?.textContent ?? '',
      balanceMarked: balance?.classList.contains('provisional') ?? false,
      history: marked('History'),
      unspent: marked('Unspent outputs'),
      books: marked('Books'),
      receive: document.querySelector('[data-testid="receive-address"]')?.textContent ?? null,
    };
  })()`);
  const onList = await list.evaluate<Pick<Sample, 'card' | 'cardMarked'>>(`(() => {
    const b = document.querySelector('[data-testid="wallet-card-balance"]');
    return { card: b?.textContent ?? '', cardMarked: b?.classList.contains('provisional') ?? false };
  })()`);
  return { ...onPage, ...onList };
}

/** Samples both pages until the page shows `done` (the wallet's whole balance, unmarked) or the bound passes. */
async function watchUntilFinal(boundMs: number, seen: Sample[] = []): Promise<Sample[]> {
  const bound = Date.now() + boundMs;
  const whole = figure(ltc(EXPECTED));
  for (;;) {
    const s = await sample();
    seen.push(s);
    if (figure(s.balance) === whole && !s.balanceMarked && !s.cardMarked && figure(s.card) === whole) return seen;
    if (Date.now() > bound) return seen;
    await page.waitForTimeout(150);
  }
}

/** Every figure shown unmarked is the final one; every card of the page is marked with the balance. */
function expectHonest(seen: readonly Sample[], receive: string) {
  // The next address first: offered only once the walk is past the used ones, never one already paid.
  const offered = [...new Set(seen.map((s) => s.receive).filter((r) => r !== null))];
  expect(offered, 'receive addresses offered').toEqual([receive]);
  const whole = figure(ltc(EXPECTED));
  const shownFinal = seen.filter((s) => !s.balanceMarked && figure(s.balance) !== '').map((s) => figure(s.balance));
  expect(shownFinal.filter((f) => f !== whole), 'balances shown as final that later changed').toEqual([]);
  const cardFinal = seen.filter((s) => !s.cardMarked && figure(s.card) !== '').map((s) => figure(s.card));
  expect(cardFinal.filter((f) => f !== whole), 'wallet-card balances shown as final that later changed').toEqual([]);
  for (const s of seen) {
    for (const c of [s.history, s.unspent, s.books]) if (c !== null && figure(s.balance) !== '') expect(c, `a card of the page marked apart from the balance ${s.balance}`).toBe(s.balanceMarked);
  }
  expect(seen.at(-1)!.balanceMarked).toBe(false);
  expect(figure(seen.at(-1)!.balance)).toBe(whole);
}

beforeAll(async () => {
  session = await openDeskInBrowser({ index: 'watch', nodeArgs: ['-blockfilterindex=1'], slowIndexer: { delayMs: 40 } }, 'final-figures-');
  ({ desk, page } = session);
  list = await session.browser.context.newPage();
}, 300_000);
afterAll(() => session?.close());

describe('a wallet with many funded addresses, watched in Chromium while it is discovered', () => {
  it('marks every figure not final until the walk and the scan are both done, and offers the next address only past the used ones', async () => {
    const birthday = (await desk.node.rpc.call<number>('getblockcount')) + 1;
    wallet = await createWallet(core(), { coin: 'litecoin', network: 'regtest', name: 'Long-lived treasury', m: 2, cosigners, birthday: { height: birthday, source: 'file' } });
    const xpubs = desk.store.cosigners(wallet.id).map((c) => c.xpub);
    const at = (i: number) => walletAddress(params, wallet, xpubs, false, i).address;
    // Six payments of ten addresses each, one a block: a transaction pays many of the wallet's addresses.
    for (let from = 0; from < FUNDED; from += 10) {
      const outputs = Object.fromEntries(Array.from({ length: 10 }, (_, k) => [at(from + k), Number(ltc(paidTo(from + k)))]));
      await desk.node.walletRpc.call('sendmany', ['', outputs]);
      await desk.node.mine(1);
    }
    await desk.node.mine(60);
    expect(await registerBirthday(core(), wallet)).toBe(true);

    await list.goto(desk.web.openUrl);
    await page.goto(desk.web.openUrl);
    await page.evaluate(`location.hash = '#/wallets/${wallet.id}'`);
    await page.getByTestId('balance').waitFor();
    const seen = await watchUntilFinal(150_000);
    // Seen in progress, marked: the proxy slows the service's block reads.
    expect(seen.some((s) => s.balanceMarked)).toBe(true);
    expectHonest(seen, at(FUNDED));
    await page.getByTestId('receive-address').waitFor();
    await session.browser.shot('01-final-1280');
    await page.setViewportSize({ width: 760, height: 900 });
    await session.browser.shot('02-final-760');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 240_000);

  it('"Rescan from the beginning" marks every figure again, on the page and the card, until the service has read the blocks', async () => {
    // Every block request waits until released: the rescan stays under way while the screens are read.
    desk.slowRpc!.hold();
    await page.getByTestId('rescan-genesis').check();
    await page.getByTestId('rescan-submit').click();
    await page.getByTestId('rescan-done').waitFor();
    // Both screens follow within their polls; the mark must come on the card too, not only on the page.
    await expect.poll(async () => { const s = await sample(); return s.balanceMarked && s.cardMarked && s.history === true && s.unspent === true && s.books === true; }, { timeout: 30_000 }).toBe(true);
    // Said in words: the walk starts again (the rescan voids it), and the service reads the blocks again.
    await page.locator('[data-testid="scan-notice"], [data-testid="not-final-notice"]').first().waitFor();
    await session.browser.shot('03-rescanning-1280');
    await page.setViewportSize({ width: 760, height: 900 });
    await session.browser.shot('04-rescanning-760');
    await page.setViewportSize({ width: 1280, height: 900 });
    const held = [await sample(), await sample(), await sample()];
    for (const s of held) expect([s.balanceMarked, s.cardMarked]).toEqual([true, true]);
    desk.slowRpc!.release();
    const seen = await watchUntilFinal(150_000, held);
    expectHonest(seen, walletAddress(params, wallet, desk.store.cosigners(wallet.id).map((c) => c.xpub), false, FUNDED).address);
  }, 240_000);
});
