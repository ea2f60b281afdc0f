// Follows an EVM node: writes every Ether value transfer and every ERC20 Transfer log of each
// block from `startHeight` on (docs/ethereum-index.md), with the block hashes, and rolls back to
// the fork point when the node's chain no longer matches the stored hashes.
import type { Logger } from 'pino';
import type { EvmBlock, EvmIndexStore, EvmTransfer } from '../../store/evm-index.ts';
import type { EvmRpc, RpcBlock } from './evm-rpc.ts';
import { PollLoop } from '../poll-loop.ts';

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const BATCH_BLOCKS = 100;

export interface EvmIndexerOptions {
  rpc: EvmRpc;
  index: EvmIndexStore;
  log: Logger;
  /** null: the node's tip at the first pass (no history before the service started). */
  startHeight: number | null;
  pollIntervalMs: number;
  /** False while another instance writes this index (service/leader): then only watch. */
  leading?: () => boolean;
}

export class EvmIndexer {
  private readonly loop: PollLoop;
  tipHeight: number | null = null;
  indexedHeight: number | null = null;

  constructor(private readonly o: EvmIndexerOptions) {
    this.loop = new PollLoop(() => this.pass(), {
      pollIntervalMs: o.pollIntervalMs,
      onError: (message, first) => {
        if (first) o.log.warn({ err: message }, 'evm index pass failed, retrying');
      },
    });
  }

  get error(): string | null {
    return this.loop.error;
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A full pass that starts after this call. */
  sync(): Promise<void> {
    return this.loop.sync();
  }

  private leads(): boolean {
    return this.o.leading?.() ?? true;
  }

  private async pass(): Promise<void> {
    const { rpc, index } = this.o;
    const tip = await rpc.blockNumber();
    this.tipHeight = tip;
    if (!this.leads()) {
      this.indexedHeight = (await index.tip())?.height ?? null; // another instance writes: only watch
      return;
    }
    let stored = await index.tip();
    // Reorg: walk back until the stored hash is the node's, then forget what lies above.
    while (stored) {
      const block = await rpc.block(stored.height);
      if (block && block.hash === stored.hash) break;
      const parent = stored.height - 1;
      const parentHash = await index.blockHash(parent);
      this.o.log.info({ height: stored.height }, 'evm reorg: rolling back a block');
      await index.rollbackAbove(parent);
      stored = parentHash === null ? null : { height: parent, hash: parentHash, time: 0 };
    }
    let next = stored ? stored.height + 1 : (this.o.startHeight ?? tip);
    let prevHash = stored?.hash ?? null;
    this.indexedHeight = stored?.height ?? null;
    while (next <= tip && this.leads()) {
      const last = Math.min(tip, next + BATCH_BLOCKS - 1);
      const heights = Array.from({ length: last - next + 1 }, (_, i) => next + i);
      const [blocks, logs] = await Promise.all([Promise.all(heights.map((h) => rpc.block(h))), rpc.logs(next, last, TRANSFER_TOPIC)]);
      const chain: RpcBlock[] = [];
      for (const b of blocks) {
        if (!b) break;
        if (prevHash !== null && b.parentHash !== prevHash) break; // the chain moved under us: next pass sorts it out
        chain.push(b);
        prevHash = b.hash;
      }
      if (chain.length === 0) {
        await index.rollbackAbove(next - 2);
        return;
      }
      const byHash = new Map(chain.map((b) => [b.hash, b]));
      const transfers: EvmTransfer[] = [];
      for (const b of chain) {
        const valued = b.transactions.filter((t) => t.value > 0n && t.to);
        const statuses = await Promise.all(valued.map((t) => rpc.receiptStatus(t.hash)));
        valued.forEach((t, i) => {
          if (!statuses[i]?.ok) return;
          transfers.push({ txid: t.hash, logIndex: -1, token: '', from: t.from, to: t.to!, amount: t.value, height: Number(b.number), time: Number(b.timestamp) });
        });
      }
      for (const l of logs) {
        const b = byHash.get(l.blockHash);
        // ERC20 Transfer has 3 topics (ERC721's has 4: its third is a token id, not an amount).
        if (!b || l.removed || l.topics.length !== 3 || l.data.length !== 66) continue;
        transfers.push({
          txid: l.transactionHash,
          logIndex: Number(l.logIndex),
          token: l.address,
          from: `0x${l.topics[1]!.slice(26)}`,
          to: `0x${l.topics[2]!.slice(26)}`,
          amount: BigInt(l.data),
          height: Number(b.number),
          time: Number(b.timestamp),
        });
      }
      const written: EvmBlock[] = chain.map((b) => ({ height: Number(b.number), hash: b.hash, time: Number(b.timestamp) }));
      await index.write(written, transfers);
      this.indexedHeight = written[written.length - 1]!.height;
      if (chain.length < blocks.length) return;
      next = last + 1;
    }
  }
}
