import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamFailure } from '../errors.ts';
import { httpJson, UpstreamAnswer } from './http-json.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
const servers: ReturnType<typeof createServer>[] = [];

async function serve(handler: Handler): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => handler(req, res, n++));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const options = { name: 'test upstream', timeoutMs: 300, retries: 2, backoffMs: 10 };

describe('httpJson', () => {
  it('retries a 503 and returns the JSON that follows', async () => {
    const url = await serve((_req, res, n) => {
      res.writeHead(n === 0 ? 503 : 200, { 'content-type': 'application/json' }).end(n === 0 ? 'busy' : '{"ok":1}');
    });
    await expect(httpJson(url, {}, options)).resolves.toEqual({ ok: 1 });
  });

  it('gives up after the retries with a 504 naming the upstream when it never answers', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const err = await httpJson(url, {}, options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamFailure);
    expect(err).toMatchObject({ statusCode: 504, message: 'test upstream did not answer within 300 ms' });
  });

  it('reports a closed port as 502 unreachable', async () => {
    const url = await serve(() => undefined);
    const s = servers.pop();
    s?.closeAllConnections();
    await new Promise((resolve) => s?.close(resolve));
    await expect(httpJson(url, {}, { ...options, retries: 0 })).rejects.toMatchObject({ statusCode: 502, message: expect.stringMatching(/^test upstream is unreachable/) });
  });

  it('does not repeat a POST, and hands a 4xx body to the caller', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      res.writeHead(400).end('{"error":"bad tx"}');
    });
    const err = await httpJson(url, { method: 'POST', body: '00' }, options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamAnswer);
    expect((err as UpstreamAnswer).body).toBe('{"error":"bad tx"}');
    expect(calls).toBe(1);
  });

  it('refuses an answer that is not JSON with a 502', async () => {
    const url = await serve((_req, res) => res.writeHead(200).end('<html>'));
    await expect(httpJson(url, {}, options)).rejects.toMatchObject({ statusCode: 502, message: expect.stringContaining('not JSON') });
  });
});
