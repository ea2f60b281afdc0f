import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { RpcClient, RpcError, UpstreamError, coinsToUnits, unitsToCoins } from './rpc-client.ts';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as net.AddressInfo).port;
}

describe('RpcClient against litecoind -regtest', () => {
  let node: RegtestNode;
  let rpc: RpcClient;

  beforeAll(async () => {
    node = await startLitecoind();
    rpc = new RpcClient(node.rpcConfig);
    await node.mine(5);
  });

  afterAll(async () => {
    rpc?.close();
    await node?.stop();
  });

  it('calls a method', async () => {
    const info = await rpc.call<{ chain: string; blocks: number }>('getblockchaininfo');
    expect(info.chain).toBe('regtest');
    expect(info.blocks).toBe(5);
  });

  it('batches calls into one request and keeps request order, errors included', async () => {
    const one = await Promise.all([0, 1, 2, 3, 4, 5].map((h) => rpc.call<string>('getblockhash', [h])));
    const heights = [5, 0, 3, 999, 1];
    const out = await rpc.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    expect(out).toHaveLength(5);
    expect(out[0]).toEqual({ result: one[5] });
    expect(out[1]).toEqual({ result: one[0] });
    expect(out[2]).toEqual({ result: one[3] });
    expect(out[4]).toEqual({ result: one[1] });
    const failed = out[3];
    expect(failed && 'error' in failed && failed.error).toBeInstanceOf(RpcError);
    if (failed && 'error' in failed) {
      expect(failed.error.code).toBe(-8);
      expect(failed.error.message).toBe('Block height out of range');
    }
    expect(await rpc.batch([])).toEqual([]);
  });

  it('maps an unknown method (HTTP 404 + JSON body) to RpcError -32601', async () => {
    const err = await rejection(rpc.call('nosuchmethod'));
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -32601, message: 'Method not found', method: 'nosuchmethod' });
  });

  it('maps getblock of an unknown hash (HTTP 500 + JSON body) to RpcError -5', async () => {
    const err = await rejection(rpc.call('getblock', ['11'.repeat(32)]));
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -5, message: 'Block not found' });
    const bad = await rejection(rpc.call('getblock', ['00']));
    expect(bad).toMatchObject({ code: -8 });
  });

  it('reaches the wallet endpoint and reports an unknown wallet as the node does', async () => {
    const wallet = new RpcClient({ ...node.rpcConfig, url: `${node.rpcConfig.url}wallet/${node.walletName}` });
    expect(typeof (await wallet.call('getbalance'))).toBe('number');
    wallet.close();
    const missing = new RpcClient({ ...node.rpcConfig, url: `${node.rpcConfig.url}wallet/nosuchwallet` });
    expect(await rejection(missing.call('getbalance'))).toMatchObject({ code: -18 });
    missing.close();
  });

  it('maps a wrong password to UpstreamError auth without leaking the password', async () => {
    const wrong = new RpcClient({ ...node.rpcConfig, password: 'not-the-password-xyz' });
    const err = await rejection(wrong.call('getblockcount'));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ kind: 'auth' });
    const message = (err as Error).message;
    expect(message).toContain('the node refused the RPC credentials');
    expect(message).not.toContain('not-the-password-xyz');
    expect(message).not.toContain(node.rpcConfig.password);
    wrong.close(); // an idle kept-alive socket would hold up litecoind 0.21's shutdown
  });

  it('says so when no credentials are configured at all (a mistyped cookieFile used to read as a wrong password)', async () => {
    const none = new RpcClient({ url: node.rpcConfig.url });
    const err = await rejection(none.call('getblockcount'));
    expect(err).toMatchObject({ kind: 'auth', message: expect.stringMatching(/wants credentials and none are configured: give the backend cookieFile, or username and password$/) });
    none.close();
  });

  it('accepts credentials in the URL and never shows them', async () => {
    const { username = '', password = '' } = node.rpcConfig;
    const url = new URL(node.rpcConfig.url);
    url.username = username;
    url.password = password;
    const client = new RpcClient({ url: url.href });
    expect(await client.call('getblockcount')).toBe(5);
    expect(client.url).not.toContain(password);
    client.close();
  });

  it('returns amounts exactly with exactNumbers', async () => {
    const hash = await rpc.call<string>('getblockhash', [1]);
    type Block = { height: number; tx: Array<{ vout: Array<{ value: unknown }> }> };
    const plain = await rpc.call<Block>('getblock', [hash, 2]);
    const exact = await rpc.call<Block>('getblock', [hash, 2], { exactNumbers: true });
    expect(plain.tx[0]?.vout[0]?.value).toBe(50);
    expect(exact.tx[0]?.vout[0]?.value).toBe('50.00000000');
    expect(exact.height).toBe(1); // integers stay numbers
    expect(coinsToUnits(exact.tx[0]?.vout[0]?.value as string)).toBe(5_000_000_000n);
  });

  it('serves many concurrent calls, queueing past maxConnections instead of overflowing the work queue', async () => {
    const hashes = await Promise.all(Array.from({ length: 200 }, (_, i) => rpc.call<string>('getblockhash', [i % 6])));
    expect(new Set(hashes).size).toBe(6);
  });
});

