// The watch scan's progress in the desk's sync bar (issue 25), in Chromium over a real litecoind
// -regtest with block filters (-blockfilterindex=1) and the service in watch mode. Two wallets are
// funded near their birthday, 800 blocks are mined on top, and the service reads the node through
// dev/chains/slow-rpc.ts, which holds each block and filter request 300 ms (a test-only knob: the
// service is unchanged). While the scan runs, the bar says the chain, how many wallets, the block
// reached of the tip, the blocks matched and the time left; once the proxy lets it through, it goes.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, chainParams } from '../shared/coins/index.ts';
import { testCosigner } from '../dev/desk-testing/keys.ts';
import { createWallet } from '../main/core/wallets/wallets.ts';
import { walletAddress } from '../main/core/wallets/script.ts';
import { registerBirthday } from '../main/core/wallets/birthday.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const [alice, bob, carol] = [testCosigner('alice'), testCosigner('bob'), testCosigner('carol')];
const cosigners = [alice, bob, carol].map((c) => ({ name: c.name, xpub: c.xpub, derivationPath: c.derivationPath }));
const BIRTHDAY = 100;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
const shot = (name: string) => session.browser.shot(name);
const core = () => ({ store: desk.store, api: desk.connection.api, actor: 'treasurer' });
const words = () => page.getByTestId('sync-scan-words').textContent();

beforeAll(async () => {
  session = await openDeskInBrowser({ index: 'watch', nodeArgs: ['-blockfilterindex=1'], slowIndexer: { delayMs: 300 } }, 'watch-scan-');
  ({ desk, page } = session);
}, 300_000);
afterAll(() => session?.close());

describe('a watch scan in the sync bar, in Chromium', () => {
  it('says the wallets, the block reached, the blocks matched and the time left while scanning, and goes when done', async () => {
    const wallets = [
      await createWallet(core(), { coin: 'litecoin', network: 'regtest', name: 'Operating treasury', m: 2, cosigners, birthday: { height: BIRTHDAY, source: 'file' } }),
      await createWallet(core(), { coin: 'litecoin', network: 'regtest', name: 'Reserve', m: 1, cosigners: cosigners.slice(0, 2), birthday: { height: BIRTHDAY, source: 'file' } }),
    ];
    // Funded just after the birthday, so the scan matches blocks early; then a long chain on top.
    for (const w of wallets) {
      // Derived here: the service answers no address of a wallet it does not watch yet.
      const first = walletAddress(params, w, desk.store.cosigners(w.id).map((c) => c.xpub), false, 0).address;
      await desk.node.fundScript(addressToScript(params, first), COIN);
      await desk.node.mine(1);
    }
    await desk.node.mine(800);
    const tip = await desk.node.rpc.call<number>('getblockcount');
    for (const w of wallets) expect(await registerBirthday(core(), w)).toBe(true);

    await page.goto(desk.web.openUrl);
    await page.getByTestId('sync-scan').waitFor();
    const tipWords = tip.toLocaleString('en-US');
    // The first poll has one sample: the time left is worked out from the second on.
    expect(await words()).toMatch(new RegExp(`^Scanning litecoin for 2 wallets: block [\\d,]+ of ${tipWords}, [\\d,]+ blocks? matched, (working out the time left|less than a minute left|about \\d+ min left)$`));
    await expect
      .poll(words, { timeout: 60_000 })
      .toMatch(new RegExp(`^Scanning litecoin for 2 wallets: block [\\d,]+ of ${tipWords}, [1-9]\\d* blocks? matched, (less than a minute|about \\d+ min) left$`));
    const [reached, matched] = (await words())!.match(/block ([\d,]+) of [\d,]+, ([\d,]+) block/)!.slice(1).map((x) => Number(x.replace(/,/g, '')));
    expect(reached).toBeGreaterThanOrEqual(BIRTHDAY + 2); // both funding blocks are read: they matched
    expect(reached).toBeLessThan(tip);
    expect(matched).toBeGreaterThanOrEqual(1);
    // The node has filters: no word of reading every block; the index's own "Indexing" line gives way to the scan.
    expect(await page.getByTestId('sync-scan-note').count()).toBe(0);
    expect(await page.getByTestId('sync-coin').count()).toBe(0);
    expect(await page.getByTestId('sync-bar').textContent()).not.toContain('Indexing litecoin');
    await shot('01-scanning');

    // The proxy stops holding requests: the scan reaches the tip, checks against scantxoutset, and the words go.
    desk.slowRpc!.delayMs = 0;
    // Finding the first addresses used derives more, which reads the blocks from the birthday once more.
    await expect.poll(() => page.getByTestId('sync-bar').count(), { timeout: 180_000 }).toBe(0);
    for (const w of wallets) expect((await desk.api.watchStatus('litecoin', w.id)).state).toBe('ready');
    await shot('02-scanned');
  }, 300_000);
});
