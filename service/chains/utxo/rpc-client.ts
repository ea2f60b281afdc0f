// JSON-RPC 1.0 client for bitcoind-family nodes (Bitcoin Core, Litecoin Core, Dash Core, ...).
import http from 'node:http';
import https from 'node:https';
import { readCookieFile } from './cookie-file.ts';

export interface RpcClientConfig {
  /** e.g. http://127.0.0.1:9332/ or http://127.0.0.1:9332/wallet/name. Credentials in the URL are accepted. */
  url: string;
  username?: string;
  password?: string;
  /** The node's `.cookie` file (`__cookie__:password`), used when no username/password is given. */
  cookieFile?: string;
  /** Per request, including reading the whole answer. Default 30000. */
  timeoutMs?: number;
  /**
   * Requests in flight at once (more wait in line). Default 8: bitcoind's default -rpcworkqueue is
   * 16, and past it the node answers HTTP 500 "Work queue depth exceeded".
   */
  maxConnections?: number;
}

export interface RpcClientOptions {
  /** Replaces the built-in keep-alive HTTP transport (tests, proxies). */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /**
   * Return every number that a JS number cannot hold exactly (anything with a fraction or exponent,
   * integers beyond 2^53) as its JSON source text, a string. For amounts too large for a double to
   * keep 8 decimals (above 2^26 coins); costs a slower JSON.parse, hence opt-in.
   */
  exactNumbers?: boolean;
}

export interface RpcCall {
  method: string;
  params?: unknown[];
}

export type RpcBatchEntry<T> = { result: T } | { error: RpcError };

/** The node answered with a JSON-RPC error: `code` and `message` are the node's own. */
export class RpcError extends Error {
  readonly code: number;
  readonly method: string | undefined;
  constructor(code: number, message: string, method?: string) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.method = method;
  }
}

/** `stopping`: the node is shutting down (its HTTP server turns every request away with a bare 503). */
export type UpstreamErrorKind = 'timeout' | 'unreachable' | 'stopping' | 'auth' | 'bad-response';

/** The node could not be asked or did not answer in JSON-RPC: network, timeout, credentials, garbage. */
export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  constructor(kind: UpstreamErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamError';
    this.kind = kind;
  }
}

interface HttpAnswer {
  status: number;
  statusText: string;
  body: string;
}

type Transport = (body: string, authorization: string | undefined, timeoutMs: number) => Promise<HttpAnswer>;

/** Internal: the transport gave up waiting for the node. */
class TimedOut extends Error {
  constructor() {
    super('timed out');
  }
}

