// The watch index's side of the indexer (indexer.ts: WatchScope) and its registration API
// (watch.ts: WalletWatch): which blocks to read, which outputs to keep, when to read blocks again,
// and the check of a finished scan against the node's own UTXO set.
import type { Logger } from 'pino';
import { z } from 'zod';
import { scriptToAddress } from '../../../shared/coins/address.ts';
import { basicFilterMatchesAny } from '../../../shared/coins/block-filter.ts';
import { bytesToHex, hexToBytes } from '../../../shared/coins/bytes.ts';
import type { ChainParams } from '../../../shared/coins/coin-table.ts';
import type { IndexedTx } from '../../index/blocks.ts';
import type { UtxoIndexStore } from '../../index/utxo-index.ts';
import type { WatchScope } from './indexer.ts';
import { coinsToUnits, type RpcClient, RpcError } from './rpc-client.ts';
import type { ReadBlock } from './verbose-block.ts';
import { fetchBlock } from './block-reading.ts';
import { deriveScripts, type Shown, type WalletWatch, type WatchedWallet, WatchList, type WatchRegistration, type WatchStatus, windowEnd } from './watch.ts';
import { UNSPENT_PAGE_MAX } from '../backend.ts';
import { heightOfTxNum } from '../../index/txnum.ts';

/** An unspent output of a watched wallet as the node's UTXO set gives it. */
interface NodeOutput {
  txid: string;
  vout: number;
  script: Uint8Array;
  amount: bigint;
  height: number;
}

/** A node answer that contradicts itself or the wallet: refused in words, nothing stored. */
class RefusedAnswer extends Error {}

// Litecoin's supply cap, the largest of the coins served here: an amount above it is no amount.
const MAX_SUPPLY_COINS = 84_000_000n;
const hex = z.string().regex(/^[0-9a-fA-F]*$/, 'not hex');
const ScanAnswer = z.object({
  height: z.number().int().min(0),
  unspents: z.array(
    z.object({
      txid: z.string().regex(/^[0-9a-fA-F]{64}$/, 'not a txid'),
      vout: z.number().int().min(0),
      scriptPubKey: hex.min(2),
      amount: z.union([z.number(), z.string()]),
      height: z.number().int().min(0),
    }),
  ),
});
// Scripts per scantxoutset call: each call walks the node's whole UTXO set (minutes at mainnet), so
// one call per wallet as a rule; the bound keeps a request well under the node's 32 MB body limit
// (a raw() of a P2WSH script is 73 characters).
const SCAN_BATCH = 10_000;
// Block filters asked per batch call when new scripts are checked against the indexed blocks.
const FILTER_BATCH = 200;
const TxOut = z.union([z.null(), z.object({ bestblock: z.string(), confirmations: z.number().int().min(1), value: z.union([z.number(), z.string()]), scriptPubKey: z.object({ hex }) })]);

/**
 * What a pruned node's watch proves, said with the status (never more): the unspent outputs of the
 * watched addresses are complete (below `from` they come from the node's UTXO set), the history
 * starts at `from`.
 */
export function historyLimitWords(from: number, watched: { receive: number; change: number }): string {
  const range = (n: number, branch: string) => (n === 0 ? `no ${branch} address` : `${branch} addresses 0 to ${n - 1}`);
  return `unspent outputs complete for ${range(watched.receive, 'receive')} and ${range(watched.change, 'change')}; history from block ${from} (the node is pruned: outputs received before it and still unspent come from its UTXO set, those already spent before it are not listed, nor counted in the later transactions that spent them)`;
}

export interface Counters {
  checked: number;
  matched: number;
  fetched: number;
}

/**
 * A scan apart (watch-scans.ts): the wallets it reads, by WatchList.keyOf, and the scan number of
 * each when it began. Its blocks are read into an index of its own.
 */
export type ScanSnapshot = ReadonlyMap<string, number>;

