// The watch index's side of the indexer (indexer.ts: WatchScope) and its registration API
// (watch.ts: WalletWatch): which blocks to read, which outputs to keep, when to read blocks again,
// and the check of a finished scan against the node's own UTXO set.
import type { Logger } from 'pino';
import { basicFilterMatchesAny } from '../../../shared/coins/block-filter.ts';
import { bytesToHex, hexToBytes } from '../../../shared/coins/bytes.ts';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import type { IndexedTx } from '../../index/blocks.ts';
import type { UtxoIndexStore } from '../../index/utxo-index.ts';
import type { WatchScope } from './indexer.ts';
import { coinsToUnits, type RpcClient, RpcError } from './rpc-client.ts';
import { readVerboseBlock, type ReadBlock } from './verbose-block.ts';
import { scanDescriptors, type WalletWatch, type WatchList, type WatchRegistration, type WatchStatus } from './watch.ts';

interface Counters {
  checked: number;
  matched: number;
  fetched: number;
}

export class WatchScan implements WatchScope, WalletWatch {
  private filters: boolean | null = null;
  private pruneHeight: number | null = null;
  private readonly counters: Counters = { checked: 0, matched: 0, fetched: 0 };
  /** Set by the backend: asks the indexer for a pass now. */
  onChange: () => void = () => {};

  constructor(
    readonly list: WatchList,
    private readonly rpc: RpcClient,
    private readonly index: UtxoIndexStore,
    private readonly params: ChainParams,
    private readonly log: Logger,
  ) {}

  // ---- the indexer's side ---------------------------------------------------------------------

  async prepare(): Promise<void> {
    await this.list.load();
    await this.probeNode();
  }

  startHeight(): number | null {
    const start = this.list.startHeight();
    if (start === null) return null;
    return Math.max(start, this.pruneHeight ?? 0);
  }

  pendingRescan(): number | null {
    return this.list.pendingRescan();
  }

  async rescanTaken(height: number): Promise<void> {
    await this.list.rescansTaken(height);
    await this.list.clearChecks();
  }

  /** Whether the node has block filters (asked once), and where a pruned node's blocks begin. */
  private async probeNode(): Promise<boolean> {
    if (this.filters !== null) return this.filters;
    const info = await this.rpc.call<{ pruned?: boolean; pruneheight?: number }>('getblockchaininfo');
    this.pruneHeight = info.pruned === true && typeof info.pruneheight === 'number' ? info.pruneheight : null;
    try {
      await this.rpc.call('getblockfilter', [await this.rpc.call<string>('getblockhash', [0]), 'basic']);
      this.filters = true;
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      this.filters = false; // no -blockfilterindex: every block from the birthday is read
    }
    return this.filters;
  }

  async readBlock(hash: string, height: number): Promise<ReadBlock> {
    const filters = await this.probeNode();
    this.counters.checked++;
    if (filters) {
      const f = await this.rpc.call<{ filter: string }>('getblockfilter', [hash, 'basic']);
      if (!basicFilterMatchesAny(hexToBytes(f.filter, 'block filter'), hash, this.list.scripts())) {
        const header = await this.rpc.call<{ time: number; previousblockhash?: string }>('getblockheader', [hash, true]);
        return { hash, height, time: header.time, previousHash: header.previousblockhash ?? null, txs: [] };
      }
    }
    const block = readVerboseBlock(await this.rpc.call<unknown>('getblock', [hash, 2]), this.params.decimals);
    this.counters.fetched++;
    if (filters) this.counters.matched++;
    const txs = block.txs.map((t) => this.keepWatched(t));
    return { hash: block.hash, height: block.height, time: block.time, previousHash: block.previousHash, txs };
  }

  keepWatched(tx: IndexedTx): IndexedTx {
    return { txid: tx.txid, inputs: tx.inputs, outputs: tx.outputs.filter((o) => this.list.has(o.script)) };
  }

