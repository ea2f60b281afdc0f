// Follows a bitcoind-family node: indexes every block into the service's own address index,
// keeps the mempool's unconfirmed effects, resumes where it stopped and rolls back reorgs.
import type { Logger } from 'pino';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import type { UtxoIndexStore } from '../../index/utxo-index.ts';
import { type RpcClient, RpcError, UpstreamError } from './rpc-client.ts';
import { PollLoop } from '../poll-loop.ts';
import { BatchPipeline } from './batch-pipeline.ts';
import { readVerboseTx, type ReadBlock } from './verbose-block.ts';
import { blockFormOf, fetchBlock as fetchNodeBlock, rawBlockCodec, type BlockForm } from './block-reading.ts';
import { BlockParsePool } from './block-parse-pool.ts';
import type { IndexedTx } from '../../index/blocks.ts';
import { z } from 'zod';
import { catchUpProgress, spokenDuration, type CatchUpSample } from './catch-up-progress.ts';

/** A catch-up of at least this many blocks (an initial sync, a long downtime) is followed by a compaction of the LevelDB index. */
const COMPACT_AFTER_BLOCKS = 1_000;

export interface IndexerOptions {
  rpc: RpcClient;
  index: UtxoIndexStore;
  params: ChainParams;
  log: Logger;
  pollIntervalMs: number;
  /** Blocks fetched ahead of the one being written (bounded so memory stays flat). */
  prefetch?: number;
  /** False while another instance writes this index (service/leader): then only watch. */
  leading?: () => boolean;
  /** Called after each successful pass with its number (passes are numbered from 1 as they start). */
  afterPass?: (pass: number) => Promise<void>;
  /** Watch mode (watch-scan.ts): only registered wallets' scripts, from their birthdays. */
  watch?: WatchScope;
  /** The most serialized block bytes gathered for one write while the writer is busy (default BATCH_BYTES). */
  batchBytes?: number;
  /** Overrides the coin table's choice of raw or verbose blocks (the bench compares the two). */
  blockForm?: BlockForm;
  /** Threads that decode raw blocks (block-parse-pool.ts; default one a core); 0: the main thread decodes them. */
  parseThreads?: number;
  /**
   * Asks the node which chain it follows and throws when it is not the coin's (chain-guard.ts):
   * before every pass, so a node restarted or swapped between two passes is never read, and
   * before undoing blocks, so another chain's node is not taken for a reorganisation.
   */
  checkChain?: () => Promise<void>;
  /**
   * A watch scan's own index (watch-scans.ts): true when it should stop reading for now (the index
   * following the tip goes first); it goes on from there at its next pass. Absent: never.
   */
  yieldNow?: () => boolean;
}

/** What watch mode changes in a pass: where the index starts, which blocks are read, what is kept. */
export interface WatchScope {
  /** Loads the registrations and asks the node what it offers; before each pass. */
  prepare(): Promise<void>;
  /** The lowest birthday of the registered wallets; null: none, nothing to index. */
  startHeight(): number | null;
  /** A pruned node's first held block; null: it holds them all. */
  heldFrom(): number | null;
  /** The wallets' unspent outputs confirmed below `held`, from the node's UTXO set, as blocks of them only, up to block held - 1. */
  unspentBelow(held: number): Promise<ReadBlock[]>;
  /** A rescan asked for (a registration, a rescan, newly derived scripts): roll back below it first. */
  pendingRescan(): number | null;
  /**
   * Called once the index is rolled back below `height`, the pending rescan (kept until then, across
   * restarts); `readAgain` false: no indexed block was at or above it (new scripts that no block
   * held), so only the mempool is read again.
   */
  rescanTaken(height: number, readAgain: boolean): Promise<void>;
  /** The block at `height`, with only the outputs paying watched scripts (none when the filter misses). */
  readBlock(hash: string, height: number): Promise<ReadBlock>;
  /** A mempool tx with only the outputs paying watched scripts. */
  keepWatched(tx: IndexedTx): IndexedTx;
  /**
   * After the index reached the node's tip: derive past used addresses, cross-check finished scans,
   * and give the wallets' own scans their turn. 'replaced': a finished scan's index took this one's
   * place (the mempool is read again).
   */
  afterCatchUp(indexedHeight: number | null): Promise<'replaced' | void>;
  /** Work left that another turn of the pass must do (a scan not finished): the tip is followed first. */
  moreWork?(): boolean;
}

