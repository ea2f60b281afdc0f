// The Electrum protocol (1.4) client: newline-delimited JSON-RPC 2.0 over TCP or TLS to an
// ElectrumX or Fulcrum server. One socket, one id map; every request has a deadline; a dropped or
// hung socket fails what is in flight (502/504 naming the server) and the next request reconnects.
// After the server.version handshake the tip is subscribed, so the client always knows it.
import net from 'node:net';
import tls from 'node:tls';
import { z } from 'zod';
import { ApiError, UpstreamFailure } from '../../errors.ts';

export interface ElectrumServer {
  host: string;
  port: number;
  tls: boolean;
  /** With tls: check the certificate against the known authorities. */
  verifyCertificate: boolean;
  /** With tls: accept only the certificate of this SHA-256 (hex, colons optional), whoever signed it. */
  certificateSha256?: string;
}

/** A certificate fingerprint as one comparable form: upper-case hex without colons. */
const fingerprint = (text: string): string => text.replace(/:/g, '').toUpperCase();

export interface ElectrumTiming {
  timeoutMs: number;
  /** Extra attempts for reads after a failed connection or a deadline. */
  retries: number;
  backoffMs: number;
}

/** The server answered with a JSON-RPC error: its own code and message. */
export class ElectrumRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly method: string,
  ) {
    super(message);
    this.name = 'ElectrumRpcError';
  }
}

export const PROTOCOL_VERSION = '1.4';
const CLIENT_NAME = 'countersign';
/** A line longer than this is no answer we asked for (a block header set is far smaller). */
const MAX_LINE = 32 * 1024 * 1024;
const MAX_RECONNECT_WAIT_MS = 30_000;

const Header = z.object({ height: z.number().int().nonnegative(), hex: z.string() }).loose();
export type ElectrumHeader = z.infer<typeof Header>;

const Response = z.object({ id: z.number(), result: z.unknown().optional(), error: z.object({ code: z.number(), message: z.string() }).nullish() });
const Notification = z.object({ method: z.string(), params: z.array(z.unknown()).default([]) });

interface Waiting {
  method: string;
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

interface Connection {
  socket: net.Socket;
  ready: Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ElectrumClient {
  private connection: Connection | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;
  private keepConnected = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failuresInARow = 0;
  /** The newest block header the server told us about. */
  tip: ElectrumHeader | null = null;
  /** The last connection failure, null while connected. */
  lastError: string | null = null;

  constructor(
    private readonly server: ElectrumServer,
    /** names the server in messages, e.g. "electrum litecoin (host:50002)" */
    readonly name: string,
    private readonly timing: ElectrumTiming,
    private readonly onTip: (header: ElectrumHeader) => void = () => undefined,
    /**
     * Run on every connection after the version handshake, before anything is read: may refuse the
     * server (throws: the connection is dropped with that error, chain-guard.ts).
     */
    private readonly onHandshake?: (ask: (method: string, params: unknown[]) => Promise<unknown>) => Promise<void>,
  ) {}

  /** Connects now and stays connected (reconnecting with backoff), so the tip stays current. */
  keepAlive(): void {
    this.keepConnected = true;
    this.ensure().catch(() => this.scheduleReconnect());
  }

  close(): void {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.drop(new UpstreamFailure(false, `${this.name}: the client was closed`));
  }

  /**
   * Calls a method. `idempotent` requests (reads) are retried with backoff after a dropped
   * connection or a missed deadline; the server's own errors are never retried.
   */
  async request<T>(method: string, params: unknown[], schema: z.ZodType<T>, idempotent = true): Promise<T> {
    const attempts = 1 + (idempotent ? this.timing.retries : 0);
    let last: Error | null = null;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(this.timing.backoffMs * 2 ** (attempt - 1));
      try {
        await this.ensure();
        const raw = await this.send(method, params);
        const parsed = schema.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new UpstreamFailure(false, `${this.name} answered ${method} with an unexpected shape (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'})`);
        }
        return parsed.data;
      } catch (err) {
        if (!(err instanceof UpstreamFailure) || this.closed) throw err;
        last = err;
      }
    }
    throw last ?? new UpstreamFailure(false, `${this.name} failed`);
  }

  private ensure(): Promise<void> {
    if (this.closed) return Promise.reject(new UpstreamFailure(false, `${this.name}: the client was closed`));
    this.connection ??= this.connect();
    return this.connection.ready;
  }

