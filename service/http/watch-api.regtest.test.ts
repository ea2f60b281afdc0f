// The watch API over HTTP (docs/api-decisions.md section 11): a vault registered by one API key is
// scanned and answered; bad descriptors, unregistered addresses, another key's wallet and a coin
// on the full index each get their 4xx in words. A registration belongs to the key that made it:
// another key asking for its addresses gets the words of an address nobody registered, until it
// registers the wallet itself. Without keys (a local service) registrations and queries just work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode } from '../../dev/chains/litecoind.ts';
import type { NodeRpcBackend } from '../chains/utxo/node-rpc-backend.ts';
import { createApiKey } from '../store/api-keys.ts';
import { startTestService, type TestService } from '../test/http-service.ts';
import { testKey } from '../test/keys.ts';
import { testVault } from '../test/watch-vault.ts';

const vault = testVault('watch api', 'p2sh-p2wsh');
const RECEIVE = vault.descriptor('/0/*');
const CHANGE = vault.descriptor('/1/*');
const address = (index: number) => vault.address(false, index).address;
// Other keys: not the wallet the receive descriptor names.
const OTHER_CHANGE = testVault('watch api other', 'p2sh-p2wsh').descriptor('/1/*');

describe('the watch API', () => {
  let node: RegtestNode;
  let t: TestService;
  let otherKey: string;

  beforeAll(async () => {
    node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
    const backend = nodeRpcBackendConfig(node, 100);
    t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: { ...backend, index: 'watch' } }, dash: { network: 'regtest', backend } } });
    otherKey = (await createApiKey(t.service.store, 'another desk')).key;
  }, 120_000);
  afterAll(async () => {
    await t?.dispose();
    await node?.stop();
  });

  const synced = () => (t.service.backends.get('litecoin') as NodeRpcBackend).indexer.sync();

  it('registers a vault by receive and change descriptors and answers its addresses once scanned', async () => {
    const birthday = (await node.rpc.call<number>('getblockcount')) + 1;
    const put = await t.request('PUT', '/v2/watch/litecoin/treasury', { descriptors: [RECEIVE, CHANGE], birthday_height: birthday });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ birthday_height: birthday, state: 'scanning' });
    await node.rpc.call('sendtoaddress', [address(3), 2.5]);
    await node.mine(1);
    await synced();
    const status = await t.request('GET', '/v2/watch/litecoin/treasury');
    // Using address 3 derived up to 23 (the gap limit), and the blocks were read again for the new
    // scripts: the counts are of that scan, which fetched the vault's one block once.
    expect(status.json).toMatchObject({ state: 'ready', filters: true, blocks_fetched: 1, blocks_matched: 1, scanned_height: birthday, watched: { receive: 24, change: 20 } });
    const balance = await t.request('GET', `/v2/address/balance/litecoin/${address(3)}`);
    expect(balance.status).toBe(200);
    expect(balance.json).toMatchObject({ balance: 250_000_000n });

    const rescan = await t.request('POST', '/v2/watch/litecoin/treasury/rescan', { from_height: birthday });
    expect(rescan.status).toBe(200);
    await synced();
    expect((await t.request('GET', '/v2/watch/litecoin/treasury')).json).toMatchObject({ state: 'ready', blocks_fetched: 1 });
  }, 120_000);

  it('refuses in words: an address nobody registered, a taproot descriptor, another key\'s wallet, a coin on the full index', async () => {
    const stranger = await t.request('GET', `/v2/address/balance/litecoin/${await node.newAddress('bech32')}`);
    expect(stranger.status).toBe(404);
    expect(JSON.stringify(stranger.json)).toMatch(/belongs to no wallet this service watches/);

    const taproot = await t.request('PUT', '/v2/watch/litecoin/tr', { descriptors: [RECEIVE.replace(/^sh\(wsh\(sortedmulti\(2,/, 'tr(').replace(/#.*$/, '')], birthday_height: null });
    expect(taproot.status).toBe(400);
    expect(JSON.stringify(taproot.json)).toMatch(/taproot/);

    const mixed = await t.request('PUT', '/v2/watch/litecoin/mixed', { descriptors: [RECEIVE, OTHER_CHANGE], birthday_height: 0 });
    expect(mixed.status).toBe(400);

    const theirs = await t.service.app.inject({ method: 'GET', url: '/v2/watch/litecoin/treasury', headers: { 'x-api-key': otherKey } });
    expect(theirs.statusCode).toBe(404);
    expect(JSON.parse(theirs.body)).toMatchObject({ message: expect.stringMatching(/no wallet "treasury" is registered by this API key/) });

    const full = await t.request('PUT', '/v2/watch/dash/treasury', { descriptors: [RECEIVE], birthday_height: 0 });
    expect(full.status).toBe(409);
    expect(JSON.stringify(full.json)).toMatch(/full address index/);
  }, 60_000);

  it("answers a vault's addresses only to the key that registered it: another key gets the words of an unwatched address", async () => {
    const ask = (key: string, url: string) => t.service.app.inject({ method: url.includes('/create/') ? 'POST' : 'GET', url, headers: { 'x-api-key': key } });
    const words = (body: string, addr: string) => (JSON.parse(body) as { message: string }).message.replace(addr, '<address>');
    const mine = address(3);
    const nobodys = await node.newAddress('bech32');
    expect((await ask(t.apiKey, `/v2/address/balance/litecoin/${mine}`)).statusCode).toBe(200);
    const unwatched = await ask(otherKey, `/v2/address/balance/litecoin/${nobodys}`);
    expect(unwatched.statusCode).toBe(404);
    for (const url of [`/v2/address/balance/litecoin/${mine}`, `/v2/address/balances/litecoin/${mine}`, `/v2/address/history/litecoin/${mine}`, `/v2/address/utxos/litecoin/${mine}`, `/v1/address/history/litecoin/${mine}`, `/v1/address/balance/litecoin/${mine}`, `/v1/address/utxo/litecoin/${mine}`]) {
      const theirs = await ask(otherKey, url);
      expect(theirs.statusCode, url).toBe(404);
      // Word for word what an address nobody registered gets: nothing tells the key the wallet exists.
      expect(words(theirs.body, mine), url).toBe(words(unwatched.body, nobodys));
      expect(words(theirs.body, mine)).toMatch(/belongs to no wallet this service watches for this API key/);
    }
    // Building a payment reads unspent outputs through the same check.
    const payer = testKey('watch api payer').publicKeyHex;
    const spend = await ask(otherKey, `/v2/transaction/create/litecoin?from=${payer}&to=${nobodys}&amount=1000`);
    expect(spend.statusCode).toBe(404);
    expect(spend.body).toMatch(/belongs to no wallet this service watches for this API key/);
    // Once the other key registers the same wallet itself, it is answered too; the first key still is.
    const put = await t.service.app.inject({
      method: 'PUT',
      url: '/v2/watch/litecoin/treasury',
      headers: { 'x-api-key': otherKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ descriptors: [RECEIVE, CHANGE], birthday_height: 0 }),
    });
    expect(put.statusCode).toBe(200);
    await synced();
    const now = await ask(otherKey, `/v2/address/balance/litecoin/${mine}`);
    expect(now.statusCode).toBe(200);
    expect(JSON.parse(now.body)).toMatchObject({ balance: 250_000_000 });
    expect((await ask(t.apiKey, `/v2/address/balance/litecoin/${mine}`)).statusCode).toBe(200);
  }, 60_000);
});

describe('the watch API without API keys (a local service)', () => {
  let node: RegtestNode;
  let t: TestService;

  beforeAll(async () => {
    node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
    t = await startTestService({ auth: { required: false }, coins: { litecoin: { network: 'regtest', backend: { ...nodeRpcBackendConfig(node, 100), index: 'watch' } } } });
  }, 120_000);
  afterAll(async () => {
    await t?.dispose();
    await node?.stop();
  });

  it('registers and answers with no key at all', async () => {
    const ask = (method: 'GET' | 'PUT', url: string, body?: unknown) =>
      t.service.app.inject({ method, url, ...(body ? { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) } : {}) });
    const birthday = (await node.rpc.call<number>('getblockcount')) + 1;
    expect((await ask('PUT', '/v2/watch/litecoin/local', { descriptors: [RECEIVE, CHANGE], birthday_height: birthday })).statusCode).toBe(200);
    await node.rpc.call('sendtoaddress', [address(1), 1.25]);
    await node.mine(1);
    await (t.service.backends.get('litecoin') as NodeRpcBackend).indexer.sync();
    const balance = await ask('GET', `/v2/address/balance/litecoin/${address(1)}`);
    expect(balance.statusCode).toBe(200);
    expect(JSON.parse(balance.body)).toMatchObject({ balance: 125_000_000 });
    const stranger = await ask('GET', `/v2/address/balance/litecoin/${await node.newAddress('bech32')}`);
    expect(stranger.statusCode).toBe(404);
    expect(stranger.body).toMatch(/belongs to no wallet this service watches:/);
  }, 120_000);
});