export interface IndexerProgress {
  tipHeight: number | null;
  indexedHeight: number | null;
  mempoolTxs: number;
  error: string | null;
}

const MempoolEntry = z.object({ time: z.number().int(), depends: z.array(z.string()).default([]) }).loose();
const VerboseMempool = z.record(z.string(), MempoolEntry);

const HASH_BATCH = 200;
// The most block bytes (as serialized: what `getblock <hash> 0` gives) read ahead of the writer and
// written in one batch; encoded blocks are held, a fraction of that (index/blocks.ts). Bytes, not
// blocks or transactions: many small blocks group, and one block larger than this (a Bitcoin Cash
// block of 100k+ transactions) is a batch of its own. Each commit rewrites every page it touched into
// the WAL, so fewer, larger batches write less (10,000 transactions rather than 5,000 took the bench
// chain's page writes from about 18,500 to 12,500); but the writer's memory grows with the batch: at
// 32 MiB (some 60k of the scale chain's transactions) its peak RSS at 100k was 449 MB against 389 MB
// with 10,000-transaction batches. 4 MiB is about those 10,000 transactions' bytes.
export const BATCH_BYTES = 4 * 1024 * 1024;
/** What a block without a known size (a watch-mode block its filter skipped) weighs in a batch. */
const HEADER_BYTES = 80;
// Transactions of verbose JSON being fetched at once (at least two blocks).
const READ_AHEAD_TXS = 5_000;
// Raw blocks on parse threads: a block's hex is a fraction of its verbose JSON, and each thread
// needs a block of its own besides the one being written, so more are read ahead.
const READ_AHEAD_RAW_TXS = 15_000;
// A catch-up of this many blocks or more is told at info (its start, progress, its end); a pass of
// fewer, a new block or two, only at debug.
const CATCH_UP_BLOCKS = 100;
const PROGRESS_EVERY_MS = 10_000;

export class UtxoIndexer {
  private readonly prefetch: number;
  private readonly loop: PollLoop;
  private mempool: Set<string> | null = null;
  /** Raw blocks of the full index are decoded here, started on the first block (not in watch mode). */
  private parsePool: BlockParsePool | null = null;
  private progress: Omit<IndexerProgress, 'error'> = { tipHeight: null, indexedHeight: null, mempoolTxs: 0 };
  private stopped = false;
  private passes = 0;
  /** The index's location checked against the last one written (index-location.ts), once per start. */
  private locationSettled = false;
  /** The last scan pass stopped to let the tip go first (yieldNow). */
  private yielded = false;
  /**
   * Test-only knobs: a regtest chain of a few hundred blocks indexes in one batch, too fast to
   * observe a lagging index. Smaller batches (bounded in transactions, `batchTxs`) and a pause before each batch's write let a test ask
   * the service while the first sync is under way. Production never sets them.
   */
  readonly testKnobs: { batchTxs: number | null; beforeBatchWrite: (() => Promise<void>) | null } = { batchTxs: null, beforeBatchWrite: null };

  constructor(private readonly o: IndexerOptions) {
    // Six blocks in flight keep the node busy while the writer thread works (three left it idle a
    // third of the time); each is held in its compact form, so memory stays bounded by six blocks.
    this.prefetch = o.prefetch ?? 6;
    this.loop = new PollLoop(() => this.syncPass(), {
      pollIntervalMs: o.pollIntervalMs,
      onError: (message, first) => {
        if (first) o.log.warn({ err: message }, 'index: sync failed, retrying');
      },
      onRecovered: () => o.log.info('index: node reachable again'),
      isPassing: isNodeRestarting,
    });
  }

  status(): IndexerProgress {
    return { ...this.progress, error: this.loop.error };
  }

