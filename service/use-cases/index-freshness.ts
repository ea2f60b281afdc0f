// Whether an answer read from a coin's index may be given as the truth: not while the index is more
// than the readiness lag behind its node (docs/api-decisions.md). A client that can show
// provisional figures asks for them; the others get a 503 they can retry.
import type { IndexFreshness, UtxoBackend } from '../chains/backend.ts';
import { IndexLagging } from '../errors.ts';

export interface Provisional {
  indexedHeight: number | null;
  tipHeight: number;
}

/** How far behind the index is, when more than `maxLagBlocks`; null when current or unknown. Pure. */
export function lagBeyond(f: IndexFreshness, maxLagBlocks: number): Provisional | null {
  if (f.tipHeight === null) return null; // the node's tip is unknown: /status and /readyz say why
  const lag = f.tipHeight - (f.indexedHeight ?? -1);
  return lag > maxLagBlocks ? { indexedHeight: f.indexedHeight, tipHeight: f.tipHeight } : null;
}

/**
 * Refuses (IndexLagging, a 503) an answer from an index that lags, unless the caller accepts
 * provisional answers: then says how far the index is, for the answer's headers.
 */
export function checkFreshness(backend: Pick<UtxoBackend, 'params' | 'indexFreshness'>, maxLagBlocks: number, acceptProvisional: boolean): Provisional | null {
  if (!backend.indexFreshness) return null;
  const lag = lagBeyond(backend.indexFreshness(), maxLagBlocks);
  if (lag && !acceptProvisional) throw new IndexLagging(backend.params.coin, lag.indexedHeight, lag.tipHeight);
  return lag;
}
