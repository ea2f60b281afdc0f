// Per-script summaries of the LevelDB index (level-index.ts): an address's history, balance and
// unspent outputs as of one block, worked out from its funding and spending rows. The index keeps
// no balance row that every spend must update (that needs a read while indexing); instead a
// query's summary is kept here, bounded in bytes, and refreshed at the next query from the rows of
// the blocks since: the script's new funding rows, and a spending check of each output unspent in
// the summary. A refresh costs the address's unspent outputs and new rows, not its history.
//
// A summary is columns of typed arrays, not an object per row: 16 bytes a history entry and 33 an
// unspent output, where objects took about 48 and 160. It is built a chunk of rows at a time
// (SummaryBuilder), so an address of 250,000 outputs is worked out in the heap that held 100,000.
// Pure bookkeeping: the reads are level-index.ts's.

/** A funding row of a script, with its tx's txid; `coinbase`: its tx has no inputs (its txid may repeat, BIP30). */
export interface Funding {
  txnum: number;
  vout: number;
  amount: bigint;
  coinbase: boolean;
  txid: Buffer;
}

/** Bytes of the txid's hash (level-rows.ts txidHash) an unspent output keeps: what its spending rows are found and checked by. */
export const OUTPUT_HASH_BYTES = 12;

/** An output as the spending check takes it: its txid's hash (at least OUTPUT_HASH_BYTES of it). */
export interface Output {
  txnum: number;
  vout: number;
  coinbase: boolean;
  hash: Uint8Array;
}

/** How an output stands: the tx number of the tx that spends it (null: none), or overwritten unspent by a repeated txid (BIP30). */
export interface Settled {
  spent: number | null;
  dropped: boolean;
}

/** Unspent outputs, oldest first (tx number, vout), as columns. */
export interface UnspentColumns {
  length: number;
  txnums: Float64Array;
  vouts: Uint32Array;
  amounts: BigInt64Array;
  coinbase: Uint8Array;
  /** OUTPUT_HASH_BYTES a output. */
  hashes: Uint8Array;
}

export interface Summary {
  /** The block it is as of, checked against the chain before it is used or refreshed. */
  height: number;
  hash: string;
  /** One entry per tx, newest first; a tx's delta may be 0. */
  history: { length: number; txnums: Float64Array; deltas: BigInt64Array };
  confirmed: bigint;
  unspent: UnspentColumns;
}

/** The i-th unspent output of `u`, as the spending check takes it. */
export function outputAt(u: UnspentColumns, i: number): Output & { amount: bigint } {
  return { txnum: u.txnums[i]!, vout: u.vouts[i]!, coinbase: u.coinbase[i] === 1, amount: u.amounts[i]!, hash: u.hashes.subarray(i * OUTPUT_HASH_BYTES, (i + 1) * OUTPUT_HASH_BYTES) };
}

/** A column that grows by doubling, trimmed at the end. */
class Grow<A extends Float64Array | BigInt64Array | Uint32Array | Uint8Array> {
  length = 0;
  constructor(
    private data: A,
    private readonly make: (n: number) => A,
    private readonly width = 1,
  ) {}

  /** Room for one more item; returns its index. */
  private room(): number {
    if ((this.length + 1) * this.width > this.data.length) {
      const bigger = this.make(Math.max(16, this.data.length * 2));
      (bigger as Uint8Array).set(this.data as Uint8Array);
      this.data = bigger;
    }
    return this.length++;
  }

  push(v: A[number]): void {
    const i = this.room();
    (this.data as unknown as A[number][])[i] = v;
  }

  pushBytes(b: Uint8Array): void {
    const i = this.room();
    (this.data as Uint8Array).set(b.subarray(0, this.width), i * this.width);
  }

  get(i: number): A[number] {
    return (this.data as unknown as A[number][])[i]!;
  }

