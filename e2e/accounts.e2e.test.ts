// Issue 6's Ether proof in a browser: Debian's Chromium drives the desk in web mode over a real
// `hardhat node` with OpenZeppelin's ERC20. A treasurer imports an account's recovery words,
// follows a token by its contract alone (name, symbol and decimals shown as the contract reports
// them), sends Ether and then the token: each send is shown decoded (recipient, amount,
// token, fee = gas x gas price) before it is confirmed, signed by the software key and mined. A
// send above the balance is refused with the amounts named. No bridge answer ever carries the key.
// Screenshots of every screen go to e2e/artifacts/accounts-*.png.
import { Contract, HDNodeWallet, Wallet, getAddress, type InterfaceAbi } from 'ethers';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundEther, mintedToken } from '../dev/chains/hardhat.ts';
import type { DevDesk } from '../dev/dev-desk.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

const ETH = 10n ** 18n;
/** Polls wait up to 30 s: the machine is shared, and a status round trip can exceed vitest's 1 s default. */
const POLL = { timeout: 30_000 };
const owner = Wallet.createRandom();
const WORDS = owner.mnemonic!.phrase;
const PRIVATE_KEY = HDNodeWallet.fromPhrase(WORDS, undefined, "m/44'/60'/0'/0/0").privateKey;
const bob = Wallet.createRandom().address;
const carol = Wallet.createRandom().address;

let session: DeskInBrowser;
let desk: DevDesk;
let page: Page;
/** Every bridge answer the page received, to prove no key ever crosses back. */
const bridgeAnswers: string[] = [];
const shot = (name: string) => session.browser.shot(name);

beforeAll(async () => {
  session = await openDeskInBrowser({ ethereum: {} }, 'accounts-');
  ({ desk, page } = session);
  page.on('response', (res) => {
    if (res.url().includes('/bridge/')) void res.text().then((t) => bridgeAnswers.push(t), () => undefined);
  });
}, 300_000);
afterAll(() => session?.close());

const balanceOf = async (token: string, who: string): Promise<bigint> =>
  (await new Contract(token, ['function balanceOf(address) view returns (uint256)'] as InterfaceAbi, desk.eth!.provider).getFunction('balanceOf')(who)) as bigint;

