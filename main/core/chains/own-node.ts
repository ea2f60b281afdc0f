// The treasurer's own node, asked directly (issue 31): where the treasurer connected a node of their
// own for a coin in Settings (chain-settings.ts), the desk can prove what the service only says.
// Today one question: is a transaction unconfirmed (in the node's mempool)? The child-pays-for-parent
// counts an ancestor it did not make only on this word (payments/cpfp.ts). No own node, no proof:
// the caller then counts only the desk's own payments.
import { readFileSync } from 'node:fs';
import type { CoinName } from '../../../shared/coins/index.ts';
import { UTXO_COIN_NAMES, type UtxoCoinName } from '../../../shared/coins/coin-table.ts';
import { storedChains, type ChainSecrets } from './settings.ts';
import type { CoordinatorStore } from '../store/store.ts';

/** What the treasurer's own node says of a transaction: in its mempool (unconfirmed), or not; null: no own node for the coin. */
export interface OwnNode {
  /** Where the node is, for the words ("your node at http://…"). Null: no own node for the coin. */
  where(coin: CoinName): string | null;
  /** True: the node holds `txid` unconfirmed in its mempool; false: it does not. Throws when it cannot be asked. */
  inMempool(coin: CoinName, txid: string): Promise<boolean>;
}

/** Bitcoin Core's RPC_INVALID_ADDRESS_OR_KEY: getmempoolentry's "Transaction not in mempool". */
const NOT_IN_MEMPOOL = -5;

/** The own nodes saved in Settings, asked over JSON-RPC with their cookie file or user and password. */
export function ownNodesOf(store: Pick<CoordinatorStore, 'setting'>, secrets: ChainSecrets): OwnNode {
  const nodeOf = (coin: CoinName) => {
    if (!(UTXO_COIN_NAMES as readonly string[]).includes(coin)) return null;
    const saved = storedChains(store, secrets).chains.find((c) => c.coin === (coin as UtxoCoinName));
    return saved?.choice.kind === 'node' ? { coin: coin as UtxoCoinName, choice: saved.choice } : null;
  };
  return {
    where: (coin) => nodeOf(coin)?.choice.url ?? null,
    inMempool: async (coin, txid) => {
      const node = nodeOf(coin);
      if (!node) throw new Error(`no node of your own is connected for ${coin}`);
      const { auth, url } = node.choice;
      const login = auth.kind === 'cookie' ? readFileSync(auth.cookie_file, 'utf8').trim() : `${auth.username}:${secrets(node.coin).load() ?? ''}`;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(login).toString('base64')}` },
        body: JSON.stringify({ jsonrpc: '1.0', id: 'countersign', method: 'getmempoolentry', params: [txid] }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await res.json().catch(() => null)) as { result?: unknown; error?: { code?: number; message?: string } | null } | null;
      if (body?.error?.code === NOT_IN_MEMPOOL) return false;
      if (!body || body.error || !res.ok) throw new Error(`your node at ${url} answered ${body?.error?.message ?? `HTTP ${res.status}`}`);
      return true;
    },
  };
}