  trimmed(): A {
    return this.data.slice(0, this.length * this.width) as A;
  }
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/**
 * A summary moved from `base` (or nothing) to a later block, fed its outputs in order: first each
 * of base's unspent outputs (`settleBase`), then each funding row of the script above base's block
 * with how it stands (`fund`, oldest first). Funding rows and spends of one tx net into one entry.
 */
export class SummaryBuilder {
  private readonly entryTxnums = new Grow(new Float64Array(64), (n) => new Float64Array(n));
  private readonly entryAmounts = new Grow(new BigInt64Array(64), (n) => new BigInt64Array(n));
  private readonly txnums = new Grow(new Float64Array(64), (n) => new Float64Array(n));
  private readonly vouts = new Grow(new Uint32Array(64), (n) => new Uint32Array(n));
  private readonly amounts = new Grow(new BigInt64Array(64), (n) => new BigInt64Array(n));
  private readonly coinbase = new Grow(new Uint8Array(64), (n) => new Uint8Array(n));
  private readonly hashes = new Grow(new Uint8Array(64 * OUTPUT_HASH_BYTES), (n) => new Uint8Array(n), OUTPUT_HASH_BYTES);

  constructor(private readonly base: Summary | undefined) {}

  private entry(txnum: number, amount: bigint): void {
    if (amount < I64_MIN || amount > I64_MAX) throw new Error(`an amount of ${amount} is outside the 64 bits a LevelDB summary holds`);
    this.entryTxnums.push(txnum);
    this.entryAmounts.push(amount);
  }

  private output(o: Output & { amount: bigint }, s: Settled): void {
    if (s.spent !== null) this.entry(s.spent, -o.amount);
    else if (!s.dropped) {
      this.txnums.push(o.txnum);
      this.vouts.push(o.vout);
      this.amounts.push(o.amount);
      this.coinbase.push(o.coinbase ? 1 : 0);
      this.hashes.pushBytes(o.hash);
    }
  }

  /** Base's i-th unspent output, as it stands now. */
  settleBase(i: number, s: Settled): void {
    this.output(outputAt(this.base!.unspent, i), s);
  }

  /** A funding row above base's block (its txid's hash in `hash`), as it stands now. */
  fund(o: Output & { amount: bigint }, s: Settled): void {
    this.entry(o.txnum, o.amount);
    this.output(o, s);
  }

  finish(height: number, hash: string): Summary {
    // this block's entries: by tx number, newest first, one per tx
    const n = this.entryTxnums.length;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => this.entryTxnums.get(b) - this.entryTxnums.get(a));
    const base = this.base?.history;
    const held = base?.length ?? 0;
    const txnums = new Float64Array(n + held);
    const deltas = new BigInt64Array(n + held);
    let length = 0;
    let confirmed = this.base?.confirmed ?? 0n;
    for (const i of order) {
      const txnum = this.entryTxnums.get(i);
      const amount = this.entryAmounts.get(i);
      confirmed += amount;
      if (length > 0 && txnums[length - 1] === txnum) {
        const sum = deltas[length - 1]! + amount;
        if (sum < I64_MIN || sum > I64_MAX) throw new Error(`a delta of ${sum} is outside the 64 bits a LevelDB summary holds`);
        deltas[length - 1] = sum;
      } else {
        txnums[length] = txnum;
        deltas[length++] = amount;
      }
    }
    // new entries are all above base's block: base's follow them
    if (base) {
      txnums.set(base.txnums.subarray(0, held), length);
      deltas.set(base.deltas.subarray(0, held), length);
      length += held;
    }
    // unspent outputs: base's (oldest) then the new ones, each run already in order
    const unspent: UnspentColumns = { length: this.txnums.length, txnums: this.txnums.trimmed(), vouts: this.vouts.trimmed(), amounts: this.amounts.trimmed(), coinbase: this.coinbase.trimmed(), hashes: this.hashes.trimmed() };
    return { height, hash, history: { length, txnums: txnums.slice(0, length), deltas: deltas.slice(0, length) }, confirmed, unspent };
  }
}

/** Heap bytes a summary holds, for the bound: its columns and a little. */
export const sizeOf = (s: Summary): number => 200 + s.history.txnums.byteLength + s.history.deltas.byteLength + s.unspent.txnums.byteLength + s.unspent.vouts.byteLength + s.unspent.amounts.byteLength + s.unspent.coinbase.byteLength + s.unspent.hashes.byteLength;

/** The summaries' bound: about 32 MiB of heap. */
export const SUMMARY_BUDGET = 32 << 20;

export class Summaries {
  /** Insertion order is use order: the least recently used go first. */
  private readonly held = new Map<string, Summary>();
  private bytes = 0;
  private readonly budget: number;

  constructor(budget = SUMMARY_BUDGET) {
    this.budget = budget;
  }

  static empty(height: number, hash: string): Summary {
    return new SummaryBuilder(undefined).finish(height, hash);
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
