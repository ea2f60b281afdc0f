// usd_balance from live price sources on a real service over litecoind -regtest: a CoinGecko-shaped
// and a Blockbook-shaped local server feed the rate; when the source is down, times out or answers
// garbage, balances are still served (200) with usd_balance 0, in v2 and v1.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, p2pkhAddressOfPublicKey } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode } from '../../dev/chains/litecoind.ts';
import type { ServiceConfigInput } from '../config.ts';
import { startTestService, type TestService } from '../test/http-service.ts';
import { testKey } from '../test/keys.ts';

const params = chainParams('litecoin', 'regtest');
const alice = p2pkhAddressOfPublicKey(params, testKey('usd alice').publicKey);

type Mode = 'ok' | 'garbage' | 'error' | 'hang';
let mode: Mode = 'ok';
let hits = 0;
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  hits++;
  const reply = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (mode === 'hang') return;
  if (mode === 'garbage') return void res.writeHead(200).end('<html>maintenance</html>');
  if (mode === 'error') return void res.writeHead(500).end('{"error":"internal"}');
  if (req.url?.startsWith('/api/v3/simple/price')) return reply({ litecoin: { usd: 84.5 } });
  if (req.url?.startsWith('/api/v2/tickers/')) return reply({ ts: 1574346615, rates: { usd: 71.25 } });
  res.writeHead(404).end();
});

let node: RegtestNode;
let base: string;
const services: TestService[] = [];

async function serviceWith(prices: ServiceConfigInput['prices'], v1Open = true): Promise<TestService> {
  const t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: nodeRpcBackendConfig(node, 100) } }, prices, auth: { required: true, v1Open } });
  services.push(t);
  t.service.startIndexers();
  return t;
}

async function balance(t: TestService, prefix = '') {
  const res = await t.service.app.inject({ method: 'GET', url: `${prefix}/address/balance/litecoin/${alice}`, headers: { 'x-api-key': t.apiKey } });
  return { status: res.statusCode, body: JSON.parse(res.body) as { usd_balance: number; human_balance: number } };
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node = await fundedNode();
  await node.fundScript(addressToScript(params, alice), 2n * 100_000_000n);
  await node.mine(1);
});

afterAll(async () => {
  for (const t of services) await t.dispose();
  await node?.stop();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function settled(t: TestService) {
  // the index has the funding block once the balance shows it
  for (let i = 0; i < 600; i++) {
    const b = await balance(t);
    if (b.body.human_balance === 2) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the index never caught up with the node');
}

describe('usd_balance from a live price source', () => {
  it('CoinGecko: human_balance x rate, the upstream asked once per TTL', async () => {
    mode = 'ok';
    const t = await serviceWith({ source: 'coingecko', url: `${base}/api/v3`, ttlSeconds: 3600 });
    await settled(t);
    const before = hits;
    expect(await balance(t)).toEqual({ status: 200, body: expect.objectContaining({ usd_balance: 169, human_balance: 2 }) });
    expect(await balance(t, '/v1')).toEqual({ status: 200, body: expect.objectContaining({ usd_balance: 169 }) });
    expect(hits).toBe(before);
  });

  it('Blockbook tickers: rates.usd of the coin\'s instance', async () => {
    mode = 'ok';
    const t = await serviceWith({ source: 'blockbook', urls: { litecoin: base } });
    await settled(t);
    expect((await balance(t)).body.usd_balance).toBe(142.5);
  });

  it('a pinned usdRate wins over the live source', async () => {
    mode = 'ok';
    const t = await startTestService({
      coins: { litecoin: { network: 'regtest', backend: nodeRpcBackendConfig(node, 100), usdRate: 10 } },
      prices: { source: 'coingecko', url: `${base}/api/v3` },
    });
    services.push(t);
    t.service.startIndexers();
    await settled(t);
    expect((await balance(t)).body.usd_balance).toBe(20);
  });

  it.each(['garbage', 'error', 'hang'] as const)('source answering %s: balances still 200 with usd_balance 0', async (failure) => {
    mode = failure;
    const t = await serviceWith({ source: 'coingecko', url: `${base}/api/v3`, timeoutMs: 300 });
    await settled(t);
    for (const prefix of ['', '/v2', '/v1']) {
      const b = await balance(t, prefix);
      expect(b.status).toBe(200);
      expect(b.body).toMatchObject({ usd_balance: 0, human_balance: 2 });
    }
    const res = await t.service.app.inject({ method: 'GET', url: `/address/balances/litecoin/${alice}`, headers: { 'x-api-key': t.apiKey } });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ totals: { usd_balance: 0 }, addresses: [{ usd_balance: 0 }] });
  });
});
