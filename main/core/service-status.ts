// Whether the service the desk talks to is up and its index current: a coin counts as behind when
// it reports an error or lags more than 2 blocks.
import type { ApiClient } from '../../shared/api/client.ts';

export interface CoinStatus {
  coin: string;
  network: string;
  tip_height: number | null;
  indexed_height: number | null;
  lag: number | null;
  error: string | null;
}

export interface ServiceHealth {
  ok: boolean;
  /** One sentence for the status line. */
  message: string;
  coins: CoinStatus[];
}

/** Asks the service; a failure to answer is itself the status, never thrown. */
export async function serviceHealth(api: Pick<ApiClient, 'status'>): Promise<ServiceHealth> {
  try {
    const status = await api.status();
    const behind = status.coins.filter((c) => c.error !== null || (c.lag ?? 0) > 2);
    return {
      ok: behind.length === 0,
      message: behind.length === 0 ? 'connected; the index is up to date' : behind.map((c) => `${c.coin}: ${c.error ?? `${c.lag} blocks behind`}`).join('; '),
      coins: status.coins.map((c) => ({ coin: c.coin, network: c.network, tip_height: c.tip_height, indexed_height: c.indexed_height, lag: c.lag, error: c.error })),
    };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err), coins: [] };
  }
}
