// A test-only knob that slows the service's indexer honestly: an HTTP proxy in front of a node's
// JSON-RPC port that holds each request asking for blocks (getblock, and getblockfilter: watch
// mode reads a block's filter first) `delayMs` before passing it on, untouched. The service indexes exactly as it would from a slow or distant node; nothing in
// the service is changed. Setting the delay to 0 lets it catch up at full speed.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowRpc {
  /** The proxy's URL, to give the service in place of the node's. */
  url: string;
  /** Milliseconds each block request waits; 0 passes requests straight through. */
  delayMs: number;
  /** Blocks the service fetched through the proxy (getblock calls, not filters or headers): what a test counts. */
  blocksFetched: number;
  /** Holds every block request until release(): the index stays behind the node's tip for as long as a test needs. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

const body = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

export async function startSlowRpc(target: string, delayMs: number): Promise<SlowRpc> {
  let held: (() => void)[] | null = null;
  const proxy: SlowRpc = {
    url: '',
    delayMs,
    blocksFetched: 0,
    hold: () => void (held ??= []),
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const go of waiting) go();
    },
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const payload = await body(req);
        const text = payload.toString();
        proxy.blocksFetched += text.match(/"method":\s*"getblock"/g)?.length ?? 0;
        const asksBlocks = /"getblock(filter)?"/.test(text);
        if (asksBlocks && held) await new Promise<void>((r) => held!.push(r));
        if (proxy.delayMs > 0 && asksBlocks) await new Promise((r) => setTimeout(r, proxy.delayMs));
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (req.headers.authorization) headers.authorization = req.headers.authorization;
        const answer = await fetch(new URL(req.url ?? '/', target), { method: req.method ?? 'POST', headers, body: payload });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch (err) {
        res.writeHead(502).end(err instanceof Error ? err.message : String(err));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  proxy.close = () =>
    new Promise((resolve) => {
      proxy.release();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
