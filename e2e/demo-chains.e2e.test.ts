// Settings > Chains on the demo's desk (issue 32, point 4), in Chromium: the desk started as
// `npm run demo` starts it (dev/demo-desk.ts: its own embedded service watching the demo's
// litecoind, described in embedded-service.json, beside the full-index dev service; hardhat left
// out, it has no part in this page). The words about which service the desk talks to agree between
// Settings > Service and Settings > Chains, and "Test connection" works against the node the demo
// prints (address, cookie file, user and password), refusing a node of another network and a
// wrong password in words. Screenshots at 1280 and 760 px: e2e/artifacts/demo-chains-*.png.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_NODE_ARGS } from '../dev/demo-chain.ts';
import { openDeskInBrowser, type DeskInBrowser } from './browser.ts';

let session: DeskInBrowser;
let page: Page;

beforeAll(async () => {
  session = await openDeskInBrowser({ nodeArgs: [...DEMO_NODE_ARGS], ownNode: true }, 'demo-chains-');
  page = session.page;
  await session.desk.synced();
}, 300_000);

afterAll(async () => {
  await session?.close();
});

async function shots(name: string) {
  await session.browser.shot(`${name}-1280`);
  await page.setViewportSize({ width: 760, height: 900 });
  await session.browser.shot(`${name}-760`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

const text = async (testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();
const errorAt = (field: string) => page.getByTestId(`chain-error-${field}`);

describe("Settings > Chains on the demo's desk, in Chromium", () => {
  it('says the same thing about the service the desk talks to in both panels', async () => {
    const { desk } = session;
    await page.goto(desk.web.openUrl);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => page.getByTestId('service-mode').getAttribute('data-mode')).toBe('embedded');
    expect(await text('service-mode')).toBe('Embedded: started by this desk on 127.0.0.1');
    expect(await text('current-service')).toContain(desk.host!.url);
    expect(await text('chains-service')).toBe(`The desk talks to its own embedded service at ${desk.host!.url}, which reads the chains below.`);
    // Nothing on the page says the desk talks to a remote service, or that it starts none.
    const all = (await page.locator('main').textContent()) ?? '';
    expect(all).not.toMatch(/remote service|does not start its own|started no service/);
    expect(await text('chain-row-litecoin')).toMatch(/set in embedded-service\.json by the operator/);
    await shots('settings');
  });

  it('tests the node the demo prints: a node of the wrong network, a wrong password, then the right one', async () => {
    const { desk } = session;
    const login = desk.nodeLogin;
    expect(login.cookieFile).not.toBeNull();
    await page.getByTestId('chain-add').click();
    await page.getByTestId('chain-coin').selectOption('litecoin');
    await page.getByTestId('chain-kind-node').check();
    await page.getByTestId('chain-url').fill(login.url);
    await page.getByTestId('chain-cookie').fill(login.cookieFile!);
    // The network left at mainnet: what the node serves, what was chosen, both ways out.
    await page.getByTestId('chain-test').click();
    await expect.poll(() => errorAt('network').textContent()).toBe(`the node at ${login.url} is on regtest, but this coin is configured for mainnet: connect a litecoin mainnet node, or choose regtest`);
    expect(await page.getByTestId('chain-save').isDisabled()).toBe(true);
    await shots('wrong-network');

    await page.getByTestId('chain-network').selectOption('regtest');
    await page.getByTestId('chain-auth-password').check();
    await page.getByTestId('chain-username').fill(login.username);
    await page.getByTestId('chain-password').fill('not-the-password');
    await page.getByTestId('chain-test').click();
    await expect.poll(() => errorAt('password').textContent()).toBe(`the node at ${login.url} refused this user and password`);
    expect(await errorAt('network').count()).toBe(0);
    await shots('wrong-password');

    await page.getByTestId('chain-password').fill(login.password);
    await page.getByTestId('chain-test').click();
    await expect.poll(() => page.getByTestId('chain-answer-chain').textContent()).toBe('regtest (network regtest)');
    expect(await text('chain-answer-height')).toBe((await desk.node.rpc.call<number>('getblockcount')).toLocaleString('en-US'));
    expect(await text('chain-answer-filters')).toBe('on (BIP158)');
    expect(await text('chain-answer-software')).toMatch(/LitecoinCore/);
    expect(await page.getByTestId('chain-save').isEnabled()).toBe(true);
    expect(await text('chain-save-words')).toBe('Saving restarts the embedded service with this chain. litecoin is set in embedded-service.json: testing changes nothing, and saving here replaces that connection.');
    expect(await errorAt('password').count()).toBe(0);
    // The page never repeats the password.
    expect((await page.locator('main').textContent()) ?? '').not.toContain(login.password);
    await shots('tested');

    // The cookie file the demo prints logs in too.
    await page.getByTestId('chain-auth-cookie').check();
    await page.getByTestId('chain-test').click();
    await expect.poll(() => page.getByTestId('chain-answer-filters').textContent()).toBe('on (BIP158)');
  });
});
