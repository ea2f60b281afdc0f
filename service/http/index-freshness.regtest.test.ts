// Answers from an index still catching up with its node, on litecoind -regtest: a node with a few
// hundred blocks mined before the service starts, requests made while the first sync is under way.
// The index of a few hundred regtest blocks is written in one batch, too fast to catch, so the test
// uses the indexer's test-only knobs (testKnobs): batches of 50 transactions (here 50 blocks), and
// a pause before the second batch's write, released by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p2pkhAddressOfPublicKey } from '../../shared/coins/address.ts';
import { ApiClient } from '../../shared/api/client.ts';
import { testKey } from '../test/keys.ts';
import { startRegtestService, type RegtestService } from '../test/regtest-service.ts';
import { until } from '../test/until.ts';

const alice = testKey('freshness alice');
let t: RegtestService;
let address: string;
let release: () => void = () => {};
let paused = false;
let syncing: Promise<void>;
let tip: number;

beforeAll(async () => {
  t = await startRegtestService(['litecoin'], { config: { readiness: { maxLagBlocks: 3 } } });
  await t.node.mine(300);
  tip = await t.node.rpc.call<number>('getblockcount');
  address = p2pkhAddressOfPublicKey(t.backend('litecoin').params, alice.publicKey);
  const indexer = t.backend('litecoin').indexer;
  indexer.testKnobs.batchTxs = 50;
  let batches = 0;
  const gate = new Promise<void>((resolve) => (release = resolve));
  indexer.testKnobs.beforeBatchWrite = async () => {
    if (++batches !== 2) return;
    paused = true;
    await gate;
  };
  syncing = indexer.sync();
  await until('the first sync to pause after its first batch', () => paused);
});
afterAll(async () => {
  release();
  await t?.dispose();
});

const get = (url: string, headers: Record<string, string> = {}) => t.service.app.inject({ method: 'GET', url, headers: { 'x-api-key': t.apiKey, ...headers } });

describe('an index that lags its node', () => {
  it('answers the address endpoints with 503, Retry-After and both heights', async () => {
    const indexed = (await t.service.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': t.apiKey } })).json<{ coins: { indexed_height: number }[] }>().coins[0]!.indexed_height;
    expect(indexed).toBeLessThan(tip - 3);
    const message = `the litecoin index is at ${indexed.toLocaleString('en-US')} of ${tip.toLocaleString('en-US')} blocks; try again later`;
    for (const url of [`/address/balance/litecoin/${address}`, `/v2/address/balances/litecoin/${address}`, `/address/history/litecoin/${address}`, `/address/utxos/litecoin/${address}`, `/v1/address/utxo/litecoin/${address}`]) {
      const res = await get(url);
      expect([url, res.statusCode, res.headers['retry-after'], res.json<{ message: string }>().message]).toEqual([url, 503, '10', message]);
    }
    const create = await t.service.app.inject({ method: 'POST', url: `/transaction/create/litecoin?to=${address}&from=${alice.publicKeyHex}&amount=1000`, headers: { 'x-api-key': t.apiKey } });
    expect([create.statusCode, create.json<{ message: string }>().message]).toEqual([503, message]);
    // A payment is never built from a lagging index, even for a client that shows provisional figures.
    const provisionalCreate = await t.service.app.inject({
      method: 'POST',
      url: `/transaction/create/litecoin?to=${address}&from=${alice.publicKeyHex}&amount=1000`,
      headers: { 'x-api-key': t.apiKey, 'x-countersign-accept-provisional': '1' },
    });
    expect([provisionalCreate.statusCode, provisionalCreate.json<{ message: string }>().message]).toEqual([503, message]);
    // what does not read the index answers as usual
    expect((await get('/status')).statusCode).toBe(200);
  });

  it('gives the answer marked provisional to a client that accepts it', async () => {
    const res = await get(`/address/balance/litecoin/${address}`, { 'x-countersign-accept-provisional': '1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-countersign-provisional']).toBe('true');
    expect(Number(res.headers['x-countersign-indexed-height'])).toBeLessThan(tip - 3);
    expect(res.headers['x-countersign-node-height']).toBe(String(tip));
    // the desk's client sends the header when asked to
    const fetchViaInject: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      const r = await t.service.app.inject({ method: 'GET', url: url.pathname + url.search, headers: init?.headers as Record<string, string> });
      return new Response(r.body, { status: r.statusCode });
    };
    const client = (acceptProvisional: boolean) => new ApiClient({ baseUrl: 'http://127.0.0.1', apiKey: t.apiKey, fetch: fetchViaInject, acceptProvisional });
    await expect(client(false).balance('litecoin', address)).rejects.toMatchObject({ status: 503 });
    await expect(client(true).balance('litecoin', address)).resolves.toMatchObject({ balance: 0n });
  });

  it('answers as usual, unmarked, once the index has caught up', async () => {
    release();
    await syncing;
    const res = await get(`/address/balance/litecoin/${address}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-countersign-provisional']).toBeUndefined();
  });
});
