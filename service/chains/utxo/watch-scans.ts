// Watch mode's scans apart (issue 33: one tenant's scan took every tenant offline). A wallet whose
// blocks the index already holds (a registration from an old birthday, a rescan, addresses found
// further out) is not read by rolling the shared index back, which emptied every wallet's answers
// until the scan ended. It is read into an index of its own in the same store (chain "<coin>~scan"),
// with every other wallet, while the index following the tip goes on answering the wallets it holds
// whole. Once the scan's index reaches the tip it takes the shared index's place in one transaction.
// The scan is the ordinary watch indexer over that index (indexer.ts, watch-scan.ts), driven in
// turns by the indexer following the tip: a turn reads for SLICE_MS, then the tip goes first.
// One scan at a time: wallets registered while one runs wait for the next (their scan number is not
// the one it began with, so they stay pending when it is swapped in).
import type { Logger } from 'pino';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import type { Store } from '../../store/database.ts';
import { UtxoIndexStore } from '../../index/utxo-index.ts';
import { UtxoIndexer } from './indexer.ts';
import type { RpcClient } from './rpc-client.ts';
import { type Counters, type ScansTurn, type ScanSnapshot, WatchScan } from './watch-scan.ts';
import { type WatchedWallet, WatchList } from './watch.ts';

/** How long a turn of a scan reads before the index following the tip looks at the node again. */
const SLICE_MS = 1_000;

interface Running {
  snapshot: ScanSnapshot;
  index: UtxoIndexStore;
  scope: WatchScan;
  indexer: UtxoIndexer;
  /** The highest block its index has held (a reorg or its gap's re-read does not lower what it says). */
  reached: number | null;
}

/** The name of a coin's scan index: a chain of its own in the store's index tables (varchar(32)). */
export const scanChainOf = (chain: string): string => `${chain}~scan`;

export class WatchScans implements ScansTurn {
  private running: Running | null = null;
  /**
   * The scan last swapped in: a status read begun before the swap (its wallet still scanning in the
   * copy it read) is answered its height, not null.
   */
  private finished: Running | null = null;
  /** When the turn under way stops reading. */
  private deadline = 0;

  constructor(
    private readonly o: {
      list: WatchList;
      rpc: RpcClient;
      store: Store;
      /** The index following the tip, whose place a finished scan takes. */
      main: UtxoIndexStore;
      params: ChainParams;
      log: Logger;
      leading: () => boolean;
      /** Milliseconds a turn reads (tests make scans slow with a proxy rather than changing this). */
      sliceMs?: number;
    },
  ) {}

  pending(): boolean {
    return this.o.list.scanning().length > 0;
  }

  private reads(w: WatchedWallet, run = this.running): Running | null {
    return run !== null && run.snapshot.get(WatchList.keyOf(w)) === w.scanNumber ? run : null;
  }

  reached(w: WatchedWallet): number | null {
    const run = this.reads(w) ?? this.reads(w, this.finished);
    if (!run) return null;
    // The scan's indexer says each batch it wrote, between the turns too.
    const now = run.indexer.status().indexedHeight;
    if (now !== null && now > (run.reached ?? -1)) run.reached = now;
    return run.reached;
  }

  counters(w: WatchedWallet): Counters | null {
    return (this.reads(w) ?? this.reads(w, this.finished))?.scope.scanCounters() ?? null;
  }

  indexOf(w: WatchedWallet): UtxoIndexStore | null {
    return this.reads(w)?.index ?? null;
  }

  /** A turn of the scan under way (one begins when a wallet's scan is pending); its counters once it took the shared index's place. */
  async turn(): Promise<Counters | null> {
    const { list, main, log } = this.o;
    if (!this.pending()) {
      if (this.running) await this.drop(); // its wallets were removed meanwhile
      return null;
    }
    const run = this.running ?? (await this.begin());
    this.deadline = Date.now() + (this.o.sliceMs ?? SLICE_MS);
    const done = await run.indexer.scanPass();
    if (!this.o.leading()) {
      // Another instance writes now, and may scan into the same chain: this one starts over if it leads again.
      this.running = null;
      return null;
    }
    const tip = await run.index.tip();
    if (tip !== null) run.reached = Math.max(run.reached ?? -1, tip.height);
    if (!done) return null; // on at the next turn, once the shared index has looked at the node
    const mainTip = await main.tip();
    // The scan read to the tip it saw; the shared index may have followed a block further meanwhile.
    if (tip !== null && mainTip !== null && tip.height < mainTip.height) return null;
    await main.takeRowsOf(run.index, (trx) => list.scansDone(trx, run.snapshot));
    this.finished = run;
    this.running = null;
    await list.load();
    log.info({ wallets: run.snapshot.size, height: tip?.height ?? null, stillScanning: list.scanning().length }, 'watch: scan finished, its index took the shared index\'s place');
    return run.scope.scanCounters();
  }

  private async begin(): Promise<Running> {
    const { list, rpc, store, params, log, leading } = this.o;
    await list.load();
    const snapshot = new Map(list.all().map((w) => [WatchList.keyOf(w), w.scanNumber]));
    const index = new UtxoIndexStore(store, scanChainOf(this.o.main.chain), { watch: true });
    await index.clear(); // a scan left by a stopped process started with other wallets: read again
    const scope = new WatchScan(list, rpc, index, params, log, snapshot);
    // No poll loop of its own: scanPass() is called by turn().
    const indexer = new UtxoIndexer({ rpc, index, params, log, pollIntervalMs: 60_000, leading, watch: scope, yieldNow: () => Date.now() > this.deadline });
    const scanning = list.scanning();
    log.info({ wallets: scanning.length, from: Math.min(...scanning.map((w) => w.scanFrom ?? 0)) }, 'watch: scanning wallets apart; the others keep answering');
    this.running = { snapshot, index, scope, indexer, reached: null };
    return this.running;
  }

  private async drop(): Promise<void> {
    const run = this.running;
    this.running = null;
    await run?.index.clear();
  }
}
