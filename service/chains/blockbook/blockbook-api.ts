// Blockbook API v2 over HTTP (openapi.yaml of trezor/blockbook): the requests we make and the
// shapes we accept. Answers are validated; Blockbook leaves out empty fields (zero amounts, empty
// lists), so those default here. Deadlines, retries and 502/504 come from upstream/http-json.ts.
import { z } from 'zod';
import { UpstreamFailure } from '../../errors.ts';
import type { BackendStatus } from '../backend.ts';
import { httpJson, type HttpJsonOptions, type HttpJsonRequest, UpstreamAnswer } from '../../upstream/http-json.ts';

/** Integer amount in the smallest unit, as a string. */
const Amount = z
  .string()
  .regex(/^-?[0-9]+$/, 'an amount must be an integer string')
  .transform((v) => BigInt(v));

export const BlockbookVin = z
  .object({
    n: z.number().int().nonnegative().default(0),
    txid: z.string().optional(),
    vout: z.number().int().nonnegative().optional(),
    addresses: z.array(z.string()).nullish(),
    value: Amount.default(0n),
  })
  .loose();

export const BlockbookVout = z
  .object({
    n: z.number().int().nonnegative().default(0),
    value: Amount.default(0n),
    /** the output's scriptPubKey */
    hex: z.string().optional(),
    addresses: z.array(z.string()).nullish(),
  })
  .loose();

export const BlockbookTokenTransfer = z
  .object({ from: z.string(), to: z.string(), contract: z.string(), decimals: z.number().int().optional(), value: Amount.default(0n) })
  .loose();

export const BlockbookTx = z
  .object({
    txid: z.string(),
    vin: z.array(BlockbookVin),
    vout: z.array(BlockbookVout),
    /** -1 while in the mempool */
    blockHeight: z.number().int(),
    confirmations: z.number().int().nonnegative().default(0),
    blockTime: z.number().int().nonnegative().default(0),
    value: Amount.default(0n),
    hex: z.string().optional(),
    tokenTransfers: z.array(BlockbookTokenTransfer).default([]),
    /** status: 1 success, 0 failed, -1 pending */
    ethereumSpecific: z.object({ status: z.number().int() }).loose().optional(),
  })
  .loose();
export type BlockbookTx = z.infer<typeof BlockbookTx>;

export const BlockbookToken = z
  .object({ contract: z.string().optional(), balance: Amount.default(0n), decimals: z.number().int().optional(), transfers: z.number().int().default(0) })
  .loose();

/**
 * What Blockbook knows of a contract (ContractInfoResult in its openapi.yaml). It reads name, symbol
 * and decimals from the chain when it first meets the contract; empty strings mean none.
 */
export const BlockbookContractInfo = z
  .object({
    standard: z.string().optional(),
    /** deprecated by Blockbook in favour of standard; older instances send only this */
    type: z.string().optional(),
    contract: z.string().optional(),
    name: z.string().optional(),
    symbol: z.string().optional(),
    /** checked where it is used: a balance query must not fail over it */
    decimals: z.number().optional(),
  })
  .loose();
export type BlockbookContractInfo = z.infer<typeof BlockbookContractInfo>;

export const BlockbookAddress = z
  .object({
    page: z.number().int().optional(),
    totalPages: z.number().int().optional(),
    address: z.string(),
    balance: Amount.default(0n),
    unconfirmedBalance: Amount.default(0n),
    /** confirmed transactions */
    txs: z.number().int().nonnegative().default(0),
    unconfirmedTxs: z.number().int().nonnegative().default(0),
    nonTokenTxs: z.number().int().nonnegative().optional(),
    transactions: z.array(BlockbookTx).default([]),
    /** Ethereum: the next nonce, pending transactions counted */
    nonce: z.string().regex(/^[0-9]+$/).optional(),
    tokens: z.array(BlockbookToken).default([]),
    contractInfo: BlockbookContractInfo.optional(),
    /** the older name of contractInfo */
    erc20Contract: BlockbookContractInfo.optional(),
  })
  .loose();
export type BlockbookAddress = z.infer<typeof BlockbookAddress>;

export const BlockbookUtxo = z
  .object({
    txid: z.string().regex(/^[0-9a-f]{64}$/),
    vout: z.number().int().nonnegative().default(0),
    value: Amount.default(0n),
    /** absent while in the mempool */
    height: z.number().int().positive().optional(),
    confirmations: z.number().int().nonnegative().default(0),
  })
  .loose();

export const BlockbookStatus = z
  .object({
    blockbook: z.object({ bestHeight: z.number().int().nonnegative(), inSync: z.boolean().optional(), mempoolSize: z.number().int().optional() }).loose(),
    backend: z.object({ chain: z.string().optional(), blocks: z.number().int().optional(), error: z.string().optional() }).loose().default({}),
  })
  .loose();

const TIP_TTL_MS = 2_000;

const Result = z.object({ result: z.string() }).loose();

export interface UpstreamTiming {
  timeoutMs: number;
  retries: number;
  backoffMs: number;
}

