// Coin control (docs/api-decisions.md, section 8): the caller names the outputs to spend. Each is
// checked against the chain data before anything is built; a refusal names the row and the reason.
import { bytesToHex } from '../../shared/coins/bytes.ts';
import type { PaymentSource } from '../../shared/coins/payment.ts';
import { type MempoolConflict, type Outpoint, outpointKey, type UtxoBackend } from '../chains/backend.ts';
import { ApiError, badRequest } from '../errors.ts';
import { checkReplaceable, distinctConflicts } from './replacement.ts';
import { findUnspent } from './unspent-pages.ts';

export interface ControlledInputs {
  /** The sources with exactly the outputs given, grouped by source in the sources' order. */
  sources: PaymentSource[];
  /** Mempool transactions these inputs would replace. */
  conflicts: MempoolConflict[];
}

export async function controlledInputs(backend: UtxoBackend, sources: PaymentSource[], inputs: readonly Outpoint[], allowUnconfirmed: boolean): Promise<ControlledInputs> {
  const seen = new Map<string, number>();
  inputs.forEach((o, i) => {
    const k = outpointKey(o.txid, o.vout);
    const first = seen.get(k);
    if (first !== undefined) throw badRequest(`inputs[${i}]: ${o.txid}:${o.vout} is listed twice (also inputs[${first}])`);
    seen.set(k, i);
  });
  const rows = await findUnspent(backend, sources.map((s) => s.scriptPubKey), inputs);
  const known = await backend.outputs(inputs);
  const notUnspent = inputs.filter((o) => !rows.has(outpointKey(o.txid, o.vout)) && known.has(outpointKey(o.txid, o.vout)));
  const spenders = notUnspent.length > 0 && backend.mempoolSpenders ? await backend.mempoolSpenders(notUnspent) : new Map<string, MempoolConflict>();

  const chosen = new Map<PaymentSource, PaymentSource['unspent']>(sources.map((s) => [s, []]));
  const conflicts: MempoolConflict[] = [];
  inputs.forEach((o, i) => {
    const k = outpointKey(o.txid, o.vout);
    const what = `inputs[${i}]: ${o.txid}:${o.vout}`;
    const out = known.get(k);
    if (!out) throw badRequest(`${what} is unknown: no such output in this service's chain data`);
    const scriptHex = bytesToHex(out.script);
    const source = sources.find((s) => bytesToHex(s.scriptPubKey) === scriptHex);
    if (!source) throw badRequest(`${what} is not this wallet's: it does not pay any of the source scripts`);
    const row = rows.get(k);
    if (row) {
      if (row.height === null && !allowUnconfirmed) throw badRequest(`${what} is unconfirmed and allow_unconfirmed is false`);
    } else {
      const conflict = spenders.get(k);
      if (!conflict) throw new ApiError(409, `${what} is already spent`);
      conflicts.push(conflict);
    }
    chosen.get(source)!.push({ txid: o.txid, vout: o.vout, amount: out.amount, scriptPubKey: out.script });
  });
  const distinct = distinctConflicts(conflicts);
  checkReplaceable(backend, distinct);
  return { sources: sources.map((s) => ({ ...s, unspent: chosen.get(s)! })), conflicts: distinct };
}
