// Pages of unspent outputs (docs/api-decisions.md, section 6): an address may hold hundreds of
// thousands of outputs, so every read of them is a page, cut at the store by a key (keyset), never
// by loading them all and slicing. Pure: the cursor's text and the merge of per-script reads.

/** An outpoint's place in the order unspent() answers: confirmed by (txnum, vout), then mempool by (first seen, txid, vout). */
export type UnspentCursor = { confirmed: true; txnum: number; vout: number } | { confirmed: false; firstSeen: number; txid: string; vout: number };

// Confirmed: "c<txnum>.<vout>"; mempool: "m<first seen>.<txid>.<vout>". Clients treat it as opaque.
export function cursorText(c: UnspentCursor): string {
  return c.confirmed ? `c${c.txnum}.${c.vout}` : `m${c.firstSeen}.${c.txid}.${c.vout}`;
}

/** The cursor a page gave, or null when the text is not one: the caller refuses it in words. */
export function parseCursor(text: string): UnspentCursor | null {
  const confirmed = /^c(\d{1,16})\.(\d{1,10})$/.exec(text);
  if (confirmed) {
    const txnum = Number(confirmed[1]);
    const vout = Number(confirmed[2]);
    return Number.isSafeInteger(txnum) && vout <= 0xffffffff ? { confirmed: true, txnum, vout } : null;
  }
  const pending = /^m(\d{1,16})\.([0-9a-f]{64})\.(\d{1,10})$/.exec(text);
  if (pending) {
    const firstSeen = Number(pending[1]);
    const vout = Number(pending[3]);
    return Number.isSafeInteger(firstSeen) && vout <= 0xffffffff ? { confirmed: false, firstSeen, txid: pending[2]!, vout } : null;
  }
  return null;
}

/** Reads up to `n` rows of one source after `after` (null: from its start), in the merge's order. */
export type SortedRead<T> = (after: T | null, n: number) => Promise<T[]>;

/**
 * The first `limit` rows, in `order`, of the union of sorted sources (one per script: each script's
 * outputs are one key range), holding at most about `limit` rows plus a small chunk per source: a
 * source is read a chunk at a time, each chunk twice the last, so one script with 400,000 outputs
 * among 199 with a few costs a handful of reads and never more than the page in memory.
 */
export async function mergeSorted<T>(sources: readonly SortedRead<T>[], order: (a: T, b: T) => number, limit: number): Promise<T[]> {
  if (sources.length === 1) return sources[0]!(null, limit);
  const first = Math.max(8, Math.min(limit, Math.ceil(limit / sources.length) + 1));
  const state = sources.map((read) => ({ read, rows: [] as T[], at: 0, chunk: first, done: false, last: null as T | null }));
  const fill = async (s: (typeof state)[number]) => {
    const n = Math.min(s.chunk, limit);
    s.rows = await s.read(s.last, n);
    s.at = 0;
    s.done = s.rows.length < n;
    if (s.rows.length > 0) s.last = s.rows[s.rows.length - 1]!;
    s.chunk *= 2;
  };
  await Promise.all(state.map(fill));
  const out: T[] = [];
  while (out.length < limit) {
    const empty = state.filter((s) => s.at >= s.rows.length && !s.done);
    if (empty.length > 0) await Promise.all(empty.map(fill));
    let best: (typeof state)[number] | undefined;
    for (const s of state) if (s.at < s.rows.length && (!best || order(s.rows[s.at]!, best.rows[best.at]!) < 0)) best = s;
    if (!best) break;
    out.push(best.rows[best.at++]!);
  }
  return out;
}