/** Internal: a reused kept-alive socket turned out to be closed. */
class StaleSocket extends Error {
  constructor(cause: unknown) {
    super('stale kept-alive socket', { cause });
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_CONNECTIONS = 8;

export class RpcClient {
  /** The URL without credentials: the only form that may appear in messages. */
  readonly #shownUrl: string;
  readonly #timeoutMs: number;
  readonly #cookieFile: string | undefined;
  readonly #transport: Transport;
  readonly #agent: http.Agent | undefined;
  #authorization: string | undefined;
  #nextId = 1;

  constructor(config: RpcClientConfig, options: RpcClientOptions = {}) {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new TypeError('RPC url is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`RPC url must be http: or https:, not ${url.protocol}`);
    }
    const urlUser = safeDecode(url.username);
    const urlPassword = safeDecode(url.password);
    url.username = '';
    url.password = '';
    this.#shownUrl = url.href;
    this.#timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.#timeoutMs > 0)) throw new RangeError('timeoutMs must be a positive number of milliseconds');

    if (config.username !== undefined || config.password !== undefined) {
      this.#authorization = basic(`${config.username ?? ''}:${config.password ?? ''}`);
    } else if (config.cookieFile !== undefined) {
      this.#cookieFile = config.cookieFile; // read on first use: the node may not have written it yet
    } else if (urlUser !== '' || urlPassword !== '') {
      this.#authorization = basic(`${urlUser}:${urlPassword}`);
    }

    if (options.fetch) {
      this.#transport = fetchTransport(options.fetch, url.href);
    } else {
      // One pool of kept-alive sockets per client: an indexer fetches tens of thousands of blocks.
      const maxSockets = config.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
      if (!Number.isSafeInteger(maxSockets) || maxSockets < 1) throw new RangeError('maxConnections must be a whole number >= 1');
      const agentOptions = { keepAlive: true, maxSockets };
      const agent = url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
      this.#agent = agent;
      this.#transport = nodeTransport(url, agent);
    }
  }

  /** The endpoint without credentials, safe to log. */
  get url(): string {
    return this.#shownUrl;
  }

  async call<T = unknown>(method: string, params: unknown[] = [], options: CallOptions = {}): Promise<T> {
    const id = this.#nextId++;
    const parsed = await this.#post(JSON.stringify({ jsonrpc: '1.0', id, method, params }), method, options);
    const reply = asReply(parsed.value);
    if (!reply) throw this.#badResponse(parsed.answer, method, 'the answer is not a JSON-RPC reply');
    if (reply.error !== null && reply.error !== undefined) throw toRpcError(reply.error, method);
    if (parsed.answer.status !== 200) throw this.#badResponse(parsed.answer, method, 'an HTTP error without a JSON-RPC error');
    return reply.result as T;
  }

  /** One HTTP request carrying all calls; results come back in request order. */
  async batch<T = unknown>(calls: readonly RpcCall[], options: CallOptions = {}): Promise<Array<RpcBatchEntry<T>>> {
    if (calls.length === 0) return [];
    const firstId = this.#nextId;
    this.#nextId += calls.length;
    const body = JSON.stringify(calls.map((c, i) => ({ jsonrpc: '1.0', id: firstId + i, method: c.method, params: c.params ?? [] })));
    const label = `batch of ${calls.length}`;
    const parsed = await this.#post(body, label, options);
    if (!Array.isArray(parsed.value)) {
      // A whole-request failure (e.g. parse error) comes back as a single reply object.
      const reply = asReply(parsed.value);
      if (reply?.error) throw toRpcError(reply.error, label);
      throw this.#badResponse(parsed.answer, label, 'expected a JSON array of replies');
    }
    const out = new Array<RpcBatchEntry<T> | undefined>(calls.length);
    for (const item of parsed.value) {
      const reply = asReply(item);
      const index = typeof reply?.id === 'number' ? reply.id - firstId : -1;
      if (!reply || index < 0 || index >= calls.length || out[index] !== undefined) {
        throw this.#badResponse(parsed.answer, label, 'a reply with an unknown or repeated id');
      }
      const method = calls[index]?.method;
      out[index] = reply.error !== null && reply.error !== undefined ? { error: toRpcError(reply.error, method) } : { result: reply.result as T };
    }
    const missing = out.findIndex((e) => e === undefined);
    if (missing !== -1) throw this.#badResponse(parsed.answer, label, `no reply for call ${missing} (${calls[missing]?.method})`);
    return out as Array<RpcBatchEntry<T>>;
  }

  /** Closes idle kept-alive sockets. The client stays usable (new sockets are opened on demand). */
  close(): void {
    this.#agent?.destroy();
  }

  async #post(body: string, label: string, options: CallOptions): Promise<{ answer: HttpAnswer; value: unknown }> {
    let answer = await this.#send(body, label, await this.#auth(false));
    if ((answer.status === 401 || answer.status === 403) && this.#cookieFile !== undefined) {
      // The node rewrites its cookie on every restart: read it again once.
      answer = await this.#send(body, label, await this.#auth(true));
    }
    if (answer.status === 401 && this.#authorization === undefined && this.#cookieFile === undefined) {
      throw new UpstreamError('auth', `the node at ${this.#shownUrl} wants credentials and none are configured: give the backend cookieFile, or username and password`);
    }
    if (answer.status === 401 || answer.status === 403) {
      throw new UpstreamError(
        'auth',
        `the node refused the RPC credentials (HTTP ${answer.status}) at ${this.#shownUrl}` +
          (this.#cookieFile !== undefined ? ` (cookie file ${this.#cookieFile})` : ': check rpcuser/rpcpassword or rpcauth') +
          (answer.status === 403 ? ', and that -rpcallowip admits this client' : ''),
      );
    }
    // Between `stop` and closing its port the node answers every request with libevent's own 503
    // page; an overloaded one answers 503 "Work queue depth exceeded", which stays a bad response.
    if (answer.status === 503 && !answer.body.includes('Work queue depth exceeded')) {
      throw new UpstreamError('stopping', `the node at ${this.#shownUrl} is shutting down (it turned ${label} away with HTTP 503)`);
    }
    // bitcoind answers errors with HTTP 500 (404 for an unknown method) and a JSON body: parse first.
    let value: unknown;
    try {
      value = options.exactNumbers ? JSON.parse(answer.body, exactReviver) : JSON.parse(answer.body);
    } catch {
      throw this.#badResponse(answer, label, 'the body is not JSON');
    }
    return { answer, value };
  }

  async #auth(reread: boolean): Promise<string | undefined> {
    if (this.#cookieFile === undefined || (this.#authorization !== undefined && !reread)) return this.#authorization;
    let text: string;
    try {
      text = await readCookieFile(this.#cookieFile);
    } catch (err) {
      throw new UpstreamError('auth', err instanceof Error ? err.message : String(err), { cause: err });
    }
    this.#authorization = basic(text);
    return this.#authorization;
  }

  async #send(body: string, label: string, authorization: string | undefined): Promise<HttpAnswer> {
    try {
      return await this.#transport(body, authorization, this.#timeoutMs);
    } catch (err) {
      if (err instanceof TimedOut) {
        throw new UpstreamError('timeout', `the node at ${this.#shownUrl} did not answer ${label} within ${this.#timeoutMs} ms`, { cause: err });
      }
      throw new UpstreamError('unreachable', `cannot reach the node at ${this.#shownUrl} (${describeNetworkError(err)})`, { cause: err });
    }
  }

  #badResponse(answer: HttpAnswer, label: string, what: string): UpstreamError {
    const snippet = answer.body.trim().slice(0, 200);
    const hint = snippet.includes('Work queue depth exceeded') ? ' (the node is overloaded: lower maxConnections or raise its -rpcworkqueue)' : '';
    return new UpstreamError(
      'bad-response',
      `unexpected answer to ${label} from ${this.#shownUrl}: HTTP ${answer.status} ${answer.statusText}, ${what}` +
        (snippet ? `: ${JSON.stringify(snippet)}` : ' (empty body)') +
        hint,
    );
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function basic(userColonPassword: string): string {
  return `Basic ${Buffer.from(userColonPassword, 'utf8').toString('base64')}`;
}

interface Reply {
  result?: unknown;
  error?: unknown;
  id?: unknown;
}

function asReply(value: unknown): Reply | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (!('result' in value) && !('error' in value)) return undefined;
  return value as Reply;
}

function toRpcError(error: unknown, method: string | undefined): RpcError {
  if (typeof error === 'object' && error !== null) {
    const e = error as { code?: unknown; message?: unknown };
    const code = typeof e.code === 'number' ? e.code : Number(e.code);
    const message = typeof e.message === 'string' ? e.message : JSON.stringify(error);
    return new RpcError(Number.isFinite(code) ? code : 0, message, method);
  }
  return new RpcError(0, typeof error === 'string' ? error : JSON.stringify(error), method);
}

const SAFE_INTEGER_TEXT = /^-?\d{1,15}$/;

// JSON.parse passes the literal's source text as a third argument (V8 >= 11.4, Node >= 21).
function exactReviver(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  const source = context.source;
  if (SAFE_INTEGER_TEXT.test(source) || (Number.isSafeInteger(value) && /^-?\d+$/.test(source))) return value;
  return source;
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

function describeNetworkError(err: unknown): string {
  // fetch wraps the socket error in `cause`.
  const inner = typeof err === 'object' && err !== null && 'cause' in err && err.cause instanceof Error ? err.cause : err;
  const code = errorCode(inner);
  const message = inner instanceof Error ? inner.message : String(inner);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function isStaleSocketError(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ECONNRESET' || code === 'EPIPE' || (err instanceof Error && err.message === 'socket hang up');
}

function nodeTransport(url: URL, agent: http.Agent): Transport {
  const request = url.protocol === 'https:' ? https.request : http.request;
  const once = (body: string, authorization: string | undefined, timeoutMs: number): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      };
      if (authorization !== undefined) headers.authorization = authorization;
      let timer: NodeJS.Timeout | undefined;
      let timedOut = false;
      const fail = (err: unknown): void => {
        clearTimeout(timer);
        reject(timedOut ? new TimedOut() : err);
      };
      const req = request(url, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete) fail(new Error('the node closed the connection mid-answer'));
        });
      });
      // The clock starts when a socket is assigned: calls queued behind maxConnections are not the
      // node being slow. A plain timer, since it must be cleared once the socket serves someone else.
      req.once('socket', () => {
        timer = setTimeout(() => {
          timedOut = true;
          req.destroy(new TimedOut());
        }, timeoutMs);
      });
      req.on('error', (err) => fail(req.reusedSocket && isStaleSocketError(err) ? new StaleSocket(err) : err));
      req.end(body);
    });
  return async (body, authorization, timeoutMs) => {
    try {
      return await once(body, authorization, timeoutMs);
    } catch (err) {
      // A kept-alive socket the node closed while idle (-rpcservertimeout) fails on reuse before the
      // node reads anything: one retry on a fresh socket is safe.
      if (err instanceof StaleSocket) return await once(body, authorization, timeoutMs);
      throw err;
    }
  };
}

