// Issue 33, point 4: in watch mode one tenant's work must not take the others offline. Two API keys
// on litecoind -regtest, the node's block reads slowed by a proxy (dev/chains/slow-rpc.ts) so that
// a scan is seen in progress. While tenant B's wallet is scanned from block 0, tenant A's addresses,
// its multi_sig/create and /readyz answer 200 throughout, and B's own addresses answer 503 (or
// provisional figures to a client taking them) until B's scan is done. A wallet's scanned_height
// only moves forward during a scan and across new blocks, a ready wallet stays ready while new
// blocks are applied, and a rescan is a new scan (its number), not a lowered height. /status says
// each coin's index mode. A service restarted mid-scan starts the scan over and holds up nobody
// meanwhile. Needs litecoind (fails, naming it, when absent).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { startSlowRpc, type SlowRpc } from '../../dev/chains/slow-rpc.ts';
import { parseApiJson } from '../../shared/api/json.ts';
import type { Status, WatchStatus } from '../../shared/api/schemas.ts';
import { bytesToHex } from '../../shared/coins/index.ts';
import { createService, type Service } from '../service.ts';
import { createApiKey } from '../store/api-keys.ts';
import { startTestService, type TestService } from '../test/http-service.ts';
import { until } from '../test/until.ts';
import { testVault } from '../test/watch-vault.ts';

const COIN = 100_000_000n;
const A = testVault('tenants a');
const B = testVault('tenants b');
// Block reads (filters and blocks) held this long each while a scan is to be watched in progress.
const SLOW_MS = 120;

let node: RegtestNode;
let proxy: SlowRpc;
let t: TestService;
let keyA: string;
let keyB: string;

async function ask(key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await t.service.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, headers: res.headers, json: res.body ? (parseApiJson(res.body) as Record<string, unknown>) : {} };
}

/** An answer's body for a failure message (amounts are bigints). */
const said = (json: unknown): string => JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

const status = async (key: string, wallet: string): Promise<WatchStatus> => {
  const res = await ask(key, 'GET', `/v2/watch/litecoin/${wallet}`);
  expect(res.status).toBe(200);
  return res.json as unknown as WatchStatus;
};
const balanceOf = (key: string, address: string, headers?: Record<string, string>) => ask(key, 'GET', `/v2/address/balance/litecoin/${address}`, undefined, headers);

/** A's payment from its address 0 (sortedmulti 2-of-3, P2WSH), built and not sent. */
const createForA = async (to: string) =>
  ask(keyA, 'POST', '/v2/multi_sig/create/litecoin', {
    number_of_required_signatures: 2,
    amount: Number(COIN / 2n),
    to,
    redeem_scripts: [{ public_keys: A.address(false, 0).publicKeys.map(bytesToHex), script_type: 'p2wsh', sort_keys: true }],
  });

/** Heights sampled from a status in order: never lower than the one before (null before the first). */
function forwardOnly(): (what: string, height: number | null) => void {
  let last = -1;
  return (what, height) => {
    const h = height ?? -1;
    expect(h, `${what}: scanned_height went back from ${last} to ${h}`).toBeGreaterThanOrEqual(last);
    last = h;
  };
}

let birthdayA = 0;
let payee = '';

beforeAll(async () => {
  node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
  proxy = await startSlowRpc(node.rpcConfig.url, 0);
  const watched = { ...nodeRpcBackendConfig(node, 50), url: proxy.url, index: 'watch' as const };
  t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: watched }, dash: { network: 'regtest', backend: nodeRpcBackendConfig(node, 100) } } });
  keyA = t.apiKey;
  keyB = (await createApiKey(t.service.store, 'tenant B')).key;
  t.service.startIndexers();
  payee = await node.newAddress('bech32');
  // B's coins are old: paid before A's wallet, read by B's scan from block 0.
  await node.rpc.call('sendtoaddress', [B.address(false, 2).address, 1.5]);
  await node.mine(1);
  birthdayA = (await node.rpc.call<number>('getblockcount')) + 1;
  const put = await ask(keyA, 'PUT', '/v2/watch/litecoin/a', { descriptors: [A.descriptor()], birthday_height: birthdayA });
  expect(put.status).toBe(200);
  await node.rpc.call('sendtoaddress', [A.address(false, 0).address, 2]);
  await node.mine(1);
  const tip = await node.rpc.call<number>('getblockcount');
  await until('tenant A ready', async () => {
    const s = await status(keyA, 'a');
    return s.state === 'ready' && s.scanned_height === tip;
  });
  // and the service ready as a whole: dash's full index has caught up too (the tests say /readyz stays 200)
  await until('the service ready', async () => (await t.service.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200);
}, 180_000);

afterAll(async () => {
  await t?.dispose();
  await proxy?.close();
  await node?.stop();
});

