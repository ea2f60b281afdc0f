// CoinGecko's simple price endpoint: GET {base}/simple/price?ids=<id>&vs_currencies=usd answers
// {"<id>": {"usd": 67187.34}}, or {} for an id it does not list. A past day's rate:
// GET {base}/coins/<id>/history?date=dd-mm-yyyy&localization=false answers
// {"id": …, "market_data": {"current_price": {"usd": 84.1, …}}}, without market_data for a day it has no data for.
import { z } from 'zod';
import { COIN_NAMES, coinRow, type CoinName } from '../../shared/coins/coin-table.ts';
import { UpstreamFailure } from '../errors.ts';
import { httpJson } from '../upstream/http-json.ts';
import { priceOrNull, utcDay, type PriceSource } from './price-source.ts';

/** CoinGecko's id of every coin, from its row (null: no listing, e.g. testnet3). */
export const COINGECKO_IDS: Readonly<Record<CoinName, string | null>> = Object.fromEntries(COIN_NAMES.map((c) => [c, coinRow(c).coingeckoId])) as Record<CoinName, string | null>;

/** Ids an operator sets in place of the table's: only the coins named (partial by nature). */
export type CoinGeckoIdOverrides = Readonly<{ [C in CoinName]?: string }>;

export const COINGECKO_DEFAULT_URL = 'https://api.coingecko.com/api/v3';

const SimplePrice = z.record(z.string(), z.object({ usd: z.number().optional() }));
const CoinHistory = z.object({ market_data: z.object({ current_price: z.object({ usd: z.number().optional() }).partial() }).optional() });

export interface CoinGeckoOptions {
  /** API base, e.g. https://api.coingecko.com/api/v3 or https://pro-api.coingecko.com/api/v3 */
  url: string;
  timeoutMs: number;
  apiKey?: string | undefined;
  ids?: CoinGeckoIdOverrides;
}

/** The key header CoinGecko expects: its pro host takes a pro key, the public host a demo key. */
function keyHeader(url: string, apiKey: string | undefined): Record<string, string> {
  if (!apiKey) return {};
  return new URL(url).hostname.startsWith('pro-api.') ? { 'x-cg-pro-api-key': apiKey } : { 'x-cg-demo-api-key': apiKey };
}

export function coinGeckoSource(options: CoinGeckoOptions): PriceSource {
  const ids: Readonly<Record<CoinName, string | null | undefined>> = { ...COINGECKO_IDS, ...options.ids };
  const base = options.url.replace(/\/+$/, '');
  const http = { name: 'coingecko price source', timeoutMs: options.timeoutMs, retries: 1, backoffMs: 200, headers: keyHeader(base, options.apiKey) };
  return {
    name: 'coingecko',
    async usdPrice(coin) {
      const id = ids[coin];
      if (id === undefined || id === null) return null;
      const url = `${base}/simple/price?ids=${encodeURIComponent(id)}&vs_currencies=usd`;
      const parsed = SimplePrice.safeParse(await httpJson(url, {}, http));
      if (!parsed.success) throw new UpstreamFailure(false, `coingecko price source answered in an unexpected shape for ${id}`);
      return priceOrNull(parsed.data[id]?.usd);
    },
    async usdPriceAt(coin, at) {
      const id = ids[coin];
      if (id === undefined || id === null) return null;
      const [y, m, d] = utcDay(at).split('-');
      const url = `${base}/coins/${encodeURIComponent(id)}/history?date=${d}-${m}-${y}&localization=false`;
      const parsed = CoinHistory.safeParse(await httpJson(url, {}, http));
      if (!parsed.success) throw new UpstreamFailure(false, `coingecko price source answered its history in an unexpected shape for ${id}`);
      return priceOrNull(parsed.data.market_data?.current_price.usd);
    },
  };
}