  /**
   * Derives past the last used address of each branch (and reads the blocks again when it did),
   * then checks each wallet's unspent outputs against scantxoutset at the index's tip.
   */
  async afterCatchUp(indexedHeight: number | null): Promise<void> {
    for (const w of this.list.all()) {
      for (const branch of w.branches) {
        const scripts = this.list.branchScripts(w, branch);
        const used = await this.index.usedScripts(scripts);
        let last = -1;
        scripts.forEach((s, i) => {
          if (used.has(bytesToHex(s))) last = i;
        });
        if (last + w.gapLimit >= w.derived[branch]) await this.list.deriveTo(w, branch, last + 1 + w.gapLimit);
      }
    }
    if (this.list.pendingRescan() !== null || indexedHeight === null) return;
    const checks = await this.list.checks();
    for (const w of this.list.all()) {
      if (checks.get(`${w.owner}\u0000${w.walletId}`)?.height === indexedHeight) continue;
      const error = await this.crossCheck(w.descriptors, w.derived, this.list.branchScripts(w, 0).concat(this.list.branchScripts(w, 1)), indexedHeight);
      if (error !== undefined) await this.list.setChecked(w, { height: indexedHeight, error });
    }
  }

  /**
   * null when the index's unspent outputs of the wallet equal the node's UTXO set; else words;
   * undefined when the node's set is of another height (checked again at the next pass).
   */
  private async crossCheck(descriptors: readonly string[], derived: readonly number[], scripts: readonly Uint8Array[], height: number): Promise<string | null | undefined> {
    const range = Math.max(...derived) - 1;
    const scan = await this.rpc.call<{ success?: boolean; height?: number; unspents?: { txid: string; vout: number; amount: number | string }[] }>('scantxoutset', [
      'start',
      scanDescriptors(descriptors).map((desc) => ({ desc, range: [0, Math.max(0, range)] })),
    ]);
    if (scan.height !== undefined && scan.height !== height) return undefined; // the node moved on
    const node = new Map((scan.unspents ?? []).map((u) => [`${u.txid}:${u.vout}`, coinsToUnits(u.amount, this.params.decimals)]));
    const ours = new Map((await this.index.confirmedUnspent(scripts)).map((u) => [`${u.txid}:${u.vout}`, u.amount]));
    const missing = [...node.keys()].filter((k) => ours.get(k) !== node.get(k));
    const extra = [...ours.keys()].filter((k) => !node.has(k));
    if (missing.length === 0 && extra.length === 0) return null;
    const pruned = this.pruneHeight !== null ? `; the node is pruned: it holds no blocks below height ${this.pruneHeight}, so outputs received before it cannot be read from its blocks` : '';
    const message = `the scan disagrees with the node's UTXO set at height ${height}: ${missing.length} unspent output(s) the node holds are missing or differ here${missing.length ? ` (${missing.slice(0, 3).join(', ')})` : ''}, and ${extra.length} found here are not in the node's set${extra.length ? ` (${extra.slice(0, 3).join(', ')})` : ''}${pruned}`;
    this.log.error({ coin: this.params.coin, err: message }, 'watch: cross-check failed');
    return message;
  }

  // ---- the registration API -------------------------------------------------------------------

  async register(owner: string, walletId: string, registration: WatchRegistration): Promise<WatchStatus> {
    await this.list.load();
    await this.list.register(owner, walletId, registration);
    await this.list.clearChecks();
    this.onChange();
    return (await this.status(owner, walletId))!;
  }

  async rescan(owner: string, walletId: string, fromHeight: number): Promise<WatchStatus | null> {
    await this.list.load();
    const w = this.list.wallet(owner, walletId);
    if (!w) return null;
    await this.list.markRescan(w, fromHeight);
    await this.list.clearChecks();
    this.onChange();
    return this.status(owner, walletId);
  }

  async status(owner: string, walletId: string): Promise<WatchStatus | null> {
    await this.list.load();
    const w = this.list.wallet(owner, walletId);
    if (!w) return null;
    const tip = (await this.index.tip())?.height ?? null;
    const nodeTip = await this.rpc.call<number>('getblockcount').catch(() => null);
    const checked = await this.list.check(owner, walletId);
    const ready = checked !== undefined && checked.height === tip && tip === nodeTip && this.list.pendingRescan() === null;
    const historyFrom = this.pruneHeight !== null && this.pruneHeight > (w.birthdayHeight ?? 0) ? this.pruneHeight : null;
    return {
      birthday_height: w.birthdayHeight,
      scanned_height: tip,
      tip_height: nodeTip,
      blocks_checked: this.counters.checked,
      blocks_matched: this.counters.matched,
      blocks_fetched: this.counters.fetched,
      filters: this.filters ?? false,
      pruned: this.pruneHeight !== null,
      history_from: historyFrom,
      ...(checked?.error ? { state: 'error' as const, error: checked.error } : { state: ready ? ('ready' as const) : ('scanning' as const) }),
    };
  }
}
