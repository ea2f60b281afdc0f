// Whether a wallet's figures (its balance, history, unspent outputs and books, on its card and its
// page) are final: the one predicate every screen shows them by. They are final only once the
// service's index is current, the desk's walk has found which addresses are used, and a watching
// service has read the wallet's blocks to the node's tip; before that each of them may still move.
import type { WatchStatus } from '../../../shared/api/schemas.ts';

/**
 * A watching service has read the wallet's blocks to the node's tip and checked them: what it
 * answers about the wallet's addresses is complete. Pure. A ready wallet stays ready while the
 * service applies a new block (issue 33: its state no longer flips at every block); how far the
 * service's index lags the node is the coin's (FiguresState.indexed), not the scan's.
 */
export function watchScanComplete(s: Pick<WatchStatus, 'state' | 'scanned_height'>): boolean {
  return s.state === 'ready' && s.scanned_height !== null;
}

export interface FiguresState {
  /** The service's index of the coin is current (service.status's index_final) and it answered the balance (a lagging one refuses, 503). */
  indexed: boolean;
  /** The desk's walk of the wallet's addresses (address-scan.ts); null once it is done. */
  walk: { checked: number; of: number } | null;
  /** A watching service's scan of the wallet; null under the full index. */
  watch: { complete: boolean } | null;
}

/** Why the wallet's figures are not final yet, in words; null when they are. Pure. */
export function notFinalWords(s: FiguresState): string | null {
  if (!s.indexed) return "the service's index is catching up with the node";
  if (s.walk !== null) return `the desk is still finding which addresses are used (${s.walk.checked.toLocaleString('en-US')} of at least ${s.walk.of.toLocaleString('en-US')} checked)`;
  if (s.watch !== null && !s.watch.complete) return "the service is still reading this wallet's blocks";
  return null;
}
