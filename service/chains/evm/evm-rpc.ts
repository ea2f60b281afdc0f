// The EVM node over JSON-RPC (ethers v6 provider, which batches concurrent calls). Replies are
// validated before use; failures become 502/504, refusals of a broadcast keep the node's reason.
import { JsonRpcProvider } from 'ethers';
import { z } from 'zod';
import { ApiError, UpstreamFailure } from '../../errors.ts';

const Quantity = z.string().regex(/^0x[0-9a-fA-F]+$/).transform((v) => BigInt(v));
const Hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/).transform((v) => v.toLowerCase());
const Data = z.string().regex(/^0x([0-9a-fA-F]{2})*$/);

const RpcTx = z.object({ hash: Hash, from: Address, to: Address.nullable().optional(), value: Quantity }).loose();
export const RpcBlock = z
  .object({ number: Quantity, hash: Hash, parentHash: Hash, timestamp: Quantity, transactions: z.array(RpcTx) })
  .loose();
export type RpcBlock = z.infer<typeof RpcBlock>;
export const RpcLog = z
  .object({ address: Address, topics: z.array(Hash), data: Data, blockNumber: Quantity, blockHash: Hash, transactionHash: Hash, logIndex: Quantity, removed: z.boolean().optional() })
  .loose();
export type RpcLog = z.infer<typeof RpcLog>;
const Receipt = z.object({ status: Quantity.nullable().optional(), blockHash: Hash }).loose();

const hexQ = (n: bigint | number) => `0x${n.toString(16)}`;

/** The contract itself refused an eth_call (it reverted): an answer about the contract, not a node failure. */
export class CallReverted extends UpstreamFailure {}

/** ethers turns every eth_call error into CALL_EXCEPTION; a revert is the one whose node error says so. */
function isRevert(err: unknown): boolean {
  const e = err as { code?: unknown; info?: { error?: { code?: unknown; message?: unknown } } };
  if (e?.code !== 'CALL_EXCEPTION') return false;
  const nodeError = e.info?.error;
  return nodeError?.code === 3 || (typeof nodeError?.message === 'string' && /revert/i.test(nodeError.message));
}

export class EvmRpc {
  private readonly provider: JsonRpcProvider;

  constructor(
    readonly url: string,
    private readonly timeoutMs: number,
  ) {
    // A static network: ethers would otherwise poll chainId on every call.
    this.provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, batchMaxCount: 50 });
  }

  async call<T>(method: string, params: unknown[], schema: z.ZodType<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let raw: unknown;
    try {
      raw = await Promise.race([
        this.provider.send(method, params),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new UpstreamFailure(true, `EVM node ${method} timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
        }),
      ]);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (isRevert(err)) throw new CallReverted(false, `EVM node ${method} reverted: ${reasonOf(err)}`);
      throw new UpstreamFailure(false, `EVM node ${method} failed: ${reasonOf(err)}`);
    } finally {
      clearTimeout(timer);
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new UpstreamFailure(false, `EVM node ${method} returned an unexpected reply`);
    return parsed.data;
  }

  chainId = () => this.call('eth_chainId', [], Quantity);
  blockNumber = async () => Number(await this.call('eth_blockNumber', [], Quantity));
  gasPrice = () => this.call('eth_gasPrice', [], Quantity);
  balance = (address: string, tag: 'latest' | 'pending') => this.call('eth_getBalance', [address, tag], Quantity);
  pendingNonce = (address: string) => this.call('eth_getTransactionCount', [address, 'pending'], Quantity);
  code = (address: string) => this.call('eth_getCode', [address, 'latest'], Data);
  ethCall = (to: string, data: string, tag: 'latest' | 'pending') => this.call('eth_call', [{ to, data }, tag], Data);
  /** A view call at the tip: its answer, or null when the contract reverted; a failing node still throws. */
  viewCall = (to: string, data: string): Promise<string | null> =>
    this.ethCall(to, data, 'latest').catch((err: unknown) => {
      if (err instanceof CallReverted) return null;
      throw err;
    });
  estimateGas = (tx: { from: string; to: string; value: bigint; data: string }) =>
    this.call('eth_estimateGas', [{ from: tx.from, to: tx.to, value: hexQ(tx.value), data: tx.data }], Quantity);
  block = (height: number) => this.call('eth_getBlockByNumber', [hexQ(height), true], RpcBlock.nullable());
  receiptStatus = async (txid: string) => {
    const r = await this.call('eth_getTransactionReceipt', [txid], Receipt.nullable());
    return r ? { ok: r.status === undefined || r.status === null || r.status === 1n, blockHash: r.blockHash } : null;
  };
  logs = (fromHeight: number, toHeight: number, topic0: string) =>
    this.call('eth_getLogs', [{ fromBlock: hexQ(fromHeight), toBlock: hexQ(toHeight), topics: [topic0] }], z.array(RpcLog));

  /** Broadcasts; a refusal by the node keeps its reason (nonce too low: 409, others 400). */
  async sendRaw(rawHex: string): Promise<string> {
    try {
      const txid = await this.provider.send('eth_sendRawTransaction', [rawHex]);
      return Hash.parse(txid);
    } catch (err) {
      const reason = reasonOf(err);
      if (/already known|known transaction/i.test(reason)) return '';
      if (/nonce/i.test(reason)) throw new ApiError(409, `the network refused the transaction: ${reason}`);
      if (/ECONNREFUSED|timeout|socket|fetch failed/i.test(reason)) throw new UpstreamFailure(false, `EVM node unreachable: ${reason}`);
      throw new ApiError(400, `the network refused the transaction: ${reason}`);
    }
  }

  destroy(): void {
    this.provider.destroy();
  }
}

function reasonOf(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { error?: { message?: unknown }; shortMessage?: unknown; message?: unknown };
    if (typeof e.error?.message === 'string') return e.error.message;
    if (typeof e.shortMessage === 'string') return e.shortMessage;
    if (typeof e.message === 'string') return e.message;
  }
  return String(err);
}
