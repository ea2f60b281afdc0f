// The blockbook backend for ethereum: balances, token balances, history, nonce and gas price from a
// Blockbook; what create chose is kept in our store like with evm-rpc. Blockbook's REST API has no
// gas estimate, so token transfers without gas_limit get the configured limit (unused gas is refunded).
import type { Logger } from 'pino';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { transactionHash } from '../../../shared/coins/ethereum-tx.ts';
import { ApiError, UpstreamFailure } from '../../errors.ts';
import type { Store } from '../../store/database.ts';
import { EvmIndexStore, type EvmHistoryRow } from '../../store/evm-index.ts';
import type { BackendStatus } from '../backend.ts';
import type { EvmChain, GasQuestion, PendingCreates } from '../evm/evm-chain.ts';
import { checkedDecimals, eip55, saneName, saneSymbol, type TokenInfo } from '../evm/erc20-metadata.ts';
import { mapLimited } from '../upstream-utxo.ts';
import { coinsToUnits } from '../utxo/rpc-client.ts';
import { BlockbookApi, type BlockbookTx, type UpstreamTiming } from './blockbook-api.ts';

export interface BlockbookEthereumOptions {
  network: string;
  url: string;
  chainId: bigint;
  erc20GasLimit: bigint;
  /** Largest page asked for, at most Blockbook's 1000. */
  pageSize: number;
  timing: UpstreamTiming;
  store: Store;
  log: Logger;
}

const PARALLEL = 8;
const ETHER_TRANSFER_GAS = 21_000n;
const ETHER_DECIMALS = 18;

const lower = (a: string | undefined) => (a ?? '').toLowerCase();

export class BlockbookEthereum implements EvmChain {
  readonly network: string;
  readonly pendingCreates: PendingCreates;
  readonly api: BlockbookApi;

  constructor(private readonly o: BlockbookEthereumOptions) {
    this.network = o.network;
    this.api = new BlockbookApi(o.url, 'blockbook ethereum', o.timing);
    this.pendingCreates = new EvmIndexStore(o.store, `ethereum/${o.network}`);
  }

  start(): void {
    // Blockbook follows the chain itself.
  }

  async stop(): Promise<void> {}

  async chainId(): Promise<bigint> {
    return this.o.chainId;
  }

  async requireContract(address: string, field = 'contract_id'): Promise<void> {
    const a = await this.api.address(address, { details: 'basic' });
    if (!a.contractInfo && !a.erc20Contract) throw this.notAContract(address, field);
  }

  private notAContract(address: string, field: string): ApiError {
    return new ApiError(400, `field "${field}": ${address} is not a token contract ${this.api.upstream} knows on this chain`);
  }

  /**
   * The metadata Blockbook keeps for the contract (one request). Blockbook reads it from the chain,
   * but its REST API offers no eth_call to read it ourselves, and it smooths over two gaps: a
   * contract whose decimals() fails is reported with 18 (bchain/coins/eth/contract.go), and one
   * without a name() is no contract to it (refused here like any non-contract).
   */
  async tokenInfo(contract: string): Promise<TokenInfo> {
    const a = await this.api.address(contract, { details: 'basic' });
    const info = a.contractInfo ?? a.erc20Contract;
    if (!info) throw this.notAContract(contract, 'contract');
    const shown = eip55(contract);
    if (info.contract !== undefined && info.contract.toLowerCase() !== contract) {
      throw new UpstreamFailure(false, `${this.api.upstream} answered for contract ${info.contract.slice(0, 60)} when asked about ${shown}`);
    }
    const standard = info.standard || info.type || '';
    if (/721|1155/.test(standard)) throw new ApiError(422, `${this.api.upstream} knows ${shown} as an ${standard} contract (non-fungible tokens), not an ERC20 token`);
    if (info.decimals === undefined) throw new UpstreamFailure(false, `${this.api.upstream} reported no decimals for ${shown}`);
    return { contract: shown, name: saneName(info.name), symbol: saneSymbol(info.symbol), decimals: checkedDecimals(shown, info.decimals, this.api.upstream) };
  }

  async balance(address: string, token: string | null): Promise<{ confirmed: bigint; unconfirmed: bigint }> {
    if (token === null) {
      // above "basic": only then does Blockbook add up the mempool
      const a = await this.api.address(address, { details: 'txids', pageSize: 1 });
      return { confirmed: a.balance, unconfirmed: a.unconfirmedBalance };
    }
    const a = await this.api.address(address, { details: 'tokenBalances', contract: token });
    const row = a.tokens.find((t) => lower(t.contract) === token);
    // Blockbook keeps token balances of mined blocks only.
    return { confirmed: row?.balance ?? 0n, unconfirmed: 0n };
  }

  async history(addresses: readonly string[], token: string | null, limit: number, offset: number): Promise<{ total: number; rows: EvmHistoryRow[] }> {
    const lists = await mapLimited(addresses, PARALLEL, (a) => this.addressHistory(a, token, offset + limit));
    const rows = lists
      .flatMap((l) => l.rows)
      .sort((a, b) => b.height - a.height || (a.txid < b.txid ? 1 : a.txid > b.txid ? -1 : 0) || (a.address < b.address ? -1 : 1));
    return { total: lists.reduce((t, l) => t + l.total, 0), rows: rows.slice(offset, offset + limit) };
  }

