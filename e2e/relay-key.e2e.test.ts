// A relay key the desk cannot read, in Chromium: a co-signer's desk joins a room, stops, and starts
// again on the same store with its stored relay value damaged (a room's key in it broken). The Relay
// page says what happened, what it means and the choices, and no key was made over the value; the
// treasurer makes a new key on purpose: the damaged value is kept aside, the screen says the room
// must take this desk again, and a new invitation to the same room is then taken with the new key.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../shared/api/client.ts';
import { RelayClient } from '../shared/api/relay-client.ts';
import { createService, type Service } from '../service/service.ts';
import { MemorySecretStore } from '../main/core/secrets.ts';
import { admit, invite, openRoom, type Desk } from '../dev/relay-testing/relay-kit.ts';
import { startRelayDesk, type RelayDesk } from '../dev/relay-testing/relay-desk.ts';
import { buildRenderer, openBrowser, type BrowserSession } from './browser.ts';

let dir: string;
let service: Service;
let url: string;
let browser: BrowserSession;
let page: Page;
const desks: RelayDesk[] = [];
const secrets = new MemorySecretStore();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-relay-key-e2e-'));
  mkdirSync(join(dir, 'bob'));
  // The organisation's service, relay only (no chain): a co-signer's desk reaches it from anywhere.
  service = await createService({ database: { sqlite: join(dir, 'service.sqlite') }, coins: {}, auth: { required: false }, log: { level: 'silent' }, listen: { host: '127.0.0.1', port: 0 } });
  url = await service.listen();
  browser = await openBrowser(await buildRenderer(), 'relay-key-');
  page = browser.page;
}, 300_000);
afterAll(async () => {
  await browser?.close().catch(() => undefined);
  for (const d of desks) await d.dispose().catch(() => undefined);
  await service?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** This co-signer's desk on the same store folder and relay secret store, and its Relay page open. */
async function startDesk(): Promise<RelayDesk> {
  const desk = await startRelayDesk({ rendererDir: browser.rendererDir, serviceUrl: url, actor: 'bob', relaySecrets: secrets, dir: join(dir, 'bob') });
  desks.push(desk);
  await page.goto(desk.web.openUrl);
  await page.goto(`${desk.web.openUrl.split('#')[0]}#/relay`);
  return desk;
}

async function joinOnScreen(code: string): Promise<void> {
  await page.getByTestId('relay-join-code').fill(code);
  await page.getByTestId('relay-join-name').fill('bob');
  await page.getByTestId('relay-join').click();
  await expect.poll(() => page.getByRole('status').filter({ hasText: 'Joined the room of Operations' }).count(), { timeout: 30_000 }).toBe(1);
}

describe("a co-signer's desk whose stored relay key cannot be read", () => {
  it('says so in words, overwrites nothing, and makes a new key only when asked, which then joins again', async () => {
    const client = new RelayClient(new ApiClient({ baseUrl: url }));
    const treasurer: Desk = await openRoom(client, 'Treasurer');
    const room = treasurer.view.room;

    // The desk joins the room, then stops.
    const first = await startDesk();
    await joinOnScreen((await invite(client, treasurer)).code);
    const kept = secrets.load()!;
    expect(kept).toMatch(/^[0-9a-f]{64}$/);
    await first.dispose();

    // Its stored value damaged: the desk's key intact, the key it holds for the room broken.
    const damaged = JSON.stringify({ desk: kept, rooms: { [room]: 'not a key' } });
    secrets.save(damaged);
    await startDesk();
    const problem = page.getByTestId('relay-key-problem');
    await problem.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('relay-key-what').textContent()).toBe(`The relay key stored on this computer cannot be read: the stored value is damaged: the key it holds for room ${room} is not a key.`);
    expect(await page.getByTestId('relay-key-means').textContent()).toBe('This desk cannot read or send in its relay rooms until it can. Nothing was changed: the stored value is kept as it is, and no new key was made. Files still work.');
    const choices = await page.getByTestId('relay-key-choices').locator('li').allTextContents();
    expect(choices).toHaveLength(2);
    expect(choices[0]).toMatch(/^Unlock or repair the system keyring .* and restart the desk/);
    expect(choices[1]).toMatch(/^Or make a new relay key: the unreadable value is kept aside, not deleted/);
    expect(await problem.textContent()).toContain('Rooms this desk is in: Operations (co-signer).');
    // The other cards are not offered while the key cannot be read, and the page read the relay (it polls) without overwriting anything.
    expect(await page.getByTestId('relay-join').count()).toBe(0);
    await page.waitForTimeout(3_500);
    expect(secrets.load()).toBe(damaged);
    expect(secrets.asides).toEqual([]);
    await browser.shot('unreadable');

    // Asked for, after a confirmation: the damaged value kept aside, a new key, the room's words.
    await page.getByTestId('relay-new-key').click();
    await page.getByTestId('relay-new-key-confirm').waitFor();
    await page.getByTestId('relay-new-key-yes').click();
    const done = page.getByTestId('relay-new-key-done');
    await done.waitFor({ timeout: 30_000 });
    const words = (await done.textContent()) ?? '';
    expect(words).toMatch(/^This desk has a new relay key \(device [0-9a-f]{32}\)\. The unreadable value is kept aside: copy 1 in this desk process's memory/);
    expect(words).toContain("Operations: the room of Operations knows this desk by its old relay key: ask its treasurer to remove this desk's old device and invite it again");
    expect(secrets.asides).toEqual([damaged]);
    expect(secrets.load()).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets.load()).not.toBe(kept);
    await page.getByTestId('relay-join').waitFor();
    // The room says why it refuses this desk now, read after read (the page syncs every 3 s), until it joins again.
    await page.waitForTimeout(3_500);
    expect(await page.getByTestId('relay-rooms').getByRole('alert').textContent()).toBe("the room of Operations knows this desk by its old relay key: ask its treasurer to remove this desk's old device and invite it again (Rotate key gives the invitation)");
    await browser.shot('new-key');

    // The treasurer invites the desk again; it joins the same room with the new key and is admitted.
    const again = await invite(client, treasurer);
    await joinOnScreen(again.code);
    await admit(client, treasurer, [again]);
    await page.reload();
    await page.getByTestId('relay-rooms').waitFor();
    await expect.poll(async () => (await page.getByTestId('relay-rooms').getByRole('alert').count()) + (await page.getByTestId('relay-key-problem').count()), { timeout: 30_000 }).toBe(0);
    expect(await page.getByTestId('relay-rooms').textContent()).toMatch(/Operations \(cosigner\): .*bob/);
    await browser.shot('joined-again');
  }, 180_000);
});
