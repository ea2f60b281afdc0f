// Historical USD rates, cached per (coin, UTC day): a past day's rate does not change, so it is
// asked of the source once; today's is asked again after the TTL. A failing source answers null
// (not cached) with one warning, never an error: the books show "no rate" rather than fail.
import type { CoinName } from '../../shared/coins/coin-table.ts';
import type { PriceLog } from './price-cache.ts';
import { utcDay, type PriceSource } from './price-source.ts';

export interface PriceHistoryOptions {
  source: PriceSource;
  /** How long today's rate is kept. */
  ttlMs: number;
  log: PriceLog;
  /** Milliseconds; injected by tests. */
  now?: () => number;
}

export class PriceHistoryCache {
  private readonly days = new Map<string, { rate: number | null; until: number }>();
  private readonly inflight = new Map<string, Promise<number | null>>();
  private readonly now: () => number;

  constructor(private readonly options: PriceHistoryOptions) {
    this.now = options.now ?? Date.now;
  }

  /** USD per whole coin on the UTC day of `at` (unix seconds); null when unknown. Never throws. */
  usdRateAt(coin: CoinName, at: number): Promise<number | null> {
    const day = utcDay(at);
    const key = `${coin}:${day}`;
    const hit = this.days.get(key);
    if (hit && this.now() < hit.until) return Promise.resolve(hit.rate);
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.fetch(coin, at, day, key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async fetch(coin: CoinName, at: number, day: string, key: string): Promise<number | null> {
    const { source, log, ttlMs } = this.options;
    try {
      const rate = await source.usdPriceAt(coin, at);
      const past = day < utcDay(Math.floor(this.now() / 1000));
      this.days.set(key, { rate, until: past ? Number.POSITIVE_INFINITY : this.now() + ttlMs });
      return rate;
    } catch (err) {
      log.warn({ coin, day, source: source.name, error: err instanceof Error ? err.message : String(err) }, `USD rate of ${coin} on ${day} unavailable`);
      return null;
    }
  }
}
