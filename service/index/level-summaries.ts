// Per-script summaries of the LevelDB index (level-index.ts): an address's history, balance and
// unspent outputs as of one block, worked out from its funding and spending rows. The index keeps
// no balance row that every spend must update (that needs a read while indexing); instead a
// query's summary is kept here, bounded in bytes, and refreshed at the next query from the rows of
// the blocks since: the script's new funding rows, and a spending check of each output unspent in
// the summary. A refresh costs the address's unspent outputs and new rows, not its history.
// Pure bookkeeping: the reads are level-index.ts's.

/** A funding row of a script, with its tx's txid; `coinbase`: its tx has no inputs (its txid may repeat, BIP30). */
export interface Funding {
  txnum: number;
  vout: number;
  amount: bigint;
  coinbase: boolean;
  txid: Buffer;
}

export interface Summary {
  /** The block it is as of, checked against the chain before it is used or refreshed. */
  height: number;
  hash: string;
  /** One row per tx, newest first; a tx's delta may be 0. */
  history: { txnum: number; delta: bigint }[];
  confirmed: bigint;
  /** Oldest first (tx number, vout). */
  unspent: Funding[];
}

// Estimated heap bytes per history row and per unspent output, for the bound.
const HISTORY_BYTES = 48;
const UNSPENT_BYTES = 160;
/** The summaries' bound: about 32 MiB of heap. */
export const SUMMARY_BUDGET = 32 << 20;

const sizeOf = (s: Summary) => 200 + s.history.length * HISTORY_BYTES + s.unspent.length * UNSPENT_BYTES;

export class Summaries {
  /** Insertion order is use order: the least recently used go first. */
  private readonly held = new Map<string, Summary>();
  private bytes = 0;
  private readonly budget: number;

  constructor(budget = SUMMARY_BUDGET) {
    this.budget = budget;
  }

  static empty(height: number, hash: string): Summary {
    return { height, hash, history: [], confirmed: 0n, unspent: [] };
  }

  /**
   * `base` (or nothing) moved to block `height`: `funded` are the script's funding rows above
   * base's block, `settled[i]` says how `[...base.unspent, ...funded][i]` stands now.
   */
  static advance(base: Summary | undefined, height: number, hash: string, funded: readonly Funding[], settled: readonly { spent: number | null; dropped: boolean }[]): Summary {
    const deltas = new Map<number, bigint>();
    const add = (txnum: number, amount: bigint) => deltas.set(txnum, (deltas.get(txnum) ?? 0n) + amount);
    for (const f of funded) add(f.txnum, f.amount);
    const candidates = [...(base?.unspent ?? []), ...funded];
    const unspent: Funding[] = [];
    candidates.forEach((o, i) => {
      const s = settled[i]!;
      if (s.spent !== null) add(s.spent, -o.amount);
      else if (!s.dropped) unspent.push(o);
    });
    const fresh = [...deltas].map(([txnum, delta]) => ({ txnum, delta }));
    let confirmed = base?.confirmed ?? 0n;
    for (const r of fresh) confirmed += r.delta;
    // new rows are all above base's block: they go in front, newest first
    fresh.sort((a, b) => b.txnum - a.txnum);
    unspent.sort((a, b) => a.txnum - b.txnum || a.vout - b.vout);
    return { height, hash, history: [...fresh, ...(base?.history ?? [])], confirmed, unspent };
  }

  get(k: string): Summary | undefined {
    const s = this.held.get(k);
    if (s) {
      this.held.delete(k);
      this.held.set(k, s);
    }
    return s;
  }

  set(k: string, s: Summary): void {
    const old = this.held.get(k);
    if (old) {
      this.bytes -= sizeOf(old);
      this.held.delete(k);
    }
    const size = sizeOf(s);
    if (size > this.budget) return;
    this.held.set(k, s);
    this.bytes += size;
    for (const [first, f] of this.held) {
      if (this.bytes <= this.budget) break;
      this.held.delete(first);
      this.bytes -= sizeOf(f);
    }
  }

  clear(): void {
    this.held.clear();
    this.bytes = 0;
  }

  stats(): { scripts: number; bytes: number } {
    return { scripts: this.held.size, bytes: this.bytes };
  }
}