/** The reason in a Blockbook error answer ({"error": "..."}), or the start of the body. */
export function blockbookError(answer: UpstreamAnswer): string {
  try {
    const parsed = z.object({ error: z.string() }).safeParse(JSON.parse(answer.body));
    if (parsed.success) return parsed.data.error;
  } catch {
    // not JSON: fall through
  }
  return answer.body.slice(0, 300);
}

export class BlockbookApi {
  private readonly options: HttpJsonOptions;
  private readonly base: string;

  constructor(
    url: string,
    /** names the upstream in every message, e.g. "blockbook litecoin" */
    readonly name: string,
    timing: UpstreamTiming,
  ) {
    this.base = url.replace(/\/+$/, '');
    this.options = { name: `${name} (${new URL(url).host})`, ...timing };
  }

  /** The upstream as messages name it. */
  get upstream(): string {
    return this.options.name;
  }

  private async request<T>(path: string, schema: z.ZodType<T>, request: HttpJsonRequest = {}): Promise<T> {
    const raw = await httpJson(`${this.base}${path}`, request, this.options);
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UpstreamFailure(false, `${this.upstream} answered ${path.split('?')[0]} with an unexpected shape (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'})`);
    }
    return parsed.data;
  }

  /** A GET whose error answers are failures of the upstream (502), with its reason. */
  async get<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    try {
      return await this.request(path, schema);
    } catch (err) {
      if (err instanceof UpstreamAnswer) throw new UpstreamFailure(false, `${this.upstream} answered HTTP ${err.status}: ${blockbookError(err)}`);
      throw err;
    }
  }

  status() {
    return this.get('/api/status', BlockbookStatus);
  }

  private tip: { height: number; at: number } | null = null;

  /** Blockbook's newest indexed block, reused for a moment (every history answer asks for it). */
  async bestHeight(): Promise<number> {
    if (this.tip && Date.now() - this.tip.at < TIP_TTL_MS) return this.tip.height;
    const s = await this.status();
    this.tip = { height: s.blockbook.bestHeight, at: Date.now() };
    return s.blockbook.bestHeight;
  }

  /** For /status: never throws, a failure is the status's error. */
  async backendStatus(): Promise<BackendStatus & { chain?: string | null }> {
    try {
      const s = await this.status();
      this.tip = { height: s.blockbook.bestHeight, at: Date.now() };
      const error = s.backend.error ?? (s.blockbook.inSync === false ? `${this.upstream} is still synchronising` : null);
      return { backend: 'blockbook', tipHeight: s.backend.blocks ?? s.blockbook.bestHeight, indexedHeight: s.blockbook.bestHeight, mempoolTxs: s.blockbook.mempoolSize ?? 0, error, chain: s.backend.chain ?? null };
    } catch (err) {
      return { backend: 'blockbook', tipHeight: null, indexedHeight: null, mempoolTxs: 0, error: err instanceof Error ? err.message : String(err) };
    }
  }

  address(address: string, query: Record<string, string | number>) {
    const q = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    return this.get(`/api/v2/address/${encodeURIComponent(address)}?${q.toString()}`, BlockbookAddress);
  }

  utxo(address: string) {
    return this.get(`/api/v2/utxo/${encodeURIComponent(address)}`, z.array(BlockbookUtxo));
  }

  /** A transaction, or null when Blockbook does not know it (it answers 400 "... not found"). */
  async tx(txid: string): Promise<BlockbookTx | null> {
    try {
      return await this.request(`/api/v2/tx/${txid}`, BlockbookTx);
    } catch (err) {
      if (err instanceof UpstreamAnswer) {
        const reason = blockbookError(err);
        if (err.status === 400 && /not found/i.test(reason)) return null;
        throw new UpstreamFailure(false, `${this.upstream} answered HTTP ${err.status}: ${reason}`);
      }
      throw err;
    }
  }

  /** The fee estimate for a confirmation target, as Blockbook gives it: a decimal in whole coins (per kB for UTXO coins, per gas for Ethereum). */
  async estimateFee(blocks: number): Promise<string> {
    return (await this.get(`/api/v2/estimatefee/${blocks}`, Result)).result;
  }

  /**
   * Broadcasts hex (POST, body as is). Resolves to Blockbook's txid, or to the node's reason when it
   * refused the transaction (Blockbook answers those with HTTP 400 and the node's message).
   */
  async sendTx(hex: string): Promise<{ txid: string } | { refused: string }> {
    try {
      // Safe to repeat: a second copy is refused as already known, which counts as sent.
      const r = await this.request('/api/v2/sendtx/', Result, { method: 'POST', body: hex, contentType: 'text/plain', idempotent: true });
      return { txid: r.result };
    } catch (err) {
      if (err instanceof UpstreamAnswer) {
        if (err.status === 400) return { refused: blockbookError(err) };
        throw new UpstreamFailure(false, `${this.upstream} failed to broadcast: HTTP ${err.status}: ${blockbookError(err)}`);
      }
      throw err;
    }
  }
}