/** The work of the wallets' own scans, as the index following the tip drives it (watch-scans.ts). */
export interface ScansTurn {
  /** Whether some wallet's scan is pending. */
  pending(): boolean;
  /** Reads on for a while; once a finished scan's index took the shared index's place, that scan's counters. */
  turn(): Promise<Counters | null>;
  /** How far the wallet's scan has read (never lower within one scan); null: not begun. */
  reached(w: WatchedWallet): number | null;
  /** The counters of the scan reading the wallet, when one is. */
  counters(w: WatchedWallet): Counters | null;
  /** The index of the scan reading the wallet (its provisional figures), when one is. */
  indexOf(w: WatchedWallet): UtxoIndexStore | null;
}

export class WatchScan implements WatchScope, WalletWatch {
  private filters: boolean | null = null;
  /** A pruned node's first held block (its pruneheight); null: it holds every block. */
  private pruneHeight: number | null = null;
  private nodePruned = false;
  /** The index height at which a mismatch below the prune height was last taken again (once per height). */
  private retakenAt: number | null = null;
  private readonly counters: Counters = { checked: 0, matched: 0, fetched: 0 };
  /** Set by the backend: asks the indexer for a pass now. */
  onChange: () => void = () => {};
  /** The index following the tip: the wallets' own scans, set by the backend (watch-scans.ts). */
  scans: ScansTurn | null = null;
  /** A scan apart: the scripts of its wallets (hex), and the height its gap asks to read again from. */
  private readonly own: { scripts: Uint8Array[]; hex: Set<string>; pending: number | null; stamp: string } | null;
  /** The node's tip as the last pass read it. */
  private nodeTip: number | null = null;

  /** `snapshot`: this is a scan apart, reading only these wallets (null: the index following the tip). */
  constructor(
    readonly list: WatchList,
    private readonly rpc: RpcClient,
    private readonly index: UtxoIndexStore,
    private readonly params: ChainParams,
    private readonly log: Logger,
    private readonly snapshot: ScanSnapshot | null = null,
  ) {
    this.own = snapshot ? { scripts: [], hex: new Set(), pending: null, stamp: '' } : null;
  }

  /** The wallets this index reads: all of them, or a scan apart's. */
  private wallets(): WatchedWallet[] {
    const snapshot = this.snapshot;
    return snapshot ? this.list.all().filter((w) => snapshot.has(WatchList.keyOf(w))) : this.list.all();
  }

  /**
   * A scan apart's scripts, derived again when its wallets or their windows changed (the list is
   * shared with the index following the tip, which extends windows meanwhile).
   */
  private ownScripts(): { scripts: Uint8Array[]; hex: Set<string> } | null {
    const own = this.own;
    if (!own) return null;
    const wallets = this.wallets();
    const stamp = wallets.map((w) => `${w.scanNumber}:${w.derived[0]}:${w.derived[1]}`).join(',');
    if (stamp !== own.stamp) {
      own.scripts = wallets.flatMap((w) => this.list.branchScripts(w, 0).concat(this.list.branchScripts(w, 1)));
      own.hex = new Set(own.scripts.map((sc) => bytesToHex(sc)));
      own.stamp = stamp;
    }
    return own;
  }

  private scripts(): Uint8Array[] {
    return this.ownScripts()?.scripts ?? this.list.scripts();
  }



  // ---- the indexer's side ---------------------------------------------------------------------

  async prepare(): Promise<void> {
    await this.list.load();
    this.nodeTip = await this.rpc.call<number>('getblockcount');
    await this.probeNode();
    // Asked each pass: a node pruning by size (-prune=N) frees old files as it goes.
    const info = await this.rpc.call<{ pruned?: boolean; pruneheight?: number }>('getblockchaininfo');
    this.nodePruned = info.pruned === true;
    this.pruneHeight = this.nodePruned && typeof info.pruneheight === 'number' && info.pruneheight > 0 ? info.pruneheight : null;
  }

  /**
   * Where an empty index starts. A scan apart: its wallets' lowest birthday. The index following the
   * tip: the lowest birthday of the wallets it reads (after a migration emptied it, say); when every
   * wallet is scanned apart, the node's tip: it follows the tip from there, and the scans bring
   * the older blocks.
   */
  startHeight(): number | null {
    let start: number | null = null;
    const wallets = this.own ? this.wallets() : this.list.all().filter((w) => w.scanFrom === null);
    for (const w of wallets) start = Math.min(start ?? Infinity, w.birthdayHeight ?? 0);
    if (start !== null || this.own || this.list.size === 0) return start;
    return this.nodeTip;
  }