  start(): void {
    this.stopped = false;
    // The writer thread loads while the first pass asks the node where its tip is.
    // A failure here fails the first pass too, which reports it: not an unhandled rejection.
    this.o.index.prepareForBatches().catch(() => undefined);
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true; // also ends a catch-up in progress between blocks
    await this.loop.stop();
    await this.parsePool?.close();
    this.parsePool = null;
  }

  /** A full pass that starts after this call: the index then reflects the node as of now. */
  sync(): Promise<void> {
    return this.loop.sync();
  }

  /** The number of the pass under way, or of the last one started (0: none yet). */
  get passesStarted(): number {
    return this.passes;
  }

  private leads(): boolean {
    return this.o.leading?.() ?? true;
  }

  /**
   * One turn of a watch scan's own index (watch-scans.ts), driven by the indexer following the tip
   * rather than a poll loop of its own, and without a mempool: true once it holds the node's tip,
   * false when it stopped for now (yieldNow).
   */
  async scanPass(): Promise<boolean> {
    this.yielded = false;
    await this.catchUp();
    return !this.yielded && this.leads() && !this.stopped;
  }

  private async syncPass(): Promise<void> {
    const pass = ++this.passes;
    await this.o.checkChain?.();
    if (!this.leads()) {
      await this.watch();
    } else {
      await this.catchUp();
      if (this.leads()) await this.syncMempool();
    }
    await this.o.afterPass?.(pass);
  }

  /** Another instance writes the index: follow the node's tip and the shared tables, write nothing. */
  private async watch(): Promise<void> {
    const { rpc, index } = this.o;
    this.mempool = null; // the writer changes the mempool tables: re-read them when this instance leads
    const tipHeight = await rpc.call<number>('getblockcount');
    const indexedHeight = (await index.tip())?.height ?? null;
    // published together: see catchUp
    this.progress.tipHeight = tipHeight;
    this.progress.indexedHeight = indexedHeight;
    this.progress.mempoolTxs = await index.mempoolCount();
  }

  private async catchUp(): Promise<void> {
    const { rpc, index, log } = this.o;
    const watch = this.o.watch;
    if (!this.locationSettled) {
      await index.settleLocation(log);
      this.locationSettled = true;
    }
    await watch?.prepare();
    for (;;) {
      const nodeTip = await rpc.call<number>('getblockcount');
      let ours = await index.tip();
      // The node's tip is published with the index's height, never before it: a known tip beside
      // an unknown height reads as an empty index, and the first pass of a large index answered
      // 503 between two good answers while its tip was read.
      this.progress.tipHeight = nodeTip;
      this.progress.indexedHeight ??= ours?.height ?? null;
      const rescan = watch?.pendingRescan() ?? null;
      if (rescan !== null) {
        const readAgain = ours !== null && ours.height >= rescan;
        if (readAgain) {
          // The rows of the blocks from `rescan` on were written for other scripts: undone by height.
          log.info({ from: rescan }, 'index: watched scripts changed, reading blocks again');
          await index.rollbackTo(rescan - 1);
          ours = await index.tip();
        } else {
          // No block to read again, but the mempool was kept for the old scripts: read it again.
          await index.removeMempoolTxs([...(await this.mempoolSet())]);
        }
        this.mempool = new Set();
        await watch!.rescanTaken(rescan, readAgain);
      }
      if (ours && (await this.divergedAt(ours.height, ours.hash))) {
        await this.o.checkChain?.();
        const fork = await this.findFork(ours.height);
        log.warn({ from: ours.height, fork }, 'index: chain reorganised, rolling back');
        // In watch mode the scripts may have changed since a block was written: undone by height.
        await index.rollbackTo(fork, watch ? undefined : (hash) => this.blockContent(hash));
        this.mempool = new Set();
        ours = await index.tip();
      }
      const start = watch ? watch.startHeight() : 0;
      this.progress.indexedHeight = ours?.height ?? null;
      if (start === null) {
        // Watch mode with nothing registered: nothing is to be read, so the index is as current as
        // the node (a desk that just connected its node is not "behind" before its first wallet).
        this.progress.indexedHeight = ours?.height ?? nodeTip;
        return;
      }
      const held = watch?.heldFrom() ?? null;
      if (held !== null && (ours ? ours.height + 1 : start) < held) {
        // A pruned node no longer has the blocks below `held`: the index there is the wallets'
        // unspent outputs from its UTXO set, taken whole (what the index held, all below `held`,
        // is undone first), ending with the header of block held - 1, so that the held blocks
        // follow on as usual.
        if (ours) await index.rollbackTo(-1);
        this.mempool = new Set();
        log.info({ held }, 'index: the node is pruned, taking the unspent outputs below its first block from its UTXO set');
        await index.applyBlocks(await watch!.unspentBelow(held), this.mempool);
        ours = await index.tip();
      }
      const from = ours ? ours.height + 1 : start;
      const reorgedMidway = from <= nodeTip && (await this.indexRange(from, nodeTip, ours?.hash ?? null));
      if (reorgedMidway) continue;
      if (!watch || this.yielded || this.stopped || !this.leads()) return;
      // Another index (a finished scan's) took this one's place: its mempool is read again.
      if ((await watch.afterCatchUp((await index.tip())?.height ?? null)) === 'replaced') {
        this.mempool = null;
        continue; // from the new index's tip, which may be another block than this one's
      }
      if (watch.pendingRescan() !== null) continue;
      if (!watch.moreWork?.()) return;
      // A wallet's own scan goes on at the next turn: the mempool is followed between turns too.
      if (this.leads()) await this.syncMempool();
    }
  }

