// "Test connection" against real litecoind -regtest nodes: one writing its cookie and keeping block
// filters, one without filters; the mistakes a treasurer makes each refused at its field. And the
// height_at extension over the service, on a chain whose block times are set one per ten minutes.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLitecoind, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { heightAt } from './block-times.ts';
import { probeChain } from './probe.ts';
import { startRegtestService, type RegtestService } from '../test/regtest-service.ts';

let filtered: RegtestNode;
let plain: RegtestNode;
const cookieOf = (node: RegtestNode) => join(node.datadir, 'regtest', '.cookie');

beforeAll(async () => {
  [filtered, plain] = await Promise.all([startLitecoind({ cookie: true, extraArgs: ['-blockfilterindex=1'] }), startLitecoind()]);
  await filtered.mine(5);
}, 120_000);

afterAll(async () => {
  await Promise.all([filtered?.stop(), plain?.stop()]);
});

describe('probeChain over a node', () => {
  it('reads what answered through the cookie file: chain, height, not pruned, block filters on', async () => {
    const r = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: filtered.rpcConfig.url, cookieFile: cookieOf(filtered) } });
    expect(r).toMatchObject({ ok: true, answer: { kind: 'node-rpc', chain: 'regtest', network: 'regtest', height: 5, pruned: false, blockFilters: true } });
    if (r.ok) {
      expect(r.answer.software).toMatch(/LitecoinCore/);
      // Litecoin Core 0.21 does not say whether it relays replacements: unknown, and said so.
      expect(r.answer.relaysReplacements).toBeNull();
      expect(r.answer.notes.join(' ')).toMatch(/-mempoolreplacement=1/);
    }
  });

  it('says when the node keeps no block filters (user and password)', async () => {
    const r = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: plain.rpcConfig.url, username: plain.rpcConfig.username, password: plain.rpcConfig.password } });
    expect(r).toMatchObject({ ok: true, answer: { blockFilters: false } });
    if (r.ok) expect(r.answer.notes.join(' ')).toMatch(/no block filters.*reading every block from its birthday/);
  });

  it("refuses another coin's node by its block 0, unless the operator names that block 0", async () => {
    const backend = { type: 'node-rpc' as const, url: plain.rpcConfig.url, username: plain.rpcConfig.username, password: plain.rpcConfig.password };
    expect(await probeChain('dash', { network: 'regtest', backend })).toEqual({
      ok: false,
      field: 'network',
      message: `the node at ${plain.rpcConfig.url} is on litecoin regtest, but this coin is configured for regtest: connect a dash regtest node`,
    });
    const genesis = await plain.rpc.call<string>('getblockhash', [0]);
    expect(await probeChain('dash', { network: 'regtest', backend: { ...backend, genesis } })).toMatchObject({ ok: true, answer: { chain: 'regtest' } });
  });

  it('refuses a node of another network at the network field', async () => {
    const r = await probeChain('litecoin', { network: 'mainnet', backend: { type: 'node-rpc', url: filtered.rpcConfig.url, cookieFile: cookieOf(filtered) } });
    // Says what the node serves, what was chosen, and both ways out (issue 32: it read "serves the regtest chain, not litecoin").
    expect(r).toEqual({ ok: false, field: 'network', message: `the node at ${filtered.rpcConfig.url} is on regtest, but this coin is configured for mainnet: connect a litecoin mainnet node, or choose regtest` });
  });

  it('refuses a wrong password at the password field, and never repeats it', async () => {
    const r = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: plain.rpcConfig.url, username: plain.rpcConfig.username, password: 'hunter2-typo' } });
    expect(r).toMatchObject({ ok: false, field: 'password', message: expect.stringMatching(/refused this user and password/) });
    expect(JSON.stringify(r)).not.toContain('hunter2-typo');
  });

  it('refuses a cookie file that is not there at the cookie field', async () => {
    const r = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: filtered.rpcConfig.url, cookieFile: join(filtered.datadir, '.cookie') } });
    expect(r).toMatchObject({ ok: false, field: 'cookieFile', message: expect.stringMatching(/cannot be read: is it the node's \.cookie/) });
  });

  it("refuses another node's cookie at the cookie field", async () => {
    const r = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: plain.rpcConfig.url, cookieFile: cookieOf(filtered) } });
    expect(r).toMatchObject({ ok: false, field: 'cookieFile', message: expect.stringMatching(/refused the cookie/) });
  });

  it('refuses an address where nothing answers, and one that is no URL, at the URL field', async () => {
    const closed = new URL(plain.rpcConfig.url);
    closed.port = String(plain.p2pPort); // reserved for the node, never listening (-listen=0)
    const r = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: closed.href, cookieFile: cookieOf(filtered) } });
    expect(r).toMatchObject({ ok: false, field: 'url', message: expect.stringMatching(/nothing answers at http:\/\/127\.0\.0\.1:\d+\/: check the address and port/) });
    const notUrl = await probeChain('litecoin', { network: 'regtest', backend: { type: 'node-rpc', url: '127.0.0.1:9332' } });
    expect(notUrl).toMatchObject({ ok: false, field: 'url', message: expect.stringMatching(/backend.url must be the node RPC URL/) });
  });
});

