// An Electrum server stand-in for tests: a real TCP server on 127.0.0.1 (port 0) speaking protocol
// 1.4 as ElectrumX does: newline-delimited JSON-RPC 2.0, server.version first, the scripthash
// methods, blockchain.transaction.get / broadcast / estimatefee, block headers and the
// headers subscription with its notifications, answered from a fixture file. It can also fall
// silent, send garbage, drop connections or refuse broadcasts, to test how the service copes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import tls from 'node:tls';

export interface ElectrumFixture {
  tip: { height: number; hex: string };
  headers: Record<string, string>;
  scripthashes: Record<string, { balance: { confirmed: number; unconfirmed: number }; history: unknown[]; unspent: unknown[] }>;
  transactions: Record<string, string>;
  /**
   * blockchain.estimatefee by confirmation target, as ElectrumX passes on its node's estimate: coins
   * per kB as a JSON number, or -1 where the node has none (also for a target not listed).
   */
  estimatefee: Record<string, number>;
}

export type ElectrumBehaviour = 'normal' | 'silent' | 'garbage';

export interface ElectrumTestServer {
  host: string;
  port: number;
  fixture: ElectrumFixture;
  behaviour: ElectrumBehaviour;
  /** Raw transactions received by blockchain.transaction.broadcast. */
  broadcasts: string[];
  /** Methods called, in order. */
  calls: string[];
  /** Connections accepted so far. */
  connections: number;
  /** Set: broadcasts are refused with this reason (as ElectrumX words it). */
  refuseBroadcast: string | null;
  /** Set: server.features names this block 0 (as ElectrumX does); null: it answers no features. */
  genesis: string | null;
  txidOf: (hex: string) => string;
  /** Announces a new tip to subscribed clients. */
  announceTip(height: number, hex: string): void;
  /** Drops every open connection (a restarting server). */
  dropConnections(): void;
  close(): Promise<void>;
}

export function loadElectrumFixture(path: URL): ElectrumFixture {
  return JSON.parse(readFileSync(path, 'utf8')) as ElectrumFixture;
}

// JSON-RPC and ElectrumX error codes
const BAD_REQUEST = 1;
const DAEMON_ERROR = 2;
const METHOD_NOT_FOUND = -32601;
const INVALID_REQUEST = -32600;

interface Request {
  id: number | string | null;
  method: string;
  params: unknown[];
}

