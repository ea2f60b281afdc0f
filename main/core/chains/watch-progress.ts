// The watch scans running on each chain, for the desk's sync bar (issue 25: "progress shows in the
// desk's existing sync bar"). The service answers per wallet (GET /watch/{coin}/{wallet_id}); a
// wallet scanning is read apart from those it serves, one scan at a time per chain (issue 33), so
// a chain's scan is summed up from the wallets it is scanning for: the furthest any has read (a
// wallet waiting for the next scan says null), from the lowest first block. Within one scan the
// height only moves forward; a new scan starts lower, and the renderer's samples start over then.
// The time left is the renderer's, from the heights it samples.
import { ApiClientError } from '../../../shared/api/client.ts';
import { isEvmCoin } from '../../../shared/coins/coin-table.ts';
import type { WatchStatus } from '../../../shared/api/schemas.ts';
import type { WatchApi } from '../wallets/birthday.ts';
import type { WalletRow } from '../store/store.ts';

/** One chain's watch scan: the wallets it is reading blocks for and how far it is. */
export interface ChainScan {
  coin: string;
  network: string;
  /** Wallets of this desk whose state is 'scanning'. */
  wallets: number;
  /** The index holds every block up to this height (null: none yet, it starts at `from`). */
  scanned_height: number | null;
  /** The lowest first block among them (a rescan's, else the birthday): where the scan began. */
  from: number;
  tip_height: number | null;
  blocks_checked: number;
  blocks_matched: number;
  /** false: the node has no BIP158 filters, so every block from the birthday is read. */
  filters: boolean;
}

/** The chains' scans from the wallets' statuses (pure). Wallets not scanning are left out. */
export function chainScans(statuses: readonly { wallet: Pick<WalletRow, 'coin' | 'network'>; status: WatchStatus }[]): ChainScan[] {
  const scans = new Map<string, ChainScan>();
  for (const { wallet, status: s } of statuses) {
    if (s.state !== 'scanning') continue;
    const key = `${wallet.coin}/${wallet.network}`;
    const seen = scans.get(key);
    const from = s.scan_from ?? s.birthday_height ?? 0;
    if (!seen) {
      scans.set(key, {
        coin: wallet.coin,
        network: wallet.network,
        wallets: 1,
        scanned_height: s.scanned_height,
        from,
        tip_height: s.tip_height,
        blocks_checked: s.blocks_checked,
        blocks_matched: s.blocks_matched,
        filters: s.filters,
      });
      continue;
    }
    // The same index answered each: the later answer's figures are the newer ones.
    seen.wallets++;
    seen.from = Math.min(seen.from, from);
    seen.scanned_height = s.scanned_height === null ? seen.scanned_height : Math.max(s.scanned_height, seen.scanned_height ?? -1);
    seen.tip_height = s.tip_height ?? seen.tip_height;
    seen.blocks_checked = Math.max(seen.blocks_checked, s.blocks_checked);
    seen.blocks_matched = Math.max(seen.blocks_matched, s.blocks_matched);
    seen.filters &&= s.filters;
  }
  return [...scans.values()];
}

/**
 * Asks the service for the scan of each UTXO wallet on a chain it serves. A coin on the full index
 * (409) is asked once; a wallet it does not know (404) or a failed answer is left out: the sync
 * bar shows scans, the wallet's page says what is wrong with one.
 */
export async function watchScans(api: WatchApi, wallets: readonly WalletRow[], served: readonly { coin: string; network: string }[]): Promise<ChainScan[]> {
  const fullIndex = new Set<string>();
  const statuses: { wallet: WalletRow; status: WatchStatus }[] = [];
  for (const wallet of wallets) {
    if (isEvmCoin(wallet.coin) || fullIndex.has(wallet.coin)) continue;
    if (!served.some((c) => c.coin === wallet.coin && c.network === wallet.network)) continue;
    try {
      statuses.push({ wallet, status: await api.watchStatus(wallet.coin, wallet.id) });
    } catch (err) {
      if (err instanceof ApiClientError && err.status === 409) fullIndex.add(wallet.coin);
    }
  }
  return chainScans(statuses);
}