function fetchTransport(fetchImpl: typeof fetch, href: string): Transport {
  return async (body, authorization, timeoutMs) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization !== undefined) headers.authorization = authorization;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetchImpl(href, { method: 'POST', headers, body, signal });
      return { status: res.status, statusText: res.statusText, body: await res.text() };
    } catch (err) {
      throw signal.aborted ? new TimedOut() : err;
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Amounts: verbose RPC answers carry coins as JSON decimals (0.00012345); we keep integer units.

const DECIMAL_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const MAX_EXPONENT = 100;

function checkDecimals(decimals: number): void {
  if (!Number.isSafeInteger(decimals) || decimals < 0 || decimals > 100) {
    throw new RangeError(`decimals must be a whole number from 0 to 100, not ${decimals}`);
  }
}

/**
 * Coins as a JSON number or decimal string -> integer units, exactly. A number goes through its
 * shortest round-trip decimal string (never float arithmetic), which recovers every amount with
 * 8 decimals below 2^26 coins; larger amounts need the source text (CallOptions.exactNumbers).
 */
export function coinsToUnits(value: number | string, decimals = 8): bigint {
  checkDecimals(decimals);
  // Fast path for the usual case (the indexer converts every output): below 2^20 coins the
  // product has an error far under half a unit, and the round trip proves the amount had no
  // more decimals than allowed. Anything else takes the exact decimal path below.
  if (typeof value === 'number' && Math.abs(value) < 1_048_576 && decimals === 8) {
    const scaled = Math.round(value * 1e8);
    if (scaled / 1e8 === value) return BigInt(scaled);
  }
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`amount ${value} is not a finite number`);
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    throw new TypeError(`amount must be a number or a decimal string, not ${typeof value}`);
  }
  const m = DECIMAL_RE.exec(text);
  const intDigits = m?.[2] ?? '';
  const fracDigits = m?.[3] ?? '';
  if (!m || intDigits.length + fracDigits.length === 0) throw new RangeError(`amount ${JSON.stringify(text)} is not a decimal number`);
  const exponent = m[4] === undefined ? 0 : Number(m[4]);
  if (Math.abs(exponent) > MAX_EXPONENT) throw new RangeError(`amount ${JSON.stringify(text)} is out of range`);

  // digits × 10^(exponent - fracDigits.length) coins, × 10^decimals units.
  let digits = (intDigits + fracDigits).replace(/^0+(?=\d)/, '');
  let scale = exponent - fracDigits.length + decimals;
  if (scale < 0) {
    const dropped = digits.slice(Math.max(0, digits.length + scale));
    if (/[^0]/.test(dropped)) {
      throw new RangeError(`amount ${JSON.stringify(text)} has more than ${decimals} decimal places`);
    }
    digits = digits.slice(0, Math.max(0, digits.length + scale)) || '0';
    scale = 0;
  }
  const units = BigInt(digits) * 10n ** BigInt(scale);
  return m[1] === '-' ? -units : units;
}

/** Integer units -> exact decimal string of coins (no exponent, no trailing zeros), e.g. for RPC params. */
export function unitsToCoins(units: bigint, decimals = 8): string {
  checkDecimals(decimals);
  if (typeof units !== 'bigint') throw new TypeError(`units must be a bigint, not ${typeof units}`);
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const base = 10n ** BigInt(decimals);
  const whole = (abs / base).toString();
  const fraction = decimals === 0 ? '' : (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
