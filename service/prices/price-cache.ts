// One cache of USD rates shared by every request: a rate is fetched at most once per TTL per coin,
// concurrent requests for a coin share one upstream call, and a failing source yields 0 (never an
// error) with one warning when the failure starts and a reminder at most every REMIND_MS.
import type { CoinName } from '../../shared/coins/coin-table.ts';
import type { PriceSource } from './price-source.ts';

export interface PriceLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface PriceCacheOptions {
  source: PriceSource;
  ttlMs: number;
  log: PriceLog;
  /** Milliseconds; injected by tests. */
  now?: () => number;
}

const REMIND_MS = 15 * 60_000;

export class PriceCache {
  private readonly entries = new Map<CoinName, { rate: number; until: number }>();
  private readonly inflight = new Map<CoinName, Promise<number>>();
  /** Coins whose source is failing, with when the last warning was logged. */
  private readonly failing = new Map<CoinName, number>();
  private readonly now: () => number;

  constructor(private readonly options: PriceCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** USD per whole coin; 0 when unknown or while the source fails. Never throws. */
  usdRate(coin: CoinName): Promise<number> {
    const entry = this.entries.get(coin);
    if (entry && this.now() < entry.until) return Promise.resolve(entry.rate);
    let pending = this.inflight.get(coin);
    if (!pending) {
      pending = this.refresh(coin).finally(() => this.inflight.delete(coin));
      this.inflight.set(coin, pending);
    }
    return pending;
  }

  private async refresh(coin: CoinName): Promise<number> {
    const { source, log, ttlMs } = this.options;
    let rate = 0;
    try {
      rate = (await source.usdPrice(coin)) ?? 0;
      if (this.failing.delete(coin)) log.info({ coin, source: source.name }, 'USD price source answers again');
    } catch (err) {
      const warnedAt = this.failing.get(coin);
      if (warnedAt === undefined || this.now() - warnedAt >= REMIND_MS) {
        log.warn(
          { coin, source: source.name, error: err instanceof Error ? err.message : String(err) },
          `USD price unavailable: usd_balance is 0 for ${coin} until the source answers (retried every ${Math.round(ttlMs / 1000)} s)`,
        );
        this.failing.set(coin, this.now());
      }
    }
    // a failure is remembered for the TTL too, so a down source is not asked on every request
    this.entries.set(coin, { rate, until: this.now() + ttlMs });
    return rate;
  }
}