  /** An undone block's transactions, as the node still has them (null if it does not). */
  private async blockContent(hash: string): Promise<ReadBlock | null> {
    try {
      // A raw block does not say its height (rollbacks are rare: one more call each is cheap).
      const header = z.object({ height: z.number().int().nonnegative() }).loose().parse(await this.o.rpc.call<unknown>('getblockheader', [hash, true]));
      return await fetchNodeBlock(this.o.rpc, this.o.params, hash, header.height);
    } catch (err) {
      if (err instanceof RpcError) return null; // pruned or unknown: the store scans instead
      throw err;
    }
  }

  /** True when our block at `height` is no longer on the node's best chain. */
  private async divergedAt(height: number, hash: string): Promise<boolean> {
    const results = await this.o.rpc.batch<string>([{ method: 'getblockhash', params: [height] }]);
    const first = results[0];
    if (!first || 'error' in first) return true; // the node's chain is now shorter
    return first.result !== hash;
  }

  private async findFork(fromHeight: number): Promise<number> {
    for (let h = fromHeight - 1; h >= 0; h--) {
      const ours = await this.o.index.blockHash(h);
      if (ours === null) return h; // nothing indexed below: roll back to here
      if (!(await this.divergedAt(h, ours))) return h;
    }
    return -1;
  }

