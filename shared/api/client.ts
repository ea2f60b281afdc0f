// A typed client of the v2 API: the desktop app and tests talk to the service only through it.
// Responses are parsed with the same zod schemas the service answers with.
import type { z } from 'zod';
import { stringifyApiJson, parseApiJson } from './json.ts';
import { fieldProblem } from './words.ts';
import {
  Balance,
  Balances,
  Erc20Token,
  EthereumToSign,
  HashesToSign,
  MultisigHashesToSign,
  History,
  NetworkAddressesList,
  PriceHistory,
  SendStatus,
  RawTransaction,
  Status,
  Utxos,
  type CreateTransactionQueryV2,
  FeeEstimates,
  HeightAt,
  WatchStatus,
  type WatchRegistration,
  type TreasuryFieldsInput,
  type Erc20CreateQuery,
  type Erc20SendQuery,
  type EthereumCreateQuery,
  type EthereumSendQuery,
  type ExtendedKeysInput,
  type MultiSigPayment,
  type Signatures,
} from './schemas.ts';

/** The request header by which a client takes answers from an index still catching up. */
export const ACCEPT_PROVISIONAL_HEADER = 'x-countersign-accept-provisional';

/** The response header by which a cut answer of unspent outputs gives the next page's cursor (docs/api-decisions.md, section 6). */
export const NEXT_CURSOR_HEADER = 'x-countersign-next-cursor';

export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Why a request got no answer, in words a treasurer who typed the address can act on: fetch says
 * only "fetch failed", the reason is its cause's code.
 */
export function unreachableWhy(err: unknown, timeoutMs: number): string {
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') return `it did not answer within ${Math.round(timeoutMs / 1000)} s`;
  const cause = err instanceof Error ? err.cause : undefined;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string' ? cause.code : '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'no computer of that name was found: check the address';
  if (code === 'ECONNREFUSED') return 'nothing answered at that address and port: check them, and that the service is running';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'that address cannot be reached from this computer: check the network';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was cut off before it answered';
  if (CERTIFICATE_CODES.has(code)) return `its HTTPS certificate is not trusted (${code === 'CERT_HAS_EXPIRED' ? 'it has expired' : code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? 'it is for another name' : 'no trusted authority signed it'})`;
  if (code === 'EPROTO' || code.startsWith('ERR_SSL')) return 'it does not speak HTTPS at that address: check http:// or https:// and the port';
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return `${err instanceof Error ? err.message : String(err)}${detail}`;
}

export interface ApiClientOptions {
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /**
   * Send X-Countersign-Accept-Provisional: while the service's index is still catching up, address
   * answers come back (figures as far as indexed) instead of a 503 (docs/api-decisions.md).
   */
  acceptProvisional?: boolean;
}

type Query = Record<string, string | number | bigint | undefined>;

/** An ERC20 token as the address endpoints take it. */
export interface TokenRef {
  contract_id: string;
  decimal_places: number;
}