  heldFrom(): number | null {
    return this.pruneHeight;
  }

  /**
   * The registered wallets' unspent outputs confirmed below `held` (and from each one's birthday),
   * from the node's UTXO set: a pruned node no longer has those blocks. Each output scantxoutset
   * names is checked against the wallet's scripts and again by gettxout (amount, script, height);
   * a faulty answer is refused in words (the wallet's status says them) and nothing is stored.
   * Answered as blocks holding only those outputs, for the one row plan, and the header of block
   * held - 1 last.
   */
  async unspentBelow(held: number): Promise<ReadBlock[]> {
    const found = new Map<string, NodeOutput>();
    for (const w of this.wallets()) {
      const from = w.birthdayHeight ?? 0;
      if (from >= held) continue;
      const scripts = this.list.branchScripts(w, 0).concat(this.list.branchScripts(w, 1));
      let outputs: NodeOutput[];
      try {
        const scan = await this.nodeUnspent(scripts);
        if (scan === null) throw new Error('the node was already scanning its UTXO set for another caller, or its tip moved during the scan; tried again at the next pass');
        outputs = scan.outputs.filter((o) => o.height >= from && o.height < held);
        for (const o of outputs) await this.confirmByGettxout(o);
      } catch (err) {
        if (!(err instanceof RefusedAnswer)) throw err;
        const error = `${err.message}: the unspent outputs below block ${held}, which this pruned node can give only from its UTXO set, were not taken and nothing was stored`;
        await this.list.setChecked(w, { height: -1, error });
        this.log.error({ err: error }, 'watch: scantxoutset answer refused');
        throw new Error(error, { cause: err });
      }
      for (const o of outputs) found.set(`${o.txid}:${o.vout}`, o);
    }
    const byHeight = new Map<number, NodeOutput[]>();
    for (const o of found.values()) byHeight.set(o.height, [...(byHeight.get(o.height) ?? []), o]);
    const blocks: ReadBlock[] = [];
    for (const height of [...byHeight.keys()].sort((a, b) => a - b)) {
      const hash = await this.rpc.call<string>('getblockhash', [height]);
      const header = await this.rpc.call<{ time: number; previousblockhash?: string }>('getblockheader', [hash, true]);
      const txs = new Map<string, IndexedTx>();
      for (const o of byHeight.get(height)!.sort((a, b) => (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : a.vout - b.vout))) {
        let tx = txs.get(o.txid);
        // Its inputs spent outputs of blocks the node no longer holds: none is known here.
        if (!tx) txs.set(o.txid, (tx = { txid: o.txid, inputs: [], outputs: [] }));
        tx.outputs.push({ vout: o.vout, script: o.script, amount: o.amount });
      }
      blocks.push({ hash, height, time: header.time, previousHash: header.previousblockhash ?? null, txs: [...txs.values()] });
    }
    // Block held - 1, by its header (the node keeps every header): the held blocks follow on from
    // it as from any indexed block, their link to it checked, and reorgs found as usual.
    if (blocks.at(-1)?.height !== held - 1) {
      const hash = await this.rpc.call<string>('getblockhash', [held - 1]);
      const header = await this.rpc.call<{ time: number; previousblockhash?: string }>('getblockheader', [hash, true]);
      blocks.push({ hash, height: held - 1, time: header.time, previousHash: header.previousblockhash ?? null, txs: [] });
    }
    return blocks;
  }

  /**
   * The node's unspent outputs paying the given scripts (a wallet's derived scripts), each checked:
   * well formed, paying one of those scripts, a positive amount below the coin's supply. Asked as
   * raw(<script>) descriptors, which every node reads: Litecoin Core 0.21 reads no miniscript, so a
   * vault's own descriptor is refused there ("A function is needed within P2WSH"), and the scripts
   * are exactly what the scan watches (no second derivation by the node). null: the node was busy
   * with another scan, or its tip moved between two batches.
   */
  private async nodeUnspent(scripts: readonly Uint8Array[]): Promise<{ height: number; outputs: NodeOutput[] } | null> {
    let height: number | null = null;
    const outputs: NodeOutput[] = [];
    for (let i = 0; i < scripts.length; i += SCAN_BATCH) {
      const batch = scripts.slice(i, i + SCAN_BATCH);
      let answer: unknown;
      try {
        answer = await this.rpc.call<unknown>('scantxoutset', ['start', batch.map((sc) => `raw(${bytesToHex(sc)})`)]);
      } catch (err) {
        if (err instanceof RpcError && /already in progress/i.test(err.message)) return null;
        throw err;
      }
      const got = this.checkScanAnswer(answer, batch, scripts.length);
      if (height !== null && got.height !== height) return null;
      height = got.height;
      outputs.push(...got.outputs);
    }
    // A wallet with no derived script (none registered on a branch): the node's tip, nothing held.
    return { height: height ?? (await this.rpc.call<number>('getblockcount')), outputs };
  }

