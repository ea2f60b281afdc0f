// The service's own reads of unspent outputs, a page at a time (docs/api-decisions.md, section 6):
// coin selection draws from a bounded candidate set, and the checks of named outputs (coin control,
// a vault path's depth) walk the pages until every output named is found, never holding more than
// a page.
import type { PaymentSource, SpendableOutput } from '../../shared/coins/payment.ts';
import { outpointKey, type Outpoint, UNSPENT_PAGE_MAX, type UnspentRow, type UtxoBackend } from '../chains/backend.ts';


/**
 * How many unspent outputs coin selection draws from, in its order (the sources in the order
 * given, each oldest first): a payment spending more inputs than this would be far over the
 * 100,000-vbyte limit of a standard transaction (a P2PKH input is 148 vbytes, a 2-of-3 P2SH one
 * about 300), so the bound changes no payment the network would relay.
 */
export const SELECTION_CANDIDATES = 1000;

/** Each source with its first unspent outputs in selection order, and whether any were left out. */
export async function selectionCandidates(backend: UtxoBackend, sources: readonly PaymentSource[], confirmedOnly: boolean): Promise<{ sources: PaymentSource[]; leftOut: boolean }> {
  let budget = SELECTION_CANDIDATES;
  let leftOut = false;
  const out: PaymentSource[] = [];
  for (const source of sources) {
    const unspent: SpendableOutput[] = [];
    let after: string | null = null;
    if (budget === 0) leftOut = true;
    while (budget > 0) {
      const page = await backend.unspent([source.scriptPubKey], { limit: Math.min(budget, UNSPENT_PAGE_MAX), after });
      let unconfirmedReached = false;
      for (const r of page.rows) {
        // unconfirmed outputs come last: with confirmedOnly, the first one ends the source
        if (confirmedOnly && r.height === null) {
          unconfirmedReached = true;
          break;
        }
        unspent.push({ txid: r.txid, vout: r.vout, amount: r.amount, scriptPubKey: r.script });
        budget--;
      }
      after = page.next;
      if (unconfirmedReached || after === null) break;
    }
    if (budget === 0 && after !== null) leftOut = true;
    out.push({ ...source, unspent });
  }
  return { sources: out, leftOut };
}

/**
 * Those of `outpoints` that are unspent outputs of `scripts` (mempool ones included, spent ones
 * not), by outpointKey: looked up by key where the backend can (its own index), else its pages are
 * read until every outpoint is found or the last page is.
 */
export async function findUnspent(backend: UtxoBackend, scripts: readonly Uint8Array[], outpoints: readonly Outpoint[]): Promise<Map<string, UnspentRow>> {
  const wanted = new Set(outpoints.map((o) => outpointKey(o.txid, o.vout)));
  const found = new Map<string, UnspentRow>();
  if (wanted.size === 0 || scripts.length === 0) return found;
  if (backend.unspentAt) return backend.unspentAt(scripts, outpoints);
  let after: string | null = null;
  do {
    const page = await backend.unspent(scripts, { limit: UNSPENT_PAGE_MAX, after });
    for (const r of page.rows) {
      const k = outpointKey(r.txid, r.vout);
      if (wanted.has(k)) found.set(k, r);
    }
    after = page.next;
  } while (after !== null && found.size < wanted.size);
  return found;
}