describe('watch mode with two API keys', () => {
  it("tenant B's scan from block 0 holds up only B: A's addresses, multi_sig/create and /readyz answer 200 throughout", async () => {
    expect((await balanceOf(keyA, A.address(false, 0).address)).json).toMatchObject({ balance: 2n * COIN });
    proxy.delayMs = SLOW_MS;
    const put = await ask(keyB, 'PUT', '/v2/watch/litecoin/b', { descriptors: [B.descriptor()], birthday_height: 0 });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ state: 'scanning', scan: 1, scan_from: 0 });

    const bForward = forwardOnly();
    const aForward = forwardOnly();
    let seenScanning = 0;
    const seenHeights = new Set<number>();
    let mined = false;
    // Figures for the record (printed, not asserted): how long B's scan took and how A was answered meanwhile.
    const started = Date.now();
    const aTimes: number[] = [];
    for (const deadline = Date.now() + 150_000; ; ) {
      expect(Date.now() < deadline, "tenant B's scan did not end").toBe(true);
      const sB = await status(keyB, 'b');
      bForward('B', sB.scanned_height);
      // A, throughout: its balance, a payment built from its coins, and the service ready.
      const asked = Date.now();
      const a = await balanceOf(keyA, A.address(false, 0).address);
      aTimes.push(Date.now() - asked);
      expect(a.status, said(a.json)).toBe(200);
      expect(a.json).toMatchObject({ balance: 2n * COIN });
      const created = await createForA(payee);
      expect(created.status, said(created.json)).toBe(200);
      const ready = await t.service.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(200);
      const sA = await status(keyA, 'a');
      expect(sA.state, said(sA)).toBe('ready');
      aForward('A', sA.scanned_height);
      if (sB.state === 'ready') break;
      expect(sB.state).toBe('scanning');
      seenScanning++;
      if (sB.scanned_height !== null) seenHeights.add(sB.scanned_height);
      // B's own address: 503 in words while its scan runs (unless it ended in between).
      const b = await balanceOf(keyB, B.address(false, 2).address);
      if (b.status !== 200) {
        expect(b.status).toBe(503);
        expect(b.headers['retry-after']).toBeDefined();
        expect(String(b.json.message)).toMatch(/wallet "b" is still being scanned .* other wallets are not held up/);
        // The desk takes provisional figures: answered, marked, from what the scan has read so far.
        const provisional = await balanceOf(keyB, B.address(false, 2).address, { 'x-countersign-accept-provisional': '1' });
        expect(provisional.status).toBe(200);
        expect(provisional.headers['x-countersign-provisional']).toBe('true');
      } else {
        // Answered once its scan is in the shared index (the check against the node's UTXO set may still be to come).
        expect((await status(keyB, 'b')).scan_from).toBeNull();
      }
      // A new block in the middle of B's scan: A follows it, B's height still only moves forward.
      if (!mined && seenScanning >= 3) {
        await node.mine(1);
        mined = true;
      }
    }
    aTimes.sort((x, y) => x - y);
    console.log(
      `B's scan from block 0: ${Date.now() - started} ms with block reads held ${SLOW_MS} ms; A's balance answered 200 ${aTimes.length} times meanwhile (median ${aTimes[aTimes.length >> 1]} ms, slowest ${aTimes.at(-1)} ms); B seen scanning ${seenScanning} times at ${seenHeights.size} heights`,
    );
    // The scan was seen under way, reading block after block.
    expect(seenScanning).toBeGreaterThanOrEqual(3);
    expect(seenHeights.size).toBeGreaterThanOrEqual(2);
    expect(mined).toBe(true);
    const b = await balanceOf(keyB, B.address(false, 2).address);
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ balance: (3n * COIN) / 2n });
    expect(b.headers['x-countersign-provisional']).toBeUndefined();
    expect((await balanceOf(keyA, A.address(false, 0).address)).json).toMatchObject({ balance: 2n * COIN });
  }, 240_000);

  it('a ready wallet stays ready while new blocks are applied, its scanned_height only moving forward', async () => {
    proxy.delayMs = SLOW_MS;
    const forward = { a: forwardOnly(), b: forwardOnly() };
    for (let round = 0; round < 3; round++) {
      await node.mine(1);
      const tip = await node.rpc.call<number>('getblockcount');
      await until(`both wallets at block ${tip}`, async () => {
        const [sA, sB] = [await status(keyA, 'a'), await status(keyB, 'b')];
        expect(sA.state).toBe('ready');
        expect(sB.state).toBe('ready');
        forward.a('A', sA.scanned_height);
        forward.b('B', sB.scanned_height);
        return sA.scanned_height === tip && sB.scanned_height === tip;
      }, { everyMs: 20, deadlineMs: 60_000 });
    }
  }, 120_000);

  it("a rescan of A is A's new scan: A's addresses answer 503 until it ends, B's and /readyz 200 throughout", async () => {
    proxy.delayMs = SLOW_MS;
    const before = await status(keyA, 'a');
    const scan = before.scan ?? 0;
    const rescan = await ask(keyA, 'POST', '/v2/watch/litecoin/a/rescan', { from_height: birthdayA });
    expect(rescan.status).toBe(200);
    // A new scan, said by its number: its height starts over, it is not a height gone back.
    expect(rescan.json).toMatchObject({ state: 'scanning', scan: scan + 1, scan_from: birthdayA });
    const forward = forwardOnly();
    let refused = 0;
    await until('A rescanned', async () => {
      const b = await balanceOf(keyB, B.address(false, 2).address);
      expect(b.status, said(b.json)).toBe(200);
      expect((await t.service.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      const sA = await status(keyA, 'a');
      forward('A', sA.scanned_height);
      if (sA.state === 'ready') return true;
      if ((await balanceOf(keyA, A.address(false, 0).address)).status === 503) refused++;
      return false;
    }, { everyMs: 20, deadlineMs: 150_000 });
    expect(refused).toBeGreaterThan(0);
    expect((await balanceOf(keyA, A.address(false, 0).address)).json).toMatchObject({ balance: 2n * COIN });
    expect(await status(keyA, 'a')).toMatchObject({ state: 'ready', scan: scan + 1, scan_from: null });
  }, 240_000);

  it("/status says each coin's index mode, and how many wallets a watch index is still scanning", async () => {
    const res = await ask(keyA, 'GET', '/status');
    const coins = (res.json as unknown as Status).coins;
    expect(coins.find((c) => c.coin === 'litecoin')).toMatchObject({ index: 'watch', watch_scans: 0 });
    expect(coins.find((c) => c.coin === 'dash')).toMatchObject({ index: 'full' });
    expect(coins.find((c) => c.coin === 'dash')).not.toHaveProperty('watch_scans');
  });
});

