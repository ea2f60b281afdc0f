// CoinGecko's simple price endpoint: GET {base}/simple/price?ids=<id>&vs_currencies=usd answers
// {"<id>": {"usd": 67187.34}}, or {} for an id it does not list.
import { z } from 'zod';
import type { CoinName } from '../../shared/coins/coin-table.ts';
import { UpstreamFailure } from '../errors.ts';
import { httpJson } from '../upstream/http-json.ts';
import { priceOrNull, type PriceSource } from './price-source.ts';

/** CoinGecko's ids for the API's coins; testnet3 has no market price. Operators may override. */
export const COINGECKO_IDS: Readonly<Partial<Record<CoinName, string>>> = {
  bitcoin: 'bitcoin',
  litecoin: 'litecoin',
  ethereum: 'ethereum',
  bitcoin_cash: 'bitcoin-cash',
  bitcoin_gold: 'bitcoin-gold',
  bitcoin_private: 'bitcoin-private',
  dash: 'dash',
  zcash: 'zcash',
  zclassic: 'zclassic',
};

export const COINGECKO_DEFAULT_URL = 'https://api.coingecko.com/api/v3';

const SimplePrice = z.record(z.string(), z.object({ usd: z.number().optional() }));

export interface CoinGeckoOptions {
  /** API base, e.g. https://api.coingecko.com/api/v3 or https://pro-api.coingecko.com/api/v3 */
  url: string;
  timeoutMs: number;
  apiKey?: string | undefined;
  ids?: Readonly<Partial<Record<CoinName, string>>>;
}

/** The key header CoinGecko expects: its pro host takes a pro key, the public host a demo key. */
function keyHeader(url: string, apiKey: string | undefined): Record<string, string> {
  if (!apiKey) return {};
  return new URL(url).hostname.startsWith('pro-api.') ? { 'x-cg-pro-api-key': apiKey } : { 'x-cg-demo-api-key': apiKey };
}

export function coinGeckoSource(options: CoinGeckoOptions): PriceSource {
  const ids = { ...COINGECKO_IDS, ...options.ids };
  const base = options.url.replace(/\/+$/, '');
  const http = { name: 'coingecko price source', timeoutMs: options.timeoutMs, retries: 1, backoffMs: 200, headers: keyHeader(base, options.apiKey) };
  return {
    name: 'coingecko',
    async usdPrice(coin) {
      const id = ids[coin];
      if (id === undefined) return null;
      const url = `${base}/simple/price?ids=${encodeURIComponent(id)}&vs_currencies=usd`;
      const parsed = SimplePrice.safeParse(await httpJson(url, {}, http));
      if (!parsed.success) throw new UpstreamFailure(false, `coingecko price source answered in an unexpected shape for ${id}`);
      return priceOrNull(parsed.data[id]?.usd);
    },
  };
}