function queryString(query: Query): string {
  const parts = Object.entries(query)
    .filter((e): e is [string, string | number | bigint] => e[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export class ApiClient {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.doFetch = options.fetch ?? fetch;
  }

  private request<S extends z.ZodType>(schema: S, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<z.output<S>> {
    return this.send(schema, method, path, body);
  }

  /** One request with headers of the caller's (the relay's device signature, shared/api/relay-client.ts). */
  async send<S extends z.ZodType>(schema: S, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs?: number): Promise<z.output<S>> {
    let res: Response;
    try {
      res = await this.doFetch(`${this.base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(this.options.apiKey ? { 'x-api-key': this.options.apiKey } : {}),
          ...(this.options.acceptProvisional ? { [ACCEPT_PROVISIONAL_HEADER]: '1' } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: stringifyApiJson(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs ?? this.options.timeoutMs ?? 60_000),
      });
    } catch (err) {
      throw new ApiClientError(0, `the service at ${this.base} cannot be reached: ${unreachableWhy(err, this.options.timeoutMs ?? 60_000)}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? parseApiJson(text) : null;
    } catch {
      throw new ApiClientError(res.status, `the service answered ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) {
      const message = json && typeof json === 'object' && 'message' in json && typeof json.message === 'string' ? json.message : `HTTP ${res.status}`;
      throw new ApiClientError(res.status, message);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new ApiClientError(res.status, `the service's answer does not match the API contract: ${fieldProblem(parsed.error.issues[0])}`);
    return parsed.data;
  }

  balance(coin: string, address: string) {
    return this.request(Balance, 'GET', `/address/balance/${coin}/${encodeURIComponent(address)}`);
  }

  balances(coin: string, addresses: readonly string[]) {
    return this.request(Balances, 'GET', `/address/balances/${coin}/${addresses.map(encodeURIComponent).join(',')}`);
  }

  history(coin: string, addresses: readonly string[], page: { limit?: number; offset?: number } = {}) {
    return this.request(History, 'GET', `/address/history/${coin}/${addresses.map(encodeURIComponent).join(',')}${queryString(page)}`);
  }

  /** Extension: USD per whole coin on the UTC day of each time (unix seconds). */
  priceHistory(coin: string, at: readonly number[]) {
    return this.request(PriceHistory, 'GET', `/prices/history/${coin}${queryString({ at: at.join(',') })}`);
  }

  /** One page of the addresses' unspent outputs: next_cursor, when present, is the `cursor` of the next (docs/api-decisions.md, section 6). */
  utxos(coin: string, addresses: readonly string[], page: { limit?: number; cursor?: string } = {}) {
    return this.request(Utxos, 'GET', `/address/utxos/${coin}/${addresses.map(encodeURIComponent).join(',')}${queryString(page)}`);
  }

  toNetworkAddresses(keys: ExtendedKeysInput) {
    return this.request(NetworkAddressesList, 'POST', '/address/to_network_addresses', keys);
  }

  /** `extensions`: the treasury fields (outputs, inputs, fee_rate, replaceable...), sent as the JSON body. */
  createTransaction(coin: string, query: CreateTransactionQueryV2, extensions?: TreasuryFieldsInput) {
    return this.request(HashesToSign, 'POST', `/transaction/create/${coin}${queryString(query as Query)}`, extensions);
  }

  /** Extension: fee rates for 1, 6 and 24 blocks, units per vbyte. */
  /** Extension: the first block at or after a unix time (a wallet's birthday from a date). */
  heightAt(coin: string, unixTime: number) {
    return this.request(HeightAt, 'GET', `/blocks/${coin}/height_at/${unixTime}`);
  }

  /**
   * Extension (watch mode, docs/api-decisions.md section 11): registers a wallet with a coin served
   * with index 'watch'; the service scans from its birthday. 409: the coin runs the full index.
   */
  watchRegister(coin: string, walletId: string, registration: z.input<typeof WatchRegistration>) {
    return this.request(WatchStatus, 'PUT', `/watch/${coin}/${encodeURIComponent(walletId)}`, registration);
  }

  /** Extension: a watched wallet's scan state (404: not registered; 409: the coin runs the full index). */
  watchStatus(coin: string, walletId: string) {
    return this.request(WatchStatus, 'GET', `/watch/${coin}/${encodeURIComponent(walletId)}`);
  }

  /** Extension: watches a wallet's addresses up to the highest index shown of each branch, and the gap past them. */
  watchWindow(coin: string, walletId: string, shown: { receive: number; change: number }) {
    return this.request(WatchStatus, 'POST', `/watch/${coin}/${encodeURIComponent(walletId)}/window`, { shown });
  }

  /** Extension: reads a watched wallet's blocks again from a height. */
  watchRescan(coin: string, walletId: string, fromHeight: number) {
    return this.request(WatchStatus, 'POST', `/watch/${coin}/${encodeURIComponent(walletId)}/rescan`, { from_height: fromHeight });
  }

  feeEstimates(coin: string) {
    return this.request(FeeEstimates, 'GET', `/fee_estimates/${coin}`);
  }

  signAndSend(coin: string, body: Signatures) {
    return this.request(SendStatus, 'POST', `/transaction/sign_and_send/${coin}`, body);
  }

  sendRaw(coin: string, rawtx: string) {
    return this.request(SendStatus, 'POST', `/transaction/send_raw/${coin}${queryString({ rawtx })}`);
  }

  /** Extension: a confirmed or pending transaction's bytes (hex), for PSBTs and hardware signers. */
  rawTransaction(coin: string, txid: string) {
    return this.request(RawTransaction, 'GET', `/transaction/raw/${coin}/${txid}`);
  }

  createMultisig(coin: string, payment: MultiSigPayment) {
    return this.request(MultisigHashesToSign, 'POST', `/multi_sig/create/${coin}`, payment);
  }

  signAndSendMultisig(coin: string, body: Signatures) {
    return this.request(SendStatus, 'POST', `/multi_sig/sign_and_send/${coin}`, body);
  }

  status() {
    return this.request(Status, 'GET', '/status');
  }

  /** An ERC20 token's balance (endpoint 1 with contract_id and decimal_places). */
  tokenBalance(coin: string, address: string, token: TokenRef) {
    return this.request(Balance, 'GET', `/address/balance/${coin}/${encodeURIComponent(address)}${queryString({ ...token })}`);
  }

  /** An ERC20 token's history (endpoint 3 with contract_id and decimal_places). */
  tokenHistory(coin: string, addresses: readonly string[], token: TokenRef, page: { limit?: number; offset?: number } = {}) {
    return this.request(History, 'GET', `/address/history/${coin}/${addresses.map(encodeURIComponent).join(',')}${queryString({ ...token, ...page })}`);
  }

  /** Endpoint 11: an unsigned Ether transfer and the hash to sign (amount in GWEI). */
  createEther(query: EthereumCreateQuery) {
    return this.request(EthereumToSign, 'POST', `/ethereum/create/${queryString(query as Query)}`);
  }

  /** Endpoint 12: the same parameters as 11 plus (r, s, v). */
  signAndSendEther(query: EthereumSendQuery) {
    return this.request(SendStatus, 'POST', `/ethereum/sign_and_send/${queryString(query as Query)}`);
  }

  /** Extension: an ERC20 token's name, symbol and decimals, as its contract reports them. */
  tokenInfo(contract: string) {
    return this.request(Erc20Token, 'GET', `/erc20/token/${encodeURIComponent(contract)}`);
  }

  /** Endpoint 13: an unsigned ERC20 transfer (amount in GWEI of the token). */
  createErc20(query: Erc20CreateQuery) {
    return this.request(EthereumToSign, 'POST', `/erc20/create/${queryString(query as Query)}`);
  }

  /** Endpoint 14: the same parameters as 13 plus (r, s, v). */
  signAndSendErc20(query: Erc20SendQuery) {
    return this.request(SendStatus, 'POST', `/erc20/sign_and_send/${queryString(query as Query)}`);
  }
}
