// The writer's bounded memory of young unspent outputs: most spends on a real chain spend outputs
// a few blocks old, and those are answered from here without touching the b-tree. It holds only
// what the store holds (committed, unspent), so a hit is exact; anything else is a miss and goes to
// the store. It is updated after a batch commits, forgotten when a batch fails, and forgotten when
// the next batch does not follow the last one it saw (a rollback ran on another connection).
// Loaded by the SQLite writer thread through Node's type stripping: erasable syntax only.
import { addFound, type FoundOutputs, type RowPlan, type SpentLookup } from './row-plan.ts';

interface YoungTx {
  txnum: number;
  /** By vout; a spent (or unknown) vout is a miss, never an answer. */
  outputs: ({ script: Buffer; amount: bigint } | undefined)[];
  live: number;
}

export class YoungOutputs {
  /** Insertion order is age order: the oldest txs go first. */
  private readonly txs = new Map<string, YoungTx>();
  private held = 0;
  private nextHeight: number | null = null;
  hits = 0;
  misses = 0;

  private readonly limit: number;

  /** `limit`: outputs held at most (each ~150 bytes of heap). A plain field: Node's type stripping loads this. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** Called before a batch: a batch that does not follow the last one means the store moved under us. */
  follow(firstHeight: number): void {
    if (this.nextHeight !== firstHeight) this.forget();
  }

  forget(): void {
    this.txs.clear();
    this.held = 0;
    this.nextHeight = null;
  }

  /** Takes what it holds of `lookup` into `found`; returns the outpoints it does not hold. */
  take(lookup: SpentLookup, found: FoundOutputs): SpentLookup['outpoints'] {
    const rest: SpentLookup['outpoints'] = [];
    for (const o of lookup.outpoints) {
      const tx = this.txs.get(o.txKey);
      const out = tx?.outputs[o.vout];
      if (tx && out) {
        addFound(found, o.txKey, o.vout, { txnum: tx.txnum, script: out.script, amount: out.amount });
        this.hits++;
      } else {
        rest.push(o);
        this.misses++;
      }
    }
    return rest;
  }

  /** Whether it holds this output (so the store holds it unspent). */
  holds(txKey: string, txnum: number, vout: number): boolean {
    const tx = this.txs.get(txKey);
    return tx !== undefined && tx.txnum === txnum && tx.outputs[vout] !== undefined;
  }

  /** After the batch of `plan` committed. */
  committed(plan: RowPlan, nextHeight: number): void {
    for (const d of plan.drops) {
      const tx = this.txs.get(d.txKey);
      if (!tx || tx.txnum !== d.txnum) continue;
      this.txs.delete(d.txKey);
      this.held -= tx.live;
    }
    for (const s of plan.spends) {
      const tx = this.txs.get(s.txKey);
      if (!tx || tx.txnum !== s.txnum || !tx.outputs[s.vout]) continue;
      tx.outputs[s.vout] = undefined;
      this.held--;
      if (--tx.live === 0) this.txs.delete(s.txKey);
    }
    // The batch's kept scripts are copied into one buffer of their own: a view of the block would
    // keep the whole batch's bytes alive; a small Buffer.from is a slice of Buffer's shared 8 KiB
    // pool, so one script held for long kept its whole slab, every other slice of it long dead (the
    // LevelDB writer, which makes its keys from that pool, passed 1 GB of RSS at 1M that way); and
    // a buffer per script made 200,000 ArrayBuffers for the GC to sweep (half the writer's speed).
    // The batch's buffer goes when the last of its outputs is spent or aged out.
    let bytes = 0;
    for (const o of plan.outputs) if (o.spentTxnum === null) bytes += o.script.length;
    const arena = Buffer.allocUnsafeSlow(bytes);
    let at = 0;
    let last: YoungTx | undefined;
    let lastKey = '';
    for (const o of plan.outputs) {
      if (o.spentTxnum !== null) continue;
      if (!last || lastKey !== o.txKey || last.txnum !== o.txnum) {
        const earlier = this.txs.get(o.txKey);
        if (earlier) {
          // a repeated txid (BIP30): the later tx is the one spent from now on
          this.txs.delete(o.txKey);
          this.held -= earlier.live;
        }
        last = { txnum: o.txnum, outputs: [], live: 0 };
        lastKey = o.txKey;
        this.txs.set(o.txKey, last);
      }
      o.script.copy(arena, at);
      last.outputs[o.vout] = { script: arena.subarray(at, (at += o.script.length)), amount: o.amount };
      last.live++;
      this.held++;
    }
    for (const [key, tx] of this.txs) {
      if (this.held <= this.limit) break;
      this.txs.delete(key);
      this.held -= tx.live;
    }
    this.nextHeight = nextHeight;
  }
}