describe('Ether and ERC20 sends from the desk, in Chromium', () => {
  it('imports an account, follows a token, sends Ether and the token, each decoded before confirming', async () => {
    const eth = desk.eth!;
    await page.goto(desk.web.openUrl);
    await expect.poll(() => page.getByTestId('service-status').textContent(), POLL).toMatch(/connected/);
    await page.getByRole('link', { name: 'Ether accounts', exact: true }).click();
    await page.getByText('No Ether accounts yet').waitFor();
    await shot('01-empty');

    // Import the recovery words.
    await page.getByRole('link', { name: 'New account' }).click();
    await page.getByTestId('account-name').fill('Operations');
    await page.getByTestId('account-words').fill(WORDS);
    await shot('02-new');
    await page.getByTestId('create-account').click();
    const address = (await page.getByTestId('account-address-shown').textContent())!.trim();
    expect(address).toBe(owner.address);

    // Funds arrive: Ether, and an OpenZeppelin ERC20 the account then follows.
    await fundEther(eth, address, 10n * ETH);
    const dsk = await mintedToken(eth, 'Desk Token', 'DSK', address, 1000n * ETH);
    await desk.synced();
    // The token by its contract alone: the desk shows what the contract reports before following it.
    await page.getByTestId('add-token-open').click();
    await page.getByTestId('token-contract').fill(bob); // an address with no code: refused, naming it
    await page.getByTestId('token-read').click();
    await expect.poll(() => page.getByRole('alert').textContent(), POLL).toBe(`the service refuses this token: field "contract": ${bob.toLowerCase()} is not a contract on this chain (it has no code)`);
    await shot('03-token-refused');
    await page.getByTestId('token-contract').fill(dsk);
    await page.getByTestId('token-read').click();
    await page.getByTestId('token-preview').waitFor();
    expect(await page.getByTestId('token-name').textContent()).toBe('Desk Token');
    expect(await page.getByTestId('token-symbol-read').textContent()).toBe('DSK');
    expect(await page.getByTestId('token-decimals-read').textContent()).toBe('18');
    expect(await page.getByTestId('token-symbol').count()).toBe(0); // nothing to type
    await shot('04-token-preview');
    await page.getByTestId('token-add').click();
    await expect.poll(() => page.getByTestId('ether-balance').textContent(), POLL).toBe('10.00 ETH (regtest)');
    await expect.poll(() => page.getByTestId('token-row').first().textContent(), POLL).toContain('1,000.00 DSK');
    await expect.poll(() => page.getByTestId('account-history').locator('tbody tr').count(), POLL).toBe(2);
    await shot('05-funded');

    // Send 1.5 ETH: the review shows what the transaction itself pays, before anything is signed.
    await page.getByTestId('send-link').click();
    await page.getByTestId('send-to').fill(bob);
    await page.getByTestId('send-amount').fill('1.5');
    await shot('06-send-form');
    await page.getByTestId('send-review').click();
    await expect.poll(() => page.getByTestId('send-state').getAttribute('data-state'), POLL).toBe('proposed');
    expect((await page.getByTestId('decoded-to').textContent())!.trim()).toBe(bob);
    expect(await page.getByTestId('decoded-amount').textContent()).toBe('1.50 ETH (regtest)');
    expect(await page.getByTestId('decoded-fee').textContent()).toMatch(/ETH \(regtest\) \(21000 gas × [\d.]+ gwei\)/);
    expect(await eth.provider.send('eth_getTransactionCount', [address, 'pending'])).toBe('0x0'); // nothing signed yet
    await shot('07-review-ether');
    await page.getByTestId('send-confirm').click();
    await expect.poll(() => page.getByTestId('send-state').getAttribute('data-state'), POLL).toMatch(/broadcast|confirmed/);
    const etherTxid = (await page.getByTestId('send-txid').textContent())!.trim();
    expect((await eth.provider.getTransactionReceipt(etherTxid))?.status).toBe(1);
    expect(BigInt((await eth.provider.send('eth_getBalance', [bob, 'latest'])) as string)).toBe(15n * 10n ** 17n);
    await desk.synced();
    await expect.poll(() => page.getByTestId('send-state').getAttribute('data-state'), POLL).toBe('confirmed');
    await shot('08-sent-ether');

    // Send 250 DSK the same way.
    await page.getByRole('link', { name: '← Operations' }).click();
    await page.getByTestId('send-link').click();
    await page.getByTestId('send-asset').selectOption(getAddress(dsk));
    await expect.poll(() => page.getByTestId('send-available').textContent(), POLL).toBe('1,000.00 DSK');
    await page.getByTestId('send-to').fill(carol);
    await page.getByTestId('send-amount').fill('250');
    await page.getByTestId('send-review').click();
    await expect.poll(() => page.getByTestId('send-state').getAttribute('data-state'), POLL).toBe('proposed');
    expect((await page.getByTestId('decoded-to').textContent())!.trim()).toBe(carol);
    expect(await page.getByTestId('decoded-amount').textContent()).toBe('250.00 DSK');
    expect(await page.getByTestId('send-decoded').textContent()).toContain(`DSK · ERC20 transfer() on contract ${getAddress(dsk)}`);
    await shot('09-review-token');
    await page.getByTestId('send-confirm').click();
    await expect.poll(() => page.getByTestId('send-state').getAttribute('data-state'), POLL).toMatch(/broadcast|confirmed/);
    const tokenTxid = (await page.getByTestId('send-txid').textContent())!.trim();
    expect((await eth.provider.getTransactionReceipt(tokenTxid))?.status).toBe(1);
    expect(await balanceOf(dsk, carol)).toBe(250n * ETH);
    await desk.synced();
    await expect.poll(() => page.getByTestId('send-state').getAttribute('data-state'), POLL).toBe('confirmed');
    await shot('10-sent-token');

    // The account after both: balances, sends and history.
    await page.getByRole('link', { name: '← Operations' }).click();
    await expect.poll(() => page.getByTestId('token-row').first().textContent(), POLL).toContain('750.00 DSK');
    await expect.poll(() => page.getByTestId('ether-balance').textContent(), POLL).toMatch(/^8\.49\d{4}… ETH \(regtest\)$/);
    await expect.poll(() => page.getByTestId('account-history').locator('tbody tr').count(), POLL).toBe(4);
    expect(await page.getByTestId('send-row').count()).toBe(2);
    await shot('11-account-after');
  }, 300_000);

  it('refuses a send above the balance, naming the amounts, and signs nothing', async () => {
    const address = owner.address;
    const nonce = (await desk.eth!.provider.send('eth_getTransactionCount', [address, 'pending'])) as string;
    await page.getByTestId('send-link').click();
    await page.getByTestId('send-to').fill(bob);
    await page.getByTestId('send-amount').fill('100');
    await page.getByTestId('send-review').click();
    await expect.poll(() => page.getByRole('alert').textContent(), POLL).toMatch(/insufficient funds: the account holds 8\.49\d* ETH, less than the 100 ETH to send; nothing was signed/);
    await shot('12-refused');
    expect(await desk.eth!.provider.send('eth_getTransactionCount', [address, 'pending'])).toBe(nonce);

    await page.getByRole('link', { name: 'Ether accounts', exact: true }).click();
    await page.getByTestId('account-card').waitFor();
    await expect.poll(() => page.getByTestId('account-card').textContent(), POLL).toContain('750.00 DSK');
    await shot('13-accounts');

    // The key went into the desk once and never came back over the bridge.
    expect(bridgeAnswers.length).toBeGreaterThan(10);
    for (const body of bridgeAnswers) {
      expect(body).not.toContain(WORDS.split(' ').slice(0, 4).join(' '));
      expect(body.toLowerCase()).not.toContain(PRIVATE_KEY.slice(2).toLowerCase());
    }
  }, 120_000);
});