/** A self-signed certificate for 127.0.0.1, made with the openssl command. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-electrum-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'pipe' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch (err) {
    throw new Error(`the TLS test needs the openssl command to make a certificate: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ElectrumTestServerOptions {
  /** Serve over TLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

export async function startElectrumTestServer(fixture: ElectrumFixture, txidOf: (hex: string) => string, options: ElectrumTestServerOptions = {}): Promise<ElectrumTestServer> {
  const sockets = new Set<net.Socket>();
  const subscribed = new Set<net.Socket>();

  const state: Omit<ElectrumTestServer, 'host' | 'port' | 'close' | 'announceTip' | 'dropConnections'> = {
    fixture,
    behaviour: 'normal',
    broadcasts: [],
    calls: [],
    connections: 0,
    refuseBroadcast: null,
    genesis: null,
    txidOf,
  };

  const answer = (socket: net.Socket, id: Request['id'], result: unknown) => socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
  const fail = (socket: net.Socket, id: Request['id'], code: number, message: string) => socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);

  const scripthashOf = (params: unknown[]) => {
    const sh = params[0];
    if (typeof sh !== 'string' || !/^[0-9a-f]{64}$/.test(sh)) throw new RpcFailure(BAD_REQUEST, `${String(sh)} is not a valid script hash`);
    return fixture.scripthashes[sh] ?? { balance: { confirmed: 0, unconfirmed: 0 }, history: [], unspent: [] };
  };

  const handlers: Record<string, (params: unknown[], socket: net.Socket) => unknown> = {
    'server.version': (params) => {
      const [, version] = params;
      if (version !== '1.4' && !(Array.isArray(version) && version.includes('1.4'))) throw new RpcFailure(BAD_REQUEST, `unsupported protocol version: ${JSON.stringify(version)}`);
      return ['ElectrumX 1.16.0', '1.4'];
    },
    'server.ping': () => null,
    'server.features': () => {
      if (state.genesis === null) throw new RpcFailure(METHOD_NOT_FOUND, 'unknown method "server.features"');
      return { genesis_hash: state.genesis, hash_function: 'sha256', protocol_min: '1.4', protocol_max: '1.4' };
    },
    'blockchain.headers.subscribe': (_params, socket) => {
      subscribed.add(socket);
      return fixture.tip;
    },
    'blockchain.block.header': (params) => {
      const hex = fixture.headers[String(params[0])];
      if (hex === undefined) throw new RpcFailure(BAD_REQUEST, `height ${String(params[0])} out of range`);
      return hex;
    },
    'blockchain.scripthash.get_balance': (params) => scripthashOf(params).balance,
    'blockchain.scripthash.get_history': (params) => scripthashOf(params).history,
    'blockchain.scripthash.listunspent': (params) => scripthashOf(params).unspent,
    'blockchain.scripthash.get_mempool': (params) => scripthashOf(params).history.filter((h) => (h as { height: number }).height <= 0),
    'blockchain.transaction.get': (params) => {
      const hex = fixture.transactions[String(params[0])];
      if (hex === undefined) {
        throw new RpcFailure(DAEMON_ERROR, "daemon error: DaemonError({'code': -5, 'message': 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.'})");
      }
      return hex;
    },
    'blockchain.transaction.broadcast': (params) => {
      const hex = String(params[0]);
      state.broadcasts.push(hex);
      if (state.refuseBroadcast !== null) throw new RpcFailure(BAD_REQUEST, `the transaction was rejected by network rules.\n\n${state.refuseBroadcast}\n[${hex}]`);
      return state.txidOf(hex);
    },
    'blockchain.estimatefee': (params) => {
      const blocks = params[0];
      if (typeof blocks !== 'number' || !Number.isInteger(blocks) || blocks < 1) throw new RpcFailure(BAD_REQUEST, `${JSON.stringify(blocks)} should be a non-negative integer`);
      return fixture.estimatefee[String(blocks)] ?? -1;
    },
    'blockchain.relayfee': () => 0.00001,
  };

  const onRequest = (socket: net.Socket, request: Request, greeted: { done: boolean }) => {
    state.calls.push(request.method);
    if (!greeted.done && request.method !== 'server.version') {
      // ElectrumX expects server.version before anything else
      return fail(socket, request.id, BAD_REQUEST, 'server.version must be the first request');
    }
    const handler = handlers[request.method];
    if (!handler) return fail(socket, request.id, METHOD_NOT_FOUND, `unknown method "${request.method}"`);
    try {
      const result = handler(request.params, socket);
      if (request.method === 'server.version') greeted.done = true;
      answer(socket, request.id, result);
    } catch (err) {
      if (err instanceof RpcFailure) fail(socket, request.id, err.code, err.message);
      else throw err;
    }
  };

  const onConnection = (socket: net.Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      subscribed.delete(socket);
    });
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    const greeted = { done: false };
    let buffer = '';
    socket.on('data', (chunk: string) => {
      if (state.behaviour === 'silent') return;
      if (state.behaviour === 'garbage') {
        socket.write('this is not json\n');
        return;
      }
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          fail(socket, null, INVALID_REQUEST, 'invalid JSON');
          continue;
        }
        const m = message as Partial<Request> & { jsonrpc?: unknown };
        if (m.jsonrpc !== '2.0' || typeof m.method !== 'string' || !Array.isArray(m.params)) {
          fail(socket, m.id ?? null, INVALID_REQUEST, 'invalid request');
          continue;
        }
        onRequest(socket, { id: m.id ?? null, method: m.method, params: m.params }, greeted);
      }
    });
  };
  const server = options.tls ? tls.createServer({ key: options.tls.key, cert: options.tls.cert }, onConnection) : net.createServer(onConnection);
  server.on('tlsClientError', () => undefined); // a client refusing our certificate is part of a test
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  return Object.assign(state, {
    host: '127.0.0.1',
    port,
    announceTip(height: number, hex: string) {
      fixture.tip = { height, hex };
      for (const s of subscribed) s.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'blockchain.headers.subscribe', params: [{ height, hex }] })}\n`);
    },
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