describe('RpcClient failures without a node', () => {
  it('maps a closed port to unreachable', async () => {
    const server = net.createServer();
    const port = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    const client = new RpcClient({ url: `http://127.0.0.1:${port}/`, username: 'u', password: 'secret-pw' });
    const err = await rejection(client.call('getblockcount'));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ kind: 'unreachable' });
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect((err as Error).message).not.toContain('secret-pw');
  });

  it('maps a server that accepts and never answers to timeout', async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((s) => sockets.add(s));
    const port = await listen(server);
    try {
      const client = new RpcClient({ url: `http://127.0.0.1:${port}/`, timeoutMs: 300 });
      // No wall-clock bound: a client that hung would fail this test by its own timeout.
      const err = await rejection(client.call('getblockcount'));
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ kind: 'timeout' });
      expect((err as Error).message).toContain('300 ms');
      client.close();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('times out an answer that stalls halfway', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"result":'); // and nothing more
    });
    const port = await listen(server);
    try {
      const client = new RpcClient({ url: `http://127.0.0.1:${port}/`, timeoutMs: 300 });
      expect(await rejection(client.call('getblockcount'))).toMatchObject({ kind: 'timeout' });
      client.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('starts the timeout when a connection is free, not while queued behind maxConnections', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const server = http.createServer((_req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"result":true,"error":null,"id":1}');
      }, 100);
    });
    const port = await listen(server);
    try {
      const client = new RpcClient({ url: `http://127.0.0.1:${port}/`, timeoutMs: 250, maxConnections: 1 });
      const results = await Promise.all(Array.from({ length: 5 }, () => client.call('slow')));
      expect(results).toEqual([true, true, true, true, true]);
      expect(maxInFlight).toBe(1);
      client.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('maps non-JSON answers and empty error pages to bad-response', async () => {
    let status = 200;
    let body = '<html>proxy says hi</html>';
    const server = http.createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'text/html' });
      res.end(body);
    });
    const port = await listen(server);
    try {
      const client = new RpcClient({ url: `http://127.0.0.1:${port}/` });
      expect(await rejection(client.call('getblockcount'))).toMatchObject({ kind: 'bad-response' });
      status = 404;
      body = '';
      const err = await rejection(client.call('getblockcount'));
      expect(err).toMatchObject({ kind: 'bad-response' });
      expect((err as Error).message).toContain('HTTP 404');
      status = 500; // what bitcoind sends when its RPC work queue is full
      body = 'Work queue depth exceeded';
      const overloaded = await rejection(client.call('getblockcount'));
      expect(overloaded).toMatchObject({ kind: 'bad-response' });
      expect((overloaded as Error).message).toContain('the node is overloaded');
      status = 503; // an overloaded node's other answer: still not taken for one shutting down
      const overloaded503 = await rejection(client.call('getblockcount'));
      expect(overloaded503).toMatchObject({ kind: 'bad-response' });
      expect((overloaded503 as Error).message).toContain('the node is overloaded');
      status = 200;
      body = '{"result":1,"error":null,"id":1}';
      expect(await rejection(client.batch([{ method: 'a' }]))).toMatchObject({ kind: 'bad-response' });
      client.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('takes the bare 503 page a node sends between `stop` and closing its port for a node shutting down', async () => {
    // litecoind 0.21's answer to getblock while stopping, as captured (libevent's own error page)
    const page = '<HTML><HEAD>\n<TITLE>503 Service Unavailable</TITLE>\n</HEAD><BODY>\n<H1>Service Unavailable</H1>\n</BODY></HTML>\n';
    const server = http.createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end(page);
    });
    const port = await listen(server);
    try {
      const client = new RpcClient({ url: `http://127.0.0.1:${port}/` });
      const err = await rejection(client.call('getblock'));
      expect(err).toMatchObject({ kind: 'stopping' });
      expect((err as Error).message).toBe(`the node at http://127.0.0.1:${port}/ is shutting down (it turned getblock away with HTTP 503)`);
      client.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keeps one connection alive across sequential calls', async () => {
    let connections = 0;
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(raw) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: id, error: null, id }));
      });
    });
    server.on('connection', () => connections++);
    const port = await listen(server);
    try {
      const client = new RpcClient({ url: `http://127.0.0.1:${port}/` });
      for (let i = 0; i < 50; i++) await client.call('ping');
      expect(connections).toBe(1);
      client.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keeps numbers a double cannot hold as source text with exactNumbers', async () => {
    const body = '{"result":{"value":83999999.99999999,"big":123456789012345678901,"n":42,"neg":-0.5,"f":1e-8},"error":null,"id":1}';
    const fakeFetch: typeof fetch = async () => new Response(body, { status: 200 });
    const client = new RpcClient({ url: 'http://127.0.0.1:1/' }, { fetch: fakeFetch });
    const exact = await client.call<Record<string, unknown>>('x', [], { exactNumbers: true });
    expect(exact).toEqual({ value: '83999999.99999999', big: '123456789012345678901', n: 42, neg: '-0.5', f: '1e-8' });
    expect(coinsToUnits(exact.value as string)).toBe(8_399_999_999_999_999n);
    const plain = await client.call<Record<string, unknown>>('x');
    expect(plain.n).toBe(42);
    expect(typeof plain.value).toBe('number');
  });

  it('reads the cookie file lazily and re-reads it once after a 401', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rpc-cookie-'));
    const cookieFile = join(dir, '.cookie');
    try {
      let accepted = '__cookie__:first';
      const seen: string[] = [];
      const fakeFetch: typeof fetch = async (_url, init) => {
        const header = new Headers(init?.headers).get('authorization') ?? '';
        const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString();
        seen.push(decoded);
        if (decoded !== accepted) return new Response('', { status: 401, statusText: 'Unauthorized' });
        return new Response('{"result":7,"error":null,"id":1}', { status: 200 });
      };
      const client = new RpcClient({ url: 'http://127.0.0.1:1/', cookieFile }, { fetch: fakeFetch });
      await writeFile(cookieFile, '__cookie__:first\n'); // written after construction: read lazily
      expect(await client.call('getblockcount')).toBe(7);
      // The node restarted and wrote a new cookie.
      accepted = '__cookie__:second';
      await writeFile(cookieFile, '__cookie__:second');
      expect(await client.call('getblockcount')).toBe(7);
      expect(seen).toEqual(['__cookie__:first', '__cookie__:first', '__cookie__:second']);
      // A cookie that stays wrong ends as an auth error that names the file, not its content.
      accepted = '__cookie__:third';
      const err = await rejection(client.call('getblockcount'));
      expect(err).toMatchObject({ kind: 'auth' });
      expect((err as Error).message).toContain(cookieFile);
      expect((err as Error).message).not.toContain('second');
      await rm(cookieFile);
      expect(await rejection(new RpcClient({ url: 'http://127.0.0.1:1/', cookieFile }, { fetch: fakeFetch }).call('x'))).toMatchObject({ kind: 'auth' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('coinsToUnits / unitsToCoins', () => {
  it('converts exactly', () => {
    expect(coinsToUnits(0.00000001)).toBe(1n);
    expect(coinsToUnits('0.00000001')).toBe(1n);
    expect(coinsToUnits(21000000)).toBe(2_100_000_000_000_000n);
    expect(coinsToUnits(84000000)).toBe(8_400_000_000_000_000n);
    expect(coinsToUnits('84000000.00000000')).toBe(8_400_000_000_000_000n);
    expect(coinsToUnits(0.3)).toBe(30_000_000n);
    expect(coinsToUnits(0.29)).toBe(29_000_000n); // 0.29 * 1e8 = 28999999.999999996 in floats
    expect(coinsToUnits(1.1)).toBe(110_000_000n);
    expect(coinsToUnits(0.00012345)).toBe(12_345n);
    expect(coinsToUnits(20999999.99999999)).toBe(2_099_999_999_999_999n);
    expect(coinsToUnits(67108863.99999999)).toBe(6_710_886_399_999_999n);
    expect(coinsToUnits(0)).toBe(0n);
    expect(coinsToUnits(-0)).toBe(0n);
    expect(coinsToUnits('.5')).toBe(50_000_000n);
    expect(coinsToUnits(' 2.5 ')).toBe(250_000_000n);
  });

  it('refuses more decimals than allowed, but accepts trailing zeros', () => {
    expect(() => coinsToUnits(0.1 + 0.2)).toThrow(/more than 8 decimal places/);
    expect(() => coinsToUnits('0.123456789')).toThrow(/more than 8 decimal places/);
    expect(() => coinsToUnits(1e-9)).toThrow(/more than 8 decimal places/);
    expect(coinsToUnits('0.123456780')).toBe(12_345_678n);
    expect(() => coinsToUnits('1.5', 0)).toThrow(/more than 0 decimal places/);
    expect(coinsToUnits('1.000000000000000001', 18)).toBe(1_000_000_000_000_000_001n);
  });

  it('handles negatives and exponent forms', () => {
    expect(coinsToUnits(-0.5)).toBe(-50_000_000n);
    expect(coinsToUnits('-0.00000001')).toBe(-1n);
    expect(coinsToUnits(1e-8)).toBe(1n);
    expect(coinsToUnits(-1e-8)).toBe(-1n);
    expect(coinsToUnits(1.5e-7)).toBe(15n);
    expect(coinsToUnits('2.1E7')).toBe(2_100_000_000_000_000n);
    expect(coinsToUnits('1e+2')).toBe(10_000_000_000n);
    expect(coinsToUnits(1e21)).toBe(10n ** 29n);
    expect(coinsToUnits('1234e-8')).toBe(1_234n);
  });

  it('refuses what is not a decimal amount', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '', '-', 'abc', '1.2.3', '0x10', '1e', '1,5', '1e999']) {
      expect(() => coinsToUnits(bad), String(bad)).toThrow(RangeError);
    }
    expect(() => coinsToUnits('1', -1)).toThrow(RangeError);
    expect(() => coinsToUnits('1', 1.5)).toThrow(RangeError);
  });

  it('formats units as exact decimal strings', () => {
    expect(unitsToCoins(1n)).toBe('0.00000001');
    expect(unitsToCoins(0n)).toBe('0');
    expect(unitsToCoins(2_100_000_000_000_000n)).toBe('21000000');
    expect(unitsToCoins(8_399_999_999_999_999n)).toBe('83999999.99999999');
    expect(unitsToCoins(-50_000_000n)).toBe('-0.5');
    expect(unitsToCoins(123_456_789n)).toBe('1.23456789');
    expect(unitsToCoins(5n, 0)).toBe('5');
    expect(unitsToCoins(10n ** 30n + 1n, 18)).toBe('1000000000000.000000000000000001');
  });

  it('round-trips random amounts through strings and, below 2^26 coins, through numbers', () => {
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const units = (BigInt(next()) * 2n ** 31n + BigInt(next())) % 6_710_886_400_000_000n;
      const text = unitsToCoins(units);
      expect(coinsToUnits(text)).toBe(units);
      expect(coinsToUnits(Number(text))).toBe(units);
      expect(coinsToUnits(JSON.parse(text) as number)).toBe(units);
    }
  });
});