  private checkScanAnswer(answer: unknown, scripts: readonly Uint8Array[], walletScripts: number): { height: number; outputs: NodeOutput[] } {
    const parsed = ScanAnswer.safeParse(answer);
    if (!parsed.success) throw new RefusedAnswer(`the node's scantxoutset answer is malformed (${parsed.error.issues[0]?.path.join('.') || 'answer'}: ${parsed.error.issues[0]?.message ?? '?'})`);
    const ours = new Set(scripts.map((sc) => bytesToHex(sc)));
    const cap = MAX_SUPPLY_COINS * 10n ** BigInt(this.params.decimals);
    const outputs: NodeOutput[] = [];
    for (const u of parsed.data.unspents) {
      const at = `${u.txid}:${u.vout}`;
      const script = hexToBytes(u.scriptPubKey, 'scriptPubKey');
      if (!ours.has(u.scriptPubKey.toLowerCase())) {
        throw new RefusedAnswer(`the node's scantxoutset answer names ${at} paying ${scriptToAddress(this.params, script) ?? u.scriptPubKey}, which is none of the wallet's ${walletScripts} derived scripts`);
      }
      let amount: bigint;
      try {
        amount = coinsToUnits(u.amount, this.params.decimals);
      } catch (err) {
        throw new RefusedAnswer(`the node's scantxoutset answer gives ${at} an amount that is not one (${err instanceof Error ? err.message : String(err)})`);
      }
      if (amount <= 0n || amount > cap) throw new RefusedAnswer(`the node's scantxoutset answer gives ${at} an amount of ${u.amount}, outside 0 to ${MAX_SUPPLY_COINS} ${this.params.coin}`);
      if (u.height > parsed.data.height) throw new RefusedAnswer(`the node's scantxoutset answer puts ${at} at height ${u.height}, above its own tip ${parsed.data.height}`);
      outputs.push({ txid: u.txid.toLowerCase(), vout: u.vout, script, amount, height: u.height });
    }
    return { height: parsed.data.height, outputs };
  }

  /** The same output as the node's gettxout tells it (another path into its UTXO set): or refused. */
  private async confirmByGettxout(o: NodeOutput): Promise<void> {
    const at = `${o.txid}:${o.vout}`;
    const got = TxOut.safeParse(await this.rpc.call<unknown>('gettxout', [o.txid, o.vout, false]));
    if (!got.success || got.data === null) throw new RefusedAnswer(`the node's scantxoutset answer names ${at}, which the node's gettxout does not know as unspent`);
    const amount = coinsToUnits(got.data.value, this.params.decimals);
    if (amount !== o.amount) throw new RefusedAnswer(`the node's scantxoutset answer gives ${at} ${o.amount} units, its gettxout ${amount}`);
    if (got.data.scriptPubKey.hex.toLowerCase() !== bytesToHex(o.script)) throw new RefusedAnswer(`the node's scantxoutset answer gives ${at} another script than its gettxout does`);
    const best = await this.rpc.call<{ height: number }>('getblockheader', [got.data.bestblock, true]);
    const height = best.height - got.data.confirmations + 1;
    if (height !== o.height) throw new RefusedAnswer(`the node's scantxoutset answer puts ${at} at height ${o.height}, its gettxout at ${height}`);
  }

  pendingRescan(): number | null {
    return this.own ? this.own.pending : this.list.pendingRescan();
  }