describe('a service restarted in the middle of a scan', () => {
  let dir = '';
  let running: Service | null = null;
  afterAll(async () => {
    await running?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts the scan over: the wallet that follows the tip answers at once, the scanned one once its scan ends', async () => {
    dir = mkdtempSync(join(tmpdir(), 'countersign-watch-restart-'));
    const config = { database: { sqlite: join(dir, 'service.sqlite') }, coins: { litecoin: { network: 'regtest' as const, backend: { ...nodeRpcBackendConfig(node, 50), url: proxy.url, index: 'watch' as const } } } };
    const start = async () => {
      const s = await createService(config, { logger: pino({ level: process.env.COUNTERSIGN_TEST_LOG ?? 'silent' }) });
      s.startIndexers();
      return s;
    };
    const get = async (s: Service, key: string, url: string) => {
      const res = await s.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      return { status: res.statusCode, json: parseApiJson(res.body) as Record<string, unknown> };
    };
    proxy.delayMs = 0;
    running = await start();
    const key = (await createApiKey(running.store, 'restart')).key;
    const put = (wallet: string, vault: typeof A, birthday: number) =>
      running!.app.inject({ method: 'PUT', url: `/v2/watch/litecoin/${wallet}`, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify({ descriptors: [vault.descriptor()], birthday_height: birthday }) });
    expect((await put('a', A, birthdayA)).statusCode).toBe(200);
    await until('A ready', async () => (await get(running!, key, '/v2/watch/litecoin/a')).json.state === 'ready');

    proxy.delayMs = SLOW_MS;
    expect((await put('b', B, 0)).statusCode).toBe(200);
    await until("B's scan under way", async () => ((await get(running!, key, '/v2/watch/litecoin/b')).json.scanned_height as number | null) !== null);
    await running.close();
    running = await start();

    // At once: A from the shared index (untouched by the scan), B still scanning, the same scan.
    const a = await get(running, key, `/v2/address/balance/litecoin/${A.address(false, 0).address}`);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ balance: 2n * COIN });
    expect((await get(running, key, '/v2/watch/litecoin/b')).json).toMatchObject({ state: 'scanning', scan: 1, scan_from: 0 });
    expect((await get(running, key, `/v2/address/balance/litecoin/${B.address(false, 2).address}`)).status).toBe(503);
    await until('B scanned after the restart', async () => (await get(running!, key, '/v2/watch/litecoin/b')).json.state === 'ready', { deadlineMs: 120_000 });
    expect((await get(running, key, `/v2/address/balance/litecoin/${B.address(false, 2).address}`)).json).toMatchObject({ balance: (3n * COIN) / 2n });
  }, 240_000);
});