  /** Indexes blocks [from, to]; returns true when the chain changed under us (restart from the tip). */
  private async indexRange(from: number, to: number, prevHash: string | null): Promise<boolean> {
    const { rpc, index, params, log } = this.o;
    const long = to - from + 1 >= CATCH_UP_BLOCKS;
    const chainTxs = long && !this.o.watch ? await this.chainTxCounts(prevHash, to) : null;
    const started = Date.now();
    let lastLog = started;
    let txs = 0;
    let expectedPrev = prevHash;
    const progress = (): CatchUpSample => ({ from, to, indexedHeight: this.progress.indexedHeight ?? from - 1, elapsedMs: Date.now() - started, txs, chainTxs });
    if (long) {
      const p = catchUpProgress(progress());
      log.info({ from, tip: to, lag: to - from + 1, percent: p.percent, basis: p.basis }, `index: catching up from block ${from} to the node's tip ${to} (${to - from + 1} blocks), ${p.percent}% done`);
    }
    const mempool = await this.mempoolSet();
    index.prepareForBatches().catch(() => undefined); // already started by start(); here for direct sync() callers

    // Each answer is read into the compact form as soon as it arrives, so only a few raw JSON
    // blocks exist at once whatever the chain's length.
    const watch = this.o.watch;
    const threads = this.o.parseThreads;
    // parseThreads 0: this thread reads raw blocks, the same way a parse thread would
    const parse = watch ? undefined : { pool: threads === 0 ? null : (this.parsePool ??= new BlockParsePool(threads)), levelRows: index.writesLevelRows() };
    const fetchBlock = (hash: string, height: number): Promise<ReadBlock> =>
      watch ? watch.readBlock(hash, height) : fetchNodeBlock(rpc, params, hash, height, this.o.blockForm, parse);
    const queue: Promise<ReadBlock>[] = [];
    let nextHeight = from;
    let hashes: string[] = [];
    // A verbose block of mainnet size is several MB of JSON while it arrives: fewer in flight when
    // blocks are large, judged by the last one read.
    let lastBlockTxs = 1;
    const readAhead = parse?.pool && (this.o.blockForm ?? blockFormOf(params)) === 'raw' && rawBlockCodec(params) ? READ_AHEAD_RAW_TXS : READ_AHEAD_TXS;
    const inFlight = (): number => Math.max(2, Math.min(this.prefetch, Math.floor(readAhead / lastBlockTxs)));
    const refill = async () => {
      while (queue.length < inFlight() && nextHeight <= to) {
        if (hashes.length === 0) {
          const count = Math.min(HASH_BATCH, to - nextHeight + 1);
          const calls = Array.from({ length: count }, (_, i) => ({ method: 'getblockhash', params: [nextHeight + i] }));
          const results = await rpc.batch<string>(calls);
          hashes = [];
          for (const r of results) {
            if ('error' in r) break; // the chain shrank: index what exists
            hashes.push(r.result);
          }
          if (hashes.length === 0) return;
        }
        const p = fetchBlock(hashes.shift()!, nextHeight);
        p.catch(() => undefined); // awaited in order below
        queue.push(p);
        nextHeight++;
      }
    };

    // Blocks are committed in batches while catching up, each batch in one transaction, written
    // (by the index writer thread) while the next blocks are read from the node.
    const write = async (blocks: ReadBlock[]): Promise<void> => {
      await this.testKnobs.beforeBatchWrite?.();
      await index.applyBlocks(blocks, mempool);
      if (mempool.size > 0) for (const b of blocks) for (const t of b.txs) mempool.delete(t.txid); // (a txid is read from its block's bytes when asked)
      this.progress.indexedHeight = blocks[blocks.length - 1]!.height;
      for (const b of blocks) txs += b.txs.length;
    };
    const testTxs = this.testKnobs.batchTxs;
    const pipeline =
      testTxs === null
        ? new BatchPipeline<ReadBlock>(write, this.o.batchBytes ?? BATCH_BYTES, (b) => b.size ?? HEADER_BYTES)
        : new BatchPipeline<ReadBlock>(write, testTxs, (b) => b.txs.length);

    await refill();
    let reorganised = false;
    while (queue.length > 0 && !this.stopped && this.leads()) {
      if (this.o.yieldNow?.()) {
        this.yielded = true;
        break;
      }
      const block = await queue.shift()!;
      lastBlockTxs = Math.max(1, block.txs.length);
      await refill();
      if (expectedPrev !== null && block.previousHash !== expectedPrev) {
        reorganised = true;
        break;
      }
      expectedPrev = block.hash;
      await pipeline.add(block);
      const now = Date.now();
      if (now - lastLog >= PROGRESS_EVERY_MS) {
        lastLog = now;
        const rate = Math.round((txs * 1000) / Math.max(1, now - started));
        const height = this.progress.indexedHeight ?? from - 1;
        const p = catchUpProgress(progress());
        const eta = p.etaSeconds === null ? '' : `, about ${spokenDuration(p.etaSeconds)} left`;
        log.info({ height, tip: to, lag: to - height, percent: p.percent, etaSeconds: p.etaSeconds, basis: p.basis, txPerSec: rate }, `index: catching up: block ${height} of ${to}, ${p.percent}%${eta}`);
      }
    }
    await pipeline.flush();
    const reached = this.progress.indexedHeight ?? from - 1;
    if (reached >= to && !reorganised) {
      if (long) log.info({ height: reached, blocks: to - from + 1, txs, seconds: Math.round((Date.now() - started) / 1000) }, `index: caught up with the node's tip at block ${reached}`);
      log.debug({ height: reached, hash: expectedPrev }, `index: new tip ${reached}`);
      // After a long catch-up (an initial sync) the LSM index merges its runs once, behind: the
      // bulk load leaves many overlapping files, and the tip's small batches then find one run.
      if (to - from + 1 >= COMPACT_AFTER_BLOCKS) {
        void index.compactAfterCatchUp().catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'index: compaction after the catch-up failed'));
      }
    } else if (this.stopped) {
      // a stop (SIGTERM) ends a catch-up between blocks: it has not caught up, and resumes here
      log.info({ height: reached, tip: to, lag: to - reached }, `index: stopped at block ${reached} of ${to}; the next start resumes there`);
    } else if (!this.leads()) {
      log.info({ height: reached, tip: to }, `index: stopped at block ${reached} of ${to}: another instance now writes the index`);
    }
    return reorganised;
  }

  /** The chain's transaction counts up to `prevHash` (0 when null) and up to block `to`; null when the node does not say. */
  private async chainTxCounts(prevHash: string | null, to: number): Promise<{ before: number; total: number } | null> {
    const Stats = z.object({ txcount: z.number().int().nonnegative() }).loose();
    const countAt = async (hash: string) => Stats.parse(await this.o.rpc.call<unknown>('getchaintxstats', [0, hash])).txcount;
    try {
      const tipHash = await this.o.rpc.call<string>('getblockhash', [to]);
      return { before: prevHash === null ? 0 : await countAt(prevHash), total: await countAt(tipHash) };
    } catch (err) {
      if (err instanceof RpcError || err instanceof z.ZodError) return null; // no such call (older forks), or another shape: counted in blocks
      throw err;
    }
  }

  private async mempoolSet(): Promise<Set<string>> {
    this.mempool ??= await this.o.index.mempoolTxids();
    return this.mempool;
  }

  private async syncMempool(): Promise<void> {
    const { rpc, index, params } = this.o;
    const mempool = await this.mempoolSet();
    const entries = VerboseMempool.parse(await rpc.call<unknown>('getrawmempool', [true]));
    const gone = [...mempool].filter((txid) => !(txid in entries));
    if (gone.length > 0) {
      await index.removeMempoolTxs(gone);
      for (const txid of gone) mempool.delete(txid);
    }
    const added = Object.keys(entries).filter((txid) => !mempool.has(txid));
    // Parents before children, so a child's inputs find the parent's outputs.
    const ordered = topologicalOrder(added, (txid) => entries[txid]?.depends ?? []);
    for (let i = 0; i < ordered.length; i += 100) {
      const part = ordered.slice(i, i + 100);
      const results = await rpc.batch<unknown>(part.map((txid) => ({ method: 'getrawtransaction', params: [txid, true] })));
      for (const [j, r] of results.entries()) {
        if ('error' in r) continue; // left the mempool meanwhile
        const txid = part[j]!;
        const tx = readVerboseTx(r.result, params.decimals);
        await index.applyMempoolTx(this.o.watch ? this.o.watch.keepWatched(tx) : tx, entries[txid]?.time ?? Math.floor(Date.now() / 1000));
        mempool.add(txid);
      }
    }
    this.progress.mempoolTxs = mempool.size;
  }
}

const RPC_IN_WARMUP = -28;

/**
 * The node is restarting: shutting down (a bare HTTP 503), not listening yet, or warming up (-28:
 * loading the block index, verifying blocks, loading the wallet). Each ends by itself within seconds.
 */
export function isNodeRestarting(err: unknown): boolean {
  return (err instanceof RpcError && err.code === RPC_IN_WARMUP) || (err instanceof UpstreamError && (err.kind === 'unreachable' || err.kind === 'stopping'));
}

function topologicalOrder(txids: readonly string[], depends: (txid: string) => readonly string[]): string[] {
  const wanted = new Set(txids);
  const done = new Set<string>();
  const out: string[] = [];
  const visit = (txid: string, depth: number) => {
    if (done.has(txid) || depth > 10_000) return;
    done.add(txid);
    for (const parent of depends(txid)) if (wanted.has(parent)) visit(parent, depth + 1);
    out.push(txid);
  };
  for (const txid of txids) visit(txid, 0);
  return out;
}