describe('GET /blocks/{coin}/height_at/{unix_time}', () => {
  let t: RegtestService;
  const T0 = 1_800_000_000;
  let base = 0;

  beforeAll(async () => {
    t = await startRegtestService(['litecoin']);
    // One block every 600 s from T0: block times are ours to know (setmocktime).
    base = await t.node.rpc.call<number>('getblockcount');
    for (let i = 1; i <= 30; i++) {
      await t.node.rpc.call('setmocktime', [T0 + 600 * i]);
      await t.node.mine(1);
    }
  }, 120_000);

  afterAll(async () => {
    await t?.dispose();
  });

  const ask = async (time: string | number) => t.request('GET', `/blocks/litecoin/height_at/${time}`);

  it('answers the first block whose median time past is at or after the time', async () => {
    // Median time past of block base+k (k >= 11) is the time of block base+k-5: T0 + 600 (k - 5).
    const at = T0 + 600 * 15;
    const res = await ask(at);
    expect(res.status).toBe(200);
    const body = res.json as { height: number; median_time: number; block_hash: string; tip_height: number };
    expect(body).toMatchObject({ coin: 'litecoin', time: at, height: base + 20, median_time: at, tip_height: base + 30 });
    // the block before it is earlier, so this is the first
    const before = await t.node.rpc.call<{ mediantime: number }>('getblockheader', [await t.node.rpc.call<string>('getblockhash', [body.height - 1])]);
    expect(before.mediantime).toBeLessThan(at);
    expect(body.block_hash).toBe(await t.node.rpc.call<string>('getblockhash', [base + 20]));
    // one second later: the next block
    expect(((await ask(at + 1)).json as { height: number }).height).toBe(base + 21);
  });

  it('answers the next block for a time after the tip, and block 0 for a time before the chain', async () => {
    expect((await ask(T0 + 600 * 1000)).json).toMatchObject({ height: base + 31, block_hash: null, median_time: null });
    expect(((await ask(1_250_000_000)).json as { height: number }).height).toBe(0);
  });

  it('refuses a time that is not a time, and an unserved coin, in words', async () => {
    const bad = await ask('yesterday');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toMatch(/unix_time is a whole number of seconds since 1970/);
    expect((await ask(1_000)).status).toBe(400);
    const unserved = await t.request('GET', `/blocks/dash/height_at/${T0}`);
    expect(unserved.status).toBe(404);
  });

  it('takes about 2 log2(tip) questions (the pure search, counted)', async () => {
    let asked = 0;
    const times = { tipHeight: async () => 1_000_000, medianTimeAt: async (h: number) => (asked++, { medianTime: h * 10, hash: String(h) }) };
    expect((await heightAt(times, 5_000_001)).height).toBe(500_001);
    expect(asked).toBeLessThanOrEqual(22);
  });
});
