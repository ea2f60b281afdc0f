// Operating the service without a chain: rate limits, request size limits, CORS and metrics. (The
// readiness decision: use-cases/service-status.test.ts; against a real node: health.regtest.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/http-service.ts';
import { until } from '../test/until.ts';
import { createApiKey } from '../store/api-keys.ts';
import { takeToken } from './rate-limit.ts';

const DEAD_NODE = { type: 'node-rpc', url: 'http://127.0.0.1:1', username: 'u', password: 'p', pollIntervalMs: 50 } as const;
const ADDRESS = 'LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3';
const TXID = 'ab'.repeat(32);

const services: TestService[] = [];
async function service(config: Parameters<typeof startTestService>[0]): Promise<TestService> {
  const t = await startTestService(config);
  services.push(t);
  return t;
}
afterAll(async () => {
  for (const t of services) await t.dispose();
});

describe('token bucket', () => {
  const perMs = 1 / 1000; // one request a second
  it('lets a quiet client spend the burst at once, then refuses with the wait for one token', () => {
    let bucket;
    for (let i = 0; i < 3; i++) {
      const take = takeToken(bucket, 0, perMs, 3);
      expect(take.allowed).toBe(true);
      expect(take.remaining).toBe(2 - i);
      bucket = take.bucket;
    }
    const refused = takeToken(bucket, 0, perMs, 3);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, waitMs: 1000 });
    expect(takeToken(refused.bucket, 400, perMs, 3)).toMatchObject({ allowed: false, waitMs: 600 });
    expect(takeToken(refused.bucket, 1000, perMs, 3).allowed).toBe(true);
  });

  it('refills at the sustained rate and never beyond the burst', () => {
    const empty = { tokens: 0, at: 0 };
    expect(takeToken(empty, 2500, perMs, 3)).toMatchObject({ allowed: true, remaining: 1 });
    expect(takeToken(empty, 3_600_000, perMs, 3)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('rate limits over HTTP', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await service({ rateLimit: { enabled: true, requestsPerWindow: 60, windowSeconds: 60, burst: 3 } });
  });

  it('answers the request after the burst with 429, Retry-After and a JSON message', async () => {
    for (let i = 0; i < 3; i++) expect((await t.request('GET', '/status')).status).toBe(200);
    const res = await t.service.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': t.apiKey } });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(res.body)).toEqual({ message: expect.stringMatching(/rate limit exceeded: .*60 requests per 60 s per API key.*retry in \d+ s/) });
  });

  it('counts per API key: another key still has its burst', async () => {
    const { key } = await createApiKey(t.service.store, 'second');
    const res = await t.service.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('3');
  });

  it('never limits the probes', async () => {
    for (let i = 0; i < 6; i++) expect((await t.service.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('counts per client IP when auth is off', async () => {
    const open = await service({ auth: { required: false }, rateLimit: { enabled: true, requestsPerWindow: 1, windowSeconds: 3600, burst: 2 } });
    const from = (ip: string) => open.service.app.inject({ method: 'GET', url: '/status', remoteAddress: ip });
    expect((await from('10.0.0.1')).statusCode).toBe(200);
    expect((await from('10.0.0.1')).statusCode).toBe(200);
    expect((await from('10.0.0.1')).statusCode).toBe(429);
    expect((await from('10.0.0.2')).statusCode).toBe(200);
  });

  describe('behind a reverse proxy (auth off)', () => {
    const PROXY = '10.0.0.9';
    const openService = (trustProxy?: boolean | string[]) =>
      service({ auth: { required: false }, ...(trustProxy === undefined ? {} : { trustProxy }), rateLimit: { enabled: true, requestsPerWindow: 1, windowSeconds: 3600, burst: 2 } });
    const via = (t: TestService, peer: string, client: string) =>
      t.service.app.inject({ method: 'GET', url: '/status', remoteAddress: peer, headers: { 'x-forwarded-for': client } });

    it('by default keys on the proxy: X-Forwarded-For is not trusted, so all its clients share one bucket', async () => {
      const t = await openService();
      expect((await via(t, PROXY, '203.0.113.1')).statusCode).toBe(200);
      expect((await via(t, PROXY, '203.0.113.2')).statusCode).toBe(200);
      expect((await via(t, PROXY, '203.0.113.3')).statusCode).toBe(429);
    });

    it('with trustProxy naming the proxy: keys on the client it forwards for; a header from anyone else is ignored', async () => {
      const t = await openService([PROXY]);
      expect((await via(t, PROXY, '203.0.113.1')).statusCode).toBe(200);
      expect((await via(t, PROXY, '203.0.113.1')).statusCode).toBe(200);
      expect((await via(t, PROXY, '203.0.113.1')).statusCode).toBe(429);
      expect((await via(t, PROXY, '203.0.113.2')).statusCode).toBe(200);
      // a client that is no trusted proxy cannot escape its bucket by writing the header
      const spoofer = '198.51.100.7';
      expect((await via(t, spoofer, '203.0.113.10')).statusCode).toBe(200);
      expect((await via(t, spoofer, '203.0.113.11')).statusCode).toBe(200);
      expect((await via(t, spoofer, '203.0.113.12')).statusCode).toBe(429);
    });

    it('refuses a trustProxy that is neither true/false nor a list of addresses', async () => {
      await expect(openService('yes' as unknown as string[])).rejects.toThrow(/trustProxy/);
    });
  });
});

describe('request size limits', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await service({ limits: { bodyBytes: 2048, urlBytes: 4096 } });
  });

  it('refuses a body above limits.bodyBytes with 413 and a message', async () => {
    const res = await t.request('POST', '/multisig/to_network_addresses/litecoin', { master_keys: [{ xpub: 'x'.repeat(4000) }] });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ message: expect.stringMatching(/body/i) });
  });

  it('refuses a URL above limits.urlBytes with 414 and a message, before authentication', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: `/address/balances/litecoin/${`${ADDRESS},`.repeat(200)}` });
    expect(res.statusCode).toBe(414);
    expect(JSON.parse(res.body)).toEqual({ message: expect.stringMatching(/request URL too long: \d+ bytes, at most 4096/) });
  });

  it('over a socket, a request line longer than Node\'s default header limit still reaches the service', async () => {
    const d = await service({});
    const base = await d.service.app.listen({ host: '127.0.0.1', port: 0 });
    const long = await fetch(`${base}/status?pad=${'x'.repeat(30_000)}`, { headers: { 'x-api-key': d.apiKey } });
    expect(long.status).toBe(200); // Node alone would answer 431 above 16 KB
    const tooLong = await fetch(`${base}/status?pad=${'x'.repeat(70_000)}`, { headers: { 'x-api-key': d.apiKey } });
    expect(tooLong.status).toBe(414);
  });

  it('the default accepts 200 long addresses in the path', async () => {
    const d = await service({ coins: { litecoin: { network: 'mainnet', backend: DEAD_NODE } } });
    const bech32 = 'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9';
    const res = await d.request('GET', `/address/balances/litecoin/${Array.from({ length: 200 }, () => bech32).join(',')}`);
    expect(res.status).toBe(200); // answered from the (empty) index
  });
});