  private connect(): Connection {
    const { host, port } = this.server;
    const socket = this.server.tls
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: this.server.verifyCertificate && this.server.certificateSha256 === undefined })
      : net.connect({ host, port });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    const connection: Connection = { socket, ready: Promise.resolve() };
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line.length > 0) this.onLine(line, connection);
        if (this.connection !== connection) return;
      }
      if (buffer.length > MAX_LINE) this.drop(new UpstreamFailure(false, `${this.name} sent a line longer than ${MAX_LINE} bytes`), connection);
    });
    socket.on('error', (err) => this.drop(new UpstreamFailure(false, `${this.name} is unreachable: ${err.message}`), connection));
    socket.on('close', () => this.drop(new UpstreamFailure(false, `${this.name} closed the connection`), connection));

    connection.ready = (async () => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new UpstreamFailure(true, `${this.name} did not accept a connection within ${this.timing.timeoutMs} ms`));
          this.drop(new UpstreamFailure(true, `${this.name} did not accept a connection within ${this.timing.timeoutMs} ms`), connection);
        }, this.timing.timeoutMs);
        socket.once(this.server.tls ? 'secureConnect' : 'connect', () => {
          clearTimeout(timer);
          const pinned = this.server.certificateSha256;
          const shown = socket instanceof tls.TLSSocket ? socket.getPeerCertificate().fingerprint256 : undefined;
          if (pinned !== undefined && (shown === undefined || fingerprint(shown) !== fingerprint(pinned))) {
            const why = `${this.name} shows a certificate (SHA-256 ${shown ?? 'none'}) other than the pinned one`;
            this.lastError = why;
            reject(new UpstreamFailure(false, why));
            socket.destroy();
            return;
          }
          resolve();
        });
        socket.once('close', () => {
          clearTimeout(timer);
          reject(new UpstreamFailure(false, this.lastError ?? `${this.name} closed the connection`));
        });
      });
      // The handshake: the first message a server expects; then follow the tip.
      await this.send('server.version', [CLIENT_NAME, PROTOCOL_VERSION], connection);
      await this.onHandshake?.((method, params) => this.send(method, params, connection));
      const header = Header.safeParse(await this.send('blockchain.headers.subscribe', [], connection));
      if (!header.success) throw new UpstreamFailure(false, `${this.name} answered blockchain.headers.subscribe with an unexpected shape`);
      this.setTip(header.data);
      this.lastError = null;
      this.failuresInARow = 0;
    })();
    // A refusal of the handshake hook keeps its own words (it names the coin and the reason).
    connection.ready.catch((err: unknown) => this.drop(err instanceof UpstreamFailure ? err : new UpstreamFailure(false, err instanceof ApiError ? err.message : `${this.name} failed: ${String(err)}`), connection));
    return connection;
  }

  private send(method: string, params: unknown[], connection = this.connection): Promise<unknown> {
    if (!connection) return Promise.reject(new UpstreamFailure(false, `${this.name} is not connected`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // A server that misses a deadline may be hung: start afresh on the next request.
        this.drop(new UpstreamFailure(true, `${this.name} did not answer ${method} within ${this.timing.timeoutMs} ms`), connection);
      }, this.timing.timeoutMs);
      this.waiting.set(id, { method, resolve, reject, timer });
      connection.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  private onLine(line: string, connection: Connection): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.drop(new UpstreamFailure(false, `${this.name} sent something that is not JSON: ${line.slice(0, 120)}`), connection);
      return;
    }
    const isResponse = typeof json === 'object' && json !== null && 'id' in json;
    const response = isResponse ? Response.safeParse(json) : null;
    const notification = isResponse ? null : Notification.safeParse(json);
    if (!(response?.success ?? notification?.success)) {
      this.drop(new UpstreamFailure(false, `${this.name} sent a message that is not JSON-RPC: ${line.slice(0, 120)}`), connection);
      return;
    }
    if (response?.success) {
      const message = response.data;
      const w = this.waiting.get(message.id);
      if (!w) return; // an answer to a request we gave up on
      this.waiting.delete(message.id);
      clearTimeout(w.timer);
      if (message.error) w.reject(new ElectrumRpcError(message.error.code, message.error.message, w.method));
      else w.resolve(message.result ?? null);
      return;
    }
    if (notification?.success && notification.data.method === 'blockchain.headers.subscribe') {
      const header = Header.safeParse(notification.data.params[0]);
      if (header.success) this.setTip(header.data);
    }
  }

  private setTip(header: ElectrumHeader): void {
    this.tip = header;
    this.onTip(header);
  }

  /** Fails everything in flight on this connection and forgets it; the next request reconnects. */
  private drop(err: UpstreamFailure, connection: Connection | null = this.connection): void {
    if (!connection || this.connection !== connection) {
      connection?.socket.destroy();
      return;
    }
    this.connection = null;
    this.lastError = err.message;
    connection.socket.destroy();
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(err);
      this.waiting.delete(id);
    }
    if (this.keepConnected && !this.closed) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer || this.closed) return;
    const wait = Math.min(MAX_RECONNECT_WAIT_MS, Math.max(this.timing.backoffMs, 100) * 2 ** this.failuresInARow++);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.ensure().catch(() => this.scheduleReconnect());
    }, wait);
    this.reconnectTimer.unref();
  }
}