  async rescanTaken(height: number, readAgain: boolean): Promise<void> {
    // The counts are of the scan under way: blocks read again are not counted twice against the chain.
    if (readAgain) Object.assign(this.counters, { checked: 0, matched: 0, fetched: 0 });
    if (this.own) this.own.pending = null;
    else await this.list.rescansTaken(height);
  }

  /** The scan's counters (blocks checked, matched, fetched) as the status gives them. */
  scanCounters(): Counters {
    return { ...this.counters };
  }

  moreWork(): boolean {
    return this.scans?.pending() ?? false;
  }

  /** Whether the node has block filters (asked once; a pruned Litecoin Core 0.21 has none). */
  private async probeNode(): Promise<boolean> {
    if (this.filters !== null) return this.filters;
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
      if (!basicFilterMatchesAny(hexToBytes(f.filter, 'block filter'), hash, this.scripts())) {
        const header = await this.rpc.call<{ time: number; previousblockhash?: string }>('getblockheader', [hash, true]);
        return { hash, height, time: header.time, previousHash: header.previousblockhash ?? null, txs: [] };
      }
    }
    const block = await fetchBlock(this.rpc, this.params, hash, height);
    this.counters.fetched++;
    if (filters) this.counters.matched++;
    const txs = block.txs.map((t) => this.keepWatched(t));
    return { hash: block.hash, height: block.height, time: block.time, previousHash: block.previousHash, txs, ...(block.size === undefined ? {} : { size: block.size }) };
  }

  keepWatched(tx: IndexedTx): IndexedTx {
    const own = this.ownScripts();
    const watches = own ? (script: Uint8Array) => own.hex.has(bytesToHex(script)) : (script: Uint8Array) => this.list.has(script);
    return { txid: tx.txid, inputs: tx.inputs, outputs: tx.outputs.filter((o) => watches(o.script)) };
  }

  /**
   * Derives past the last used address of each branch (and reads the blocks again from the first
   * one the new scripts may concern, when one does), then checks each wallet's unspent outputs
   * against scantxoutset at the index's tip.
   */
  async afterCatchUp(indexedHeight: number | null): Promise<'replaced' | void> {
    const own = this.own;
    // The index following the tip derives and checks the wallets it holds whole; a scan apart, its own.
    const wallets = own ? this.wallets() : this.list.all().filter((w) => w.scanFrom === null);
    for (const w of wallets) {
      for (const branch of w.branches) {
        const scripts = this.list.branchScripts(w, branch);
        const used = await this.index.usedScripts(scripts);
        let last = -1;
        scripts.forEach((s, i) => {
          if (used.has(bytesToHex(s))) last = i;
        });
        const end = windowEnd(last, -1, w.gapLimit);
        if (end <= w.derived[branch]) continue;
        const fresh = deriveScripts(this.params, w.keys, branch, w.derived[branch], end);
        const readFrom = await this.firstBlockFor(fresh, w.birthdayHeight ?? 0, indexedHeight);
        if (!own) {
          await this.list.deriveTo(w, branch, end, this.apartFrom(indexedHeight), fresh, readFrom);
          continue;
        }
        // A scan apart reads its own blocks again for the addresses its gap found: the same scan.
        await this.list.deriveTo(w, branch, end, indexedHeight, fresh, null);
        if (indexedHeight !== null && readFrom <= indexedHeight) own.pending = Math.min(own.pending ?? Infinity, readFrom);
      }
    }
    if (own) return;
    if (this.list.pendingRescan() === null && indexedHeight !== null) await this.checkWallets(indexedHeight);
    const finished = (await this.scans?.turn()) ?? null;
    if (finished === null) return;
    // The index is the finished scan's now: so are the counts its wallets' status gives.
    Object.assign(this.counters, finished);
    return 'replaced';
  }

  /** Checks each wallet the index holds whole against the node's UTXO set, once per index height. */
  private async checkWallets(indexedHeight: number): Promise<void> {
    const checks = await this.list.checks();
    for (const w of this.list.all()) {
      if (w.scanFrom !== null) continue;
      const key = `${w.owner}\u0000${w.walletId}`;
      if (checks.get(key)?.height === indexedHeight) continue;
      const error = await this.crossCheck(w, this.list.branchScripts(w, 0).concat(this.list.branchScripts(w, 1)), indexedHeight);
      if (error !== undefined) await this.list.setChecked(w, { height: indexedHeight, error });
    }
  }

  /** The index's tip height (null: empty). */
  private async indexedHeight(): Promise<number | null> {
    return (await this.index.tip())?.height ?? null;
  }

  /** The tip a wallet's new scan is weighed against (watch.ts scanApart); undefined without scans apart. */
  private apartFrom(height: number | null): number | null | undefined {
    return this.scans ? height : undefined;
  }

  /**
   * The first indexed block (from `from` to `to`) that the new scripts may concern, by the node's
   * block filters: the blocks are read again from there only (a filter matches a script a block pays
   * or spends from, so no output of theirs lies below it); `to` + 1 when none does, so no block is
   * read again. Without filters (a pruned node has none), `from`: every block is read again.
   */
  private async firstBlockFor(scripts: readonly Uint8Array[], from: number, to: number | null): Promise<number> {
    if (to === null || from > to || !(await this.probeNode()) || this.pruneHeight !== null) return from;
    for (let start = from; start <= to; start += FILTER_BATCH) {
      const heights = Array.from({ length: Math.min(FILTER_BATCH, to - start + 1) }, (_, i) => start + i);
      const hashes = await this.rpc.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
      if (hashes.some((r) => 'error' in r)) return from; // the chain moved under us: read it all again
      const found = hashes.map((r) => (r as { result: string }).result);
      const filters = await this.rpc.batch<{ filter: string }>(found.map((hash) => ({ method: 'getblockfilter', params: [hash, 'basic'] })));
      for (const [i, r] of filters.entries()) {
        if ('error' in r || basicFilterMatchesAny(hexToBytes(r.result.filter, 'block filter'), found[i]!, scripts)) return heights[i]!;
      }
    }
    return to + 1;
  }

  /**
   * null when the index's unspent outputs of the wallet equal the node's UTXO set; else words;
   * undefined when the node's set is of another height (checked again at the next pass), or when a
   * disagreement below a pruned node's first block is being taken again from the node's UTXO set.
   */
  private async crossCheck(w: WatchedWallet, scripts: readonly Uint8Array[], height: number): Promise<string | null | undefined> {
    let scan: { height: number; outputs: NodeOutput[] } | null;
    try {
      scan = await this.nodeUnspent(scripts);
    } catch (err) {
      if (err instanceof RefusedAnswer) return `${err.message}: the scan cannot be checked against the node's UTXO set`;
      throw err;
    }
    if (scan === null || scan.height !== height) return undefined; // busy, or the node moved on
    const node = new Map(scan.outputs.map((u) => [`${u.txid}:${u.vout}`, u]));
    // ours a page at a time: only what the node's set already holds, and the extras, stay in memory
    const matched = new Set<string>();
    const extraHeights = new Map<string, number>();
    let after: { txnum: number; vout: number } | null = null;
    for (;;) {
      const page = await this.index.confirmedUnspent(scripts, { after, limit: UNSPENT_PAGE_MAX });
      for (const u of page) {
        const k = `${u.txid}:${u.vout}`;
        const n = node.get(k);
        if (!n) extraHeights.set(k, heightOfTxNum(u.txnum));
        else if (n.amount === u.amount) matched.add(k);
      }
      if (page.length < UNSPENT_PAGE_MAX) break;
      after = page[page.length - 1]!;
    }
    const missing = [...node.keys()].filter((k) => !matched.has(k));
    const extra = [...extraHeights.keys()];
    if (missing.length === 0 && extra.length === 0) return null;
    const held = this.pruneHeight;
    const below = (k: string): boolean => held !== null && (node.get(k)?.height ?? extraHeights.get(k) ?? held) < held;
    if (held !== null && missing.concat(extra).every(below) && this.retakenAt !== height) {
      // Below the first held block the index holds the node's UTXO set as it was when taken: an
      // output of it spent since, by a block now reorganised away, is unspent again on the node.
      // Taken again from the birthday (once per height, so a node that keeps disagreeing is an error).
      this.retakenAt = height;
      this.log.warn({ held, outputs: missing.length + extra.length }, 'watch: unspent outputs below the prune height changed, taking them again');
      await this.list.markRescan(w, w.birthdayHeight ?? 0, this.apartFrom(height));
      return undefined;
    }
    const pruned = held !== null ? `; the node is pruned: it holds no blocks below height ${held}, and the outputs before it were taken from its UTXO set` : '';
    const message = `the scan disagrees with the node's UTXO set at height ${height}: ${missing.length} unspent output(s) the node holds are missing or differ here${missing.length ? ` (${missing.slice(0, 3).join(', ')})` : ''}, and ${extra.length} found here are not in the node's set${extra.length ? ` (${extra.slice(0, 3).join(', ')})` : ''}${pruned}`;
    this.log.error({ err: message }, 'watch: cross-check failed');
    return message;
  }

  // ---- the registration API -------------------------------------------------------------------

  async register(owner: string, walletId: string, registration: WatchRegistration): Promise<WatchStatus> {
    await this.list.load();
    await this.list.register(owner, walletId, registration, this.apartFrom(await this.indexedHeight()));
    this.onChange();
    return (await this.status(owner, walletId))!;
  }

  async rescan(owner: string, walletId: string, fromHeight: number): Promise<WatchStatus | null> {
    await this.list.load();
    const w = this.list.wallet(owner, walletId);
    if (!w) return null;
    await this.list.markRescan(w, fromHeight, this.apartFrom(await this.indexedHeight()));
    this.onChange();
    return this.status(owner, walletId);
  }

  async extend(owner: string, walletId: string, shown: Shown): Promise<WatchStatus | null> {
    await this.list.load();
    const w = this.list.wallet(owner, walletId);
    if (!w) return null;
    let more = false;
    const tip = await this.indexedHeight();
    for (const branch of w.branches) {
      const end = windowEnd(-1, branch === 0 ? shown.receive : shown.change, w.gapLimit);
      if (end <= w.derived[branch]) continue;
      // Read again only from the first block the new addresses may concern (none, as a rule: they
      // were shown, not used): the wallet goes on answering unless one does.
      const fresh = deriveScripts(this.params, w.keys, branch, w.derived[branch], end);
      await this.list.deriveTo(w, branch, end, this.apartFrom(tip), fresh, await this.firstBlockFor(fresh, w.birthdayHeight ?? 0, tip));
      more = true;
    }
    if (more) this.onChange();
    return this.status(owner, walletId);
  }

  async status(owner: string, walletId: string): Promise<WatchStatus | null> {
    await this.list.load();
    const w = this.list.wallet(owner, walletId);
    if (!w) return null;
    const nodeTip = await this.rpc.call<number>('getblockcount').catch(() => null);
    const checked = await this.list.check(owner, walletId);
    const apart = w.scanFrom !== null;
    // A wallet scanned apart: how far its scan has read. One the index holds whole: the index's tip;
    // it stays ready while the index follows new blocks (its lag is the coin's, /status and /readyz).
    const scanned = apart ? (this.scans?.reached(w) ?? null) : await this.indexedHeight();
    // A rescan pending above the tip (new addresses no indexed block concerns) reads no block again.
    const rereads = w.rescanFrom !== null && (scanned === null || w.rescanFrom <= scanned);
    const ready = !apart && !rereads && checked !== undefined;
    // A wallet waiting for the next scan has read nothing yet.
    const counters = apart ? (this.scans?.counters(w) ?? { checked: 0, matched: 0, fetched: 0 }) : this.counters;
    const historyFrom = this.pruneHeight !== null && this.pruneHeight > (w.birthdayHeight ?? 0) ? this.pruneHeight : null;
    const watched = { receive: w.derived[0], change: w.derived[1] };
    return {
      birthday_height: w.birthdayHeight,
      scanned_height: scanned,
      tip_height: nodeTip,
      blocks_checked: counters.checked,
      blocks_matched: counters.matched,
      blocks_fetched: counters.fetched,
      filters: this.filters ?? false,
      pruned: this.nodePruned,
      history_from: historyFrom,
      history_limit: historyFrom === null ? null : historyLimitWords(historyFrom, watched),
      watched,
      scan: w.scanNumber,
      scan_from: w.scanFrom,
      ...(checked?.error ? { state: 'error' as const, error: checked.error } : { state: ready ? ('ready' as const) : ('scanning' as const) }),
    };
  }
}