describe('CORS', () => {
  it('is off by default: no Access-Control headers, whatever the origin', async () => {
    const t = await service({});
    const res = await t.service.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': t.apiKey, origin: 'https://desk.example.com' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows only the listed origins, and answers their preflight without a key', async () => {
    const t = await service({ cors: { origins: ['https://desk.example.com'] } });
    const preflight = await t.service.app.inject({
      method: 'OPTIONS',
      url: '/status',
      headers: { origin: 'https://desk.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://desk.example.com');
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/x-api-key/);
    const allowed = await t.service.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': t.apiKey, origin: 'https://desk.example.com' } });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://desk.example.com');
    const other = await t.service.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': t.apiKey, origin: 'https://evil.example.net' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses an origin with a path in the configuration', async () => {
    await expect(startTestService({ cors: { origins: ['https://desk.example.com/app'] } })).rejects.toThrow(/cors\.origins\.0: a CORS origin is scheme:\/\/host/);
  });
});

describe('metrics and readiness without a node', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await service({ coins: { litecoin: { network: 'mainnet', backend: DEAD_NODE } } });
  });

  it('labels latency by route pattern and status class, never by the raw URL', async () => {
    await t.request('GET', `/address/balance/litecoin/${ADDRESS}`);
    await t.request('GET', '/address/balance/litecoin/notanaddress');
    const text = (await t.service.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toMatch(/countersign_http_request_duration_seconds_count\{method="GET",route="\/address\/balance\/:coin\/:address",status_class="2xx"\} 1/);
    expect(text).toMatch(/countersign_http_request_duration_seconds_count\{method="GET",route="\/address\/balance\/:coin\/:address",status_class="4xx"\} 1/);
    expect(text).not.toContain(ADDRESS);
    expect(text).toMatch(/process_resident_memory_bytes/);
  });

  it('counts upstream failures by coin and kind', async () => {
    const res = await t.request('GET', `/transaction/raw/litecoin/${TXID}`);
    expect(res.status).toBe(502);
    const text = (await t.service.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toMatch(/countersign_upstream_errors_total\{coin="litecoin",kind="error"\} 1/);
  });

  it('/readyz answers 503 naming the coin whose backend fails, without an API key; /healthz stays 200', async () => {
    t.service.startIndexers();
    const body = await until('readyz to report the dead node', async () => {
      const res = await t.service.app.inject({ method: 'GET', url: '/readyz' });
      const json = JSON.parse(res.body) as { ready: boolean; message?: string };
      return res.statusCode === 503 && /backend is failing/.test(json.message ?? '') ? json : undefined;
    });
    expect(body).toMatchObject({ ready: false, message: expect.stringMatching(/^not ready: litecoin: the backend is failing \(/) });
    expect((await t.service.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const text = (await t.service.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toMatch(/countersign_backend_up\{coin="litecoin"\} 0/);
  });

  it('protects /metrics with the metrics token when one is configured', async () => {
    const token = 'metrics-secret-0123456789';
    const p = await service({ metrics: { token } });
    expect((await p.service.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await p.service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789' } })).statusCode).toBe(401);
    const ok = await p.service.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/text\/plain/);
  });
});
