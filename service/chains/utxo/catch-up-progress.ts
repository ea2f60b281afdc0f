// How far a catch-up has got, as the operator reads it: a percentage and the time left. Counted in
// transactions when the node says how many its chain holds (getchaintxstats' txcount, as Bitcoin
// Core's own verificationprogress counts): a mainnet chain's early blocks are nearly empty, so a
// count of blocks would promise the end far too early. In blocks otherwise (a node without the call,
// watch mode, which reads only some blocks' transactions). Pure.

export interface CatchUpSample {
  /** The first block of this catch-up and the node's tip it runs to. */
  from: number;
  to: number;
  /** The last block written (from - 1 before any). */
  indexedHeight: number;
  elapsedMs: number;
  /** Transactions written in this catch-up. */
  txs: number;
  /** The chain's transactions up to block from - 1 and up to `to`, when the node said. */
  chainTxs: { before: number; total: number } | null;
}

export interface CatchUpProgress {
  /** Of the chain up to the node's tip, one decimal. */
  percent: number;
  /** Null until something was written to measure a rate by. */
  etaSeconds: number | null;
  basis: 'transactions' | 'blocks';
}

export function catchUpProgress(s: CatchUpSample): CatchUpProgress {
  const seconds = s.elapsedMs / 1000;
  const of = (done: number, total: number, doneNow: number) => {
    const percent = total <= 0 ? 100 : Math.min(100, Math.floor((1000 * done) / total) / 10);
    const rate = seconds > 0 ? doneNow / seconds : 0;
    const etaSeconds = rate > 0 ? Math.round(Math.max(0, total - done) / rate) : null;
    return { percent, etaSeconds };
  };
  if (s.chainTxs !== null) return { ...of(s.chainTxs.before + s.txs, s.chainTxs.total, s.txs), basis: 'transactions' };
  const blocksDone = s.indexedHeight - s.from + 1;
  return { ...of(s.indexedHeight + 1, s.to + 1, blocksDone), basis: 'blocks' };
}

/** "2 h 05 min", "4 min 10 s", "12 s": the ETA in a log message. */
export function spokenDuration(seconds: number): string {
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${seconds} s`;
}