  /**
   * Mined transfers of one address, newest first, at least `wanted` of them when it has that many.
   * The total is exact once every page was read; before, it is Blockbook's transaction count (an
   * upper bound: calls without a transfer to or from the address count there too).
   */
  private async addressHistory(address: string, token: string | null, wanted: number): Promise<{ total: number; rows: EvmHistoryRow[] }> {
    let pageSize = Math.min(this.o.pageSize, Math.max(1, wanted));
    const query = { details: 'txs', ...(token !== null ? { contract: token } : {}) };
    let first = await this.api.address(address, { ...query, page: 1, pageSize });
    const minedOnFirst = first.transactions.filter((tx) => tx.blockHeight > 0).length;
    if (first.unconfirmedTxs > 0 && minedOnFirst < Math.min(wanted, first.txs) && pageSize < this.o.pageSize) {
      // The mempool took places on page 1 that mined transactions were wanted in: ask a bigger page 1.
      pageSize = Math.min(this.o.pageSize, wanted + first.unconfirmedTxs);
      first = await this.api.address(address, { ...query, page: 1, pageSize });
    }
    const rows: EvmHistoryRow[] = [];
    const take = (txs: readonly BlockbookTx[]) => {
      for (const tx of txs) {
        if (tx.blockHeight <= 0) continue; // the mempool: our history lists mined transfers only
        const row = this.rowOf(tx, address, token);
        if (row) rows.push(row);
      }
      return txs.filter((tx) => tx.blockHeight > 0).length;
    };
    let seen = take(first.transactions);
    // Mempool transactions fill page 1 only; later pages hold mined ones in pages of page 1's rest.
    const minedPageSize = pageSize - Math.min(first.unconfirmedTxs, pageSize);
    for (let page = 2; minedPageSize > 0 && rows.length < wanted && seen < first.txs; page++) {
      const next = await this.api.address(address, { ...query, page, pageSize: minedPageSize });
      const n = take(next.transactions);
      if (n === 0) break;
      seen += n;
    }
    return { total: seen >= first.txs ? rows.length : first.txs, rows };
  }

  /** The net transfer of Ether (or of the token) a mined transaction made to or from the address. */
  private rowOf(tx: BlockbookTx, address: string, token: string | null): EvmHistoryRow | null {
    if (tx.ethereumSpecific?.status === 0) return null; // failed: nothing moved
    let delta = 0n;
    if (token === null) {
      const from = lower(tx.vin[0]?.addresses?.[0]);
      const to = lower(tx.vout[0]?.addresses?.[0]);
      if (to === address) delta += tx.value;
      if (from === address) delta -= tx.value;
    } else {
      for (const t of tx.tokenTransfers) {
        if (lower(t.contract) !== token) continue;
        if (lower(t.to) === address) delta += t.value;
        if (lower(t.from) === address) delta -= t.value;
      }
    }
    if (delta === 0n) return null;
    return { txid: tx.txid.toLowerCase(), address, delta, height: tx.blockHeight, time: tx.blockTime };
  }

  indexedHeight(): Promise<number | null> {
    return this.api.bestHeight();
  }

  async pendingNonce(address: string): Promise<bigint> {
    const a = await this.api.address(address, { details: 'basic' });
    return BigInt(a.nonce ?? '0'); // Blockbook leaves out a zero nonce
  }

  async gasPrice(): Promise<bigint> {
    const text = await this.api.estimateFee(1);
    let wei: bigint;
    try {
      wei = coinsToUnits(text, ETHER_DECIMALS);
    } catch {
      wei = 0n;
    }
    if (wei <= 0n) throw new UpstreamFailure(false, `${this.api.upstream} answered the gas price with ${JSON.stringify(text.slice(0, 40))}, not an amount`);
    return wei;
  }

  async estimateGas(tx: GasQuestion): Promise<bigint> {
    return tx.data === '0x' ? ETHER_TRANSFER_GAS : this.o.erc20GasLimit;
  }

  async broadcast(raw: Uint8Array): Promise<string> {
    const r = await this.api.sendTx(`0x${bytesToHex(raw)}`);
    if ('txid' in r) {
      const txid = transactionHash(raw);
      if (r.txid.toLowerCase() !== txid) throw new UpstreamFailure(false, `${this.api.upstream} accepted transaction ${txid} but answered with ${r.txid.slice(0, 80)}`);
      return txid;
    }
    if (/already known|known transaction/i.test(r.refused)) return '';
    if (/nonce/i.test(r.refused)) throw new ApiError(409, `${this.api.upstream} refused the transaction: ${r.refused}`);
    throw new ApiError(422, `${this.api.upstream} rejected the transaction: ${r.refused}`);
  }

  status(): Promise<BackendStatus> {
    return this.api.backendStatus();
  }
}
