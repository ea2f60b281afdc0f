// Blockbook's tickers: GET {instance}/api/v2/tickers/?currency=usd answers
// {"ts": 1574346615, "rates": {"usd": 7134.1}}, with -1 when it has no rate. One Blockbook instance
// serves one coin, so each coin has its own URL. A past rate: the same with &timestamp=<unix seconds>
// answers the nearest ticker at or after it, in the same shape.
import { z } from 'zod';
import type { CoinName } from '../../shared/coins/coin-table.ts';
import { UpstreamFailure } from '../errors.ts';
import { httpJson } from '../upstream/http-json.ts';
import { priceOrNull, type PriceSource } from './price-source.ts';

const Tickers = z.object({ ts: z.number().optional(), rates: z.record(z.string(), z.number()) });

export interface BlockbookTickersOptions {
  /** Blockbook instance per coin, e.g. https://ltc1.trezor.io */
  urls: ReadonlyMap<CoinName, string>;
  timeoutMs: number;
}

export function blockbookTickersSource(options: BlockbookTickersOptions): PriceSource {
  const ask = async (coin: CoinName, at: number | null): Promise<number | null> => {
    const instance = options.urls.get(coin);
    if (instance === undefined) return null;
    const name = `blockbook ${coin} tickers`;
    const url = `${instance.replace(/\/+$/, '')}/api/v2/tickers/?currency=usd${at === null ? '' : `&timestamp=${at}`}`;
    const parsed = Tickers.safeParse(await httpJson(url, {}, { name, timeoutMs: options.timeoutMs, retries: 1, backoffMs: 200 }));
    if (!parsed.success) throw new UpstreamFailure(false, `${name} answered in an unexpected shape`);
    return priceOrNull(parsed.data.rates['usd']);
  };
  return {
    name: 'blockbook',
    usdPrice: (coin) => ask(coin, null),
    usdPriceAt: (coin, at) => ask(coin, at),
  };
}
