// The configured price source: a coin's own usdRate pins its rate; every other coin asks the live
// source (testnet3 has no market id, so no USD value).
import type { CoinName } from '../../shared/coins/coin-table.ts';
import type { ServiceConfig } from '../config.ts';
import { blockbookTickersSource } from './blockbook-source.ts';
import { COINGECKO_DEFAULT_URL, coinGeckoSource } from './coingecko-source.ts';
import { type PriceSource } from './price-source.ts';
import { staticPriceSource } from './static-source.ts';

interface CoinEntry {
  coin: CoinName;
  usdRate: number | undefined;
  /** The coin's backend URL when that backend is a Blockbook (it has tickers too). */
  blockbookUrl: string | undefined;
}

function coinEntries(config: ServiceConfig): CoinEntry[] {
  return Object.entries(config.coins).flatMap(([coin, entry]) => {
    if (!entry) return [];
    const backend: { type: string; url?: string } = entry.backend;
    return [{ coin: coin as CoinName, usdRate: entry.usdRate, blockbookUrl: backend.type === 'blockbook' ? backend.url : undefined }];
  });
}

function liveSource(config: ServiceConfig): PriceSource | null {
  const { prices } = config;
  switch (prices.source) {
    case 'static':
      return null;
    case 'coingecko':
      return coinGeckoSource({ url: prices.url ?? COINGECKO_DEFAULT_URL, timeoutMs: prices.timeoutMs, apiKey: prices.apiKey, ids: prices.ids });
    case 'blockbook': {
      const urls = new Map<CoinName, string>();
      for (const { coin, blockbookUrl } of coinEntries(config)) {
        const url = prices.urls[coin] ?? blockbookUrl;
        if (url !== undefined) urls.set(coin, url);
      }
      return blockbookTickersSource({ urls, timeoutMs: prices.timeoutMs });
    }
  }
}

export function priceSourceFromConfig(config: ServiceConfig): PriceSource {
  const pinned = new Map<CoinName, number>();
  for (const { coin, usdRate } of coinEntries(config)) {
    if (usdRate !== undefined) pinned.set(coin, usdRate);
  }
  const fixed = staticPriceSource(pinned);
  const live = liveSource(config);
  if (!live) return fixed;
  return {
    name: live.name,
    usdPrice: async (coin) => (pinned.has(coin) ? fixed.usdPrice(coin) : live.usdPrice(coin)),
    usdPriceAt: async (coin, at) => (pinned.has(coin) ? fixed.usdPriceAt(coin, at) : live.usdPriceAt(coin, at)),
  };
}
