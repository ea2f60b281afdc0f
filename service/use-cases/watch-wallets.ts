// Watch mode's registrations (chains/utxo/watch.ts): each belongs to the API key that made it.
import type { UtxoBackend } from '../chains/backend.ts';
import type { WalletWatch, WatchStatus } from '../chains/utxo/watch.ts';
import { ApiError, notFound } from '../errors.ts';

/** The backend's watch API, or a 409 that says the coin runs the full index. */
export function walletWatch(backend: UtxoBackend): WalletWatch {
  if (!backend.watch) {
    throw new ApiError(409, `${backend.params.coin} runs the full address index here, which answers any address: there is nothing to register (watch mode is the node backend's "index": "watch")`);
  }
  return backend.watch;
}

/** Registrations are kept per API key; '' on a deployment without keys. */
export const ownerOf = (apiKeyId: string | null): string => apiKeyId ?? '';

export function found(status: WatchStatus | null, walletId: string): WatchStatus {
  if (!status) throw notFound(`no wallet "${walletId}" is registered by this API key: register it first with PUT`);
  return status;
}
