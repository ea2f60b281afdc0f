// Extension beyond the spec: a whole transaction by txid (PSBT signers and Ledger's legacy
// protocol need the transactions a payment spends from).
import type { UtxoBackend } from '../chains/backend.ts';
import { notFound } from '../errors.ts';

export async function rawTransaction(backend: UtxoBackend, txid: string): Promise<{ txid: string; bytes: Uint8Array }> {
  const lower = txid.toLowerCase();
  const bytes = await backend.rawTransaction(lower);
  if (!bytes) throw notFound(`transaction ${lower} is neither in the ${backend.params.coin} chain this service has indexed nor in its mempool`);
  return { txid: lower, bytes };
}
