// Outputs spent by transactions this service broadcast, kept out of coin selection until the index
// has seen those transactions. Without it a payment built right after a sign_and_send (before the
// next mempool poll) selected the output just spent, and its broadcast failed with
// bad-txns-inputs-missingorspent. Only accepted broadcasts are recorded: a rejected one spent nothing.
//
// An entry ends after the first index pass that started after the broadcast and knows the
// transaction (the index then excludes the outputs itself, and follows reorgs and conflicts from
// there), or after MAX_PASSES such passes when the index never sees it (the node dropped it, or
// another instance indexes and has not caught up): the exclusion never outlives the node's word.

export const MAX_PASSES = 5;

interface Entry {
  outpoints: readonly string[];
  /** The index pass under way (or last started) at broadcast: passes after it count. */
  afterPass: number;
  passesSeen: number;
}

export class BroadcastSpends {
  private readonly byTxid = new Map<string, Entry>();
  private readonly spentBy = new Map<string, string>();

  get size(): number {
    return this.byTxid.size;
  }

  /** Records an accepted broadcast: `outpoints` are outpointKey()s of its inputs. */
  add(txid: string, outpoints: readonly string[], currentPass: number): void {
    this.byTxid.set(txid, { outpoints, afterPass: currentPass, passesSeen: 0 });
    for (const o of outpoints) this.spentBy.set(o, txid);
  }

  isSpent(outpoint: string): boolean {
    return this.spentBy.has(outpoint);
  }

  /** The txid of our broadcast that spent this outpoint, if one did and the index has not seen it yet. */
  spender(outpoint: string): string | undefined {
    return this.spentBy.get(outpoint);
  }

  /** The transactions a pass numbered `pass` may settle (broadcast before it started). */
  settleable(pass: number): string[] {
    return [...this.byTxid.entries()].filter(([, e]) => e.afterPass < pass).map(([txid]) => txid);
  }

  /** After pass `pass` completed: `known` are the settleable transactions the index now holds. */
  settle(pass: number, known: ReadonlySet<string>): void {
    for (const [txid, entry] of this.byTxid) {
      if (entry.afterPass >= pass) continue;
      entry.passesSeen++;
      if (known.has(txid) || entry.passesSeen >= MAX_PASSES) this.remove(txid, entry);
    }
  }

  private remove(txid: string, entry: Entry): void {
    this.byTxid.delete(txid);
    // A later broadcast of ours may spend the same output (a replacement): it keeps its claim.
    for (const o of entry.outpoints) if (this.spentBy.get(o) === txid) this.spentBy.delete(o);
  }
}
