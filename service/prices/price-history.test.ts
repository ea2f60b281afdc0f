// Historical USD rates against local HTTP servers that answer in CoinGecko's (/coins/{id}/history)
// and Blockbook's (/api/v2/tickers?timestamp=) documented shapes, the static source, the cache per
// (coin, day), and the service's GET /prices/history/{coin}.
import { afterEach, describe, expect, it } from 'vitest';
import { json, localServers } from '../test/local-http.ts';
import { blockbookTickersSource } from './blockbook-source.ts';
import { coinGeckoSource } from './coingecko-source.ts';
import type { PriceLog } from './price-cache.ts';
import { PriceHistoryCache } from './price-history.ts';
import type { PriceSource } from './price-source.ts';
import { staticPriceSource } from './static-source.ts';

const { serve, closeAll } = localServers();
afterEach(closeAll);
const quietLog = (): PriceLog & { warnings: string[] } => {
  const warnings: string[] = [];
  return { warnings, warn: (_f, m) => warnings.push(m), info: () => undefined };
};

// 2024-03-15T12:00:00Z
const AT = 1_710_504_000;

describe('historical rates from the sources', () => {
  it('CoinGecko: /coins/{id}/history?date=dd-mm-yyyy, market_data.current_price.usd; a day without market data is no rate', async () => {
    const { url, requests } = await serve((req, res) => {
      const u = new URL(req.url!, 'http://x');
      if (u.pathname === '/api/v3/coins/litecoin/history' && u.searchParams.get('date') === '15-03-2024') {
        json(res, { id: 'litecoin', symbol: 'ltc', name: 'Litecoin', market_data: { current_price: { usd: 88.31, eur: 80.9 }, market_cap: { usd: 6.5e9 } } });
      } else json(res, { id: 'litecoin', symbol: 'ltc', name: 'Litecoin' });
    });
    const source = coinGeckoSource({ url: `${url}/api/v3`, timeoutMs: 2000 });
    expect(await source.usdPriceAt('litecoin', AT)).toBe(88.31);
    expect(requests[0]!.url).toBe('/api/v3/coins/litecoin/history?date=15-03-2024&localization=false');
    expect(await source.usdPriceAt('litecoin', AT - 86_400 * 400)).toBeNull();
    expect(await source.usdPriceAt('testnet3', AT)).toBeNull();
    expect(requests).toHaveLength(2);
  });

  it('CoinGecko: an answer in another shape is a failure', async () => {
    const { url } = await serve((_req, res) => json(res, { market_data: { current_price: { usd: 'many' } } }));
    await expect(coinGeckoSource({ url, timeoutMs: 2000 }).usdPriceAt('litecoin', AT)).rejects.toThrow(/unexpected shape/);
  });

  it('Blockbook: /api/v2/tickers/?currency=usd&timestamp=, {"ts", "rates": {"usd"}}; -1 is no rate', async () => {
    const { url, requests } = await serve((req, res) => {
      const u = new URL(req.url!, 'http://x');
      json(res, u.searchParams.get('timestamp') === String(AT) ? { ts: AT + 300, rates: { usd: 87.9 } } : { ts: 0, rates: { usd: -1 } });
    });
    const source = blockbookTickersSource({ urls: new Map([['litecoin', url]]), timeoutMs: 2000 });
    expect(await source.usdPriceAt('litecoin', AT)).toBe(87.9);
    expect(requests[0]!.url).toBe(`/api/v2/tickers/?currency=usd&timestamp=${AT}`);
    expect(await source.usdPriceAt('litecoin', 1)).toBeNull();
    expect(await source.usdPriceAt('dash', AT)).toBeNull();
  });

  it('static: the pinned rate at every time', async () => {
    const source = staticPriceSource(new Map([['litecoin', 80]]));
    expect(await source.usdPriceAt('litecoin', AT)).toBe(80);
    expect(await source.usdPriceAt('bitcoin', AT)).toBeNull();
  });
});

describe('PriceHistoryCache', () => {
  it('asks once per (coin, day), keeps past days, and answers null without caching while the source fails', async () => {
    const calls: string[] = [];
    let down = false;
    const source: PriceSource = {
      name: 'test',
      usdPrice: async () => null,
      usdPriceAt: async (coin, at) => {
        calls.push(`${coin}@${at}`);
        if (down) throw new Error('down');
        return coin === 'litecoin' ? 80 + Math.floor(at / 86_400) % 10 : null;
      },
    };
    const log = quietLog();
    const cache = new PriceHistoryCache({ source, ttlMs: 1000, log, now: () => (AT + 10 * 86_400) * 1000 });
    const first = await cache.usdRateAt('litecoin', AT);
    // the same day, another hour: the cached rate, no call
    expect(await cache.usdRateAt('litecoin', AT + 3600)).toBe(first);
    expect(calls).toEqual([`litecoin@${AT}`]);
    // concurrent asks for a new day share one call
    await Promise.all([cache.usdRateAt('litecoin', AT + 86_400), cache.usdRateAt('litecoin', AT + 86_400 + 60)]);
    expect(calls).toHaveLength(2);
    down = true;
    expect(await cache.usdRateAt('bitcoin', AT)).toBeNull();
    expect(log.warnings).toEqual(['USD rate of bitcoin on 2024-03-15 unavailable']);
    down = false;
    expect(await cache.usdRateAt('bitcoin', AT)).toBeNull();
    expect(calls.filter((c) => c.startsWith('bitcoin'))).toHaveLength(2);
  });
});
