// What the crash test passes to index-sync-child.ts (a module of its own: importing the child runs it).
import type { RpcClientConfig } from '../chains/utxo/rpc-client.ts';
import type { StoreConfig } from '../store/database.ts';

export const INDEX_CHILD_ENV = 'COUNTERSIGN_INDEX_CHILD';

export interface IndexChildInput {
  rpc: RpcClientConfig;
  store: StoreConfig;
  /** Small batches: many commits to be killed between (and during). */
  batchTxs: number;
  /** A pause before each batch's write, so a run lasts long enough to be killed at many points. */
  pauseMs: number;
  /** Watch mode: the wallets registered in the store (chains/utxo/watch.ts), not the full chain. */
  watch?: boolean;
}
