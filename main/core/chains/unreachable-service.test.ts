// What the desk says when a service address typed in Settings gives no answer: the reason in words
// (fetch itself says only "fetch failed"), against real sockets on this machine.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, ApiClientError } from '../../../shared/api/client.ts';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A TCP server on 127.0.0.1 doing `onSocket` with each connection; its port. */
async function tcp(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    onSocket(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function refusal(baseUrl: string, timeoutMs = 10_000): Promise<string> {
  const err = await new ApiClient({ baseUrl, timeoutMs }).status().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiClientError);
  expect((err as ApiClientError).status).toBe(0);
  return (err as ApiClientError).message;
}

describe('a service that gives no answer, in words', () => {
  it('nothing listening at the port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    expect(await refusal(`http://127.0.0.1:${port}`)).toBe(`the service at http://127.0.0.1:${port} cannot be reached: nothing answered at that address and port: check them, and that the service is running`);
  });

  it('a host name that does not exist (.invalid never resolves)', async () => {
    expect(await refusal('http://countersign.invalid:8080')).toBe('the service at http://countersign.invalid:8080 cannot be reached: no computer of that name was found: check the address');
  });

  it('https typed for a service that speaks plain HTTP', async () => {
    const port = await tcp((socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n')));
    expect(await refusal(`https://127.0.0.1:${port}`)).toMatch(/cannot be reached: it does not speak HTTPS at that address: check http:\/\/ or https:\/\/ and the port$/);
  });

  it('a connection cut before any answer', async () => {
    const port = await tcp((socket) => socket.once('data', () => socket.destroy()));
    expect(await refusal(`http://127.0.0.1:${port}`)).toMatch(/cannot be reached: the connection was cut off before it answered$/);
  });

  it('a server that accepts and never answers', async () => {
    const port = await tcp(() => undefined);
    expect(await refusal(`http://127.0.0.1:${port}`, 1_000)).toMatch(/cannot be reached: it did not answer within 1 s$/);
  });
});
