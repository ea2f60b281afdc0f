// Local HTTP servers on 127.0.0.1 that answer as an upstream does, for tests of the code that asks
// them (price sources). Each records what it was asked; closeAll() ends every one a test opened.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface LocalServers {
  /** A server answering with `handler`; `requests` holds each request in order. */
  serve(handler: Handler): Promise<{ url: string; requests: IncomingMessage[] }>;
  closeAll(): Promise<void>;
}

export function localServers(): LocalServers {
  const servers: Server[] = [];
  return {
    async serve(handler) {
      const requests: IncomingMessage[] = [];
      const server = createServer((req, res) => {
        requests.push(req);
        handler(req, res);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
    },
    async closeAll() {
      for (const s of servers.splice(0)) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };
}

export const json = (res: ServerResponse, body: unknown): void => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
