// Where the scale bench stops the indexer to take its figures: pure arithmetic over the chain's
// transactions per height, so the stages are the same for every store and for the fetch baseline.

/** The sizes the issue asks about, for a chain of a million transactions. */
export const CHECKPOINTS_AT_1M = [100_000, 300_000, 1_000_000] as const;

export interface Stage {
  /** Transactions in the chain up to `toHeight` (coinbases included). */
  txs: number;
  toHeight: number;
}

export interface Checkpoint {
  /** The index holds this many transactions when the figures are taken. */
  txs: number;
  toHeight: number;
  /** The timed window: the blocks after `from` up to `toHeight`, holding `windowTxs` transactions. */
  fromHeight: number;
  windowTxs: number;
}

/** The lowest height whose cumulative transaction count reaches `goal` (the tip when it never does). */
export function heightReaching(txsPerHeight: readonly number[], goal: number): Stage {
  let txs = 0;
  for (let h = 0; h < txsPerHeight.length; h++) {
    txs += txsPerHeight[h]!;
    if (txs >= goal) return { txs, toHeight: h };
  }
  return { txs, toHeight: txsPerHeight.length - 1 };
}

/**
 * Checkpoints at 100k, 300k and 1M transactions (scaled to the chain when it is smaller; a longer
 * chain adds its end), each with a timed window of the same size ending at it: half the first
 * checkpoint. Equal windows make the rates comparable: each is the cost of indexing that many
 * transactions into an index of that size, not an average since genesis.
 */
export function checkpoints(txsPerHeight: readonly number[]): Checkpoint[] {
  const total = txsPerHeight.reduce((a, b) => a + b, 0);
  const scale = Math.min(1, total / CHECKPOINTS_AT_1M[2]);
  const goals = CHECKPOINTS_AT_1M.map((c, i) => (i === CHECKPOINTS_AT_1M.length - 1 ? Math.min(total, c) : Math.round(c * scale)));
  // A longer chain (the 2M run) keeps the 1M point, to compare with, and adds its own end.
  if (total > CHECKPOINTS_AT_1M[2] * 1.1) goals.push(total);
  const window = Math.round(goals[0]! / 2);
  const out: Checkpoint[] = [];
  let previousEnd = -1;
  for (const goal of goals) {
    const end = heightReaching(txsPerHeight, goal);
    const start = heightReaching(txsPerHeight, goal - window);
    // The window starts after the last block below the goal minus the window, and never before
    // the previous checkpoint (whose figures are taken there).
    const fromHeight = Math.max(previousEnd, Math.min(start.toHeight, end.toHeight - 1));
    const windowTxs = txsPerHeight.slice(fromHeight + 1, end.toHeight + 1).reduce((a, b) => a + b, 0);
    out.push({ txs: end.txs, toHeight: end.toHeight, fromHeight, windowTxs });
    previousEnd = end.toHeight;
  }
  return out;
}

/** The heights the indexer stops at, in order: each window's start, then its end. */
export function stopHeights(points: readonly Checkpoint[]): number[] {
  const heights: number[] = [];
  for (const p of points) {
    if (p.fromHeight >= 0 && heights.at(-1) !== p.fromHeight) heights.push(p.fromHeight);
    heights.push(p.toHeight);
  }
  return heights;
}
