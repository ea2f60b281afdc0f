// Price sources against real local HTTP servers answering in CoinGecko's and Blockbook's documented
// shapes, and the shared cache: TTL on an injected clock, one upstream call for concurrent
// requests, 0 and one warning when the source fails.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { json, localServers } from '../test/local-http.ts';
import { blockbookTickersSource } from './blockbook-source.ts';
import { coinGeckoSource } from './coingecko-source.ts';
import { PriceCache, type PriceLog } from './price-cache.ts';
import type { PriceSource } from './price-source.ts';
import { staticPriceSource } from './static-source.ts';

const { serve, closeAll } = localServers();
afterEach(closeAll);

function recordingLog(): PriceLog & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, warn: (_f, m) => warnings.push(m), info: (_f, m) => infos.push(m) };
}

describe('CoinGecko source', () => {
  it('asks simple/price for the coin\'s id in USD, with the demo key header, and reads {"id": {"usd": n}}', async () => {
    const { url, requests } = await serve((req, res) => {
      const u = new URL(req.url!, 'http://x');
      const id = u.searchParams.get('ids')!;
      json(res, id === 'litecoin' ? { litecoin: { usd: 84.12 } } : {});
    });
    const source = coinGeckoSource({ url: `${url}/api/v3/`, timeoutMs: 2000, apiKey: 'CG-test' });
    expect(await source.usdPrice('litecoin')).toBe(84.12);
    expect(requests[0]!.url).toBe('/api/v3/simple/price?ids=litecoin&vs_currencies=usd');
    expect(requests[0]!.headers['x-cg-demo-api-key']).toBe('CG-test');
    // an id CoinGecko does not list: no price, not a failure
    expect(await source.usdPrice('bitcoin_cash')).toBeNull();
    expect(requests[1]!.url).toBe('/api/v3/simple/price?ids=bitcoin-cash&vs_currencies=usd');
    // testnet3 has no id: no request at all
    expect(await source.usdPrice('testnet3')).toBeNull();
    expect(requests).toHaveLength(2);
  });

  it('takes id overrides from the configuration', async () => {
    const { url, requests } = await serve((_req, res) => json(res, { 'my-btg': { usd: 12.5 } }));
    const source = coinGeckoSource({ url, timeoutMs: 2000, ids: { bitcoin_gold: 'my-btg' } });
    expect(await source.usdPrice('bitcoin_gold')).toBe(12.5);
    expect(requests[0]!.url).toBe('/simple/price?ids=my-btg&vs_currencies=usd');
  });

  it('throws on an answer in another shape', async () => {
    const { url } = await serve((_req, res) => json(res, { litecoin: { usd: 'eighty' } }));
    await expect(coinGeckoSource({ url, timeoutMs: 2000 }).usdPrice('litecoin')).rejects.toThrow(/unexpected shape/);
  });
});

describe('Blockbook tickers source', () => {
  it('reads rates.usd from /api/v2/tickers/ of the coin\'s own instance; -1 means no rate', async () => {
    const ltc = await serve((_req, res) => json(res, { ts: 1574346615, rates: { usd: 7134.1 } }));
    const btg = await serve((_req, res) => json(res, { ts: 1574346615, rates: { usd: -1 } }));
    const source = blockbookTickersSource({ urls: new Map([['litecoin', `${ltc.url}/`], ['bitcoin_gold', btg.url]]), timeoutMs: 2000 });
    expect(await source.usdPrice('litecoin')).toBe(7134.1);
    expect(ltc.requests[0]!.url).toBe('/api/v2/tickers/?currency=usd');
    expect(await source.usdPrice('bitcoin_gold')).toBeNull();
    expect(await source.usdPrice('dash')).toBeNull(); // no instance configured
  });
});

describe('static source', () => {
  it('answers the configured rates and null for the rest', async () => {
    const source = staticPriceSource(new Map([['litecoin', 80]]));
    expect(await source.usdPrice('litecoin')).toBe(80);
    expect(await source.usdPrice('bitcoin')).toBeNull();
  });
});

describe('price cache', () => {
  it('asks the upstream once per TTL per coin (injected clock)', async () => {
    let price = 84;
    const { url, requests } = await serve((_req, res) => json(res, { litecoin: { usd: price } }));
    let now = 1_000_000;
    const cache = new PriceCache({ source: coinGeckoSource({ url, timeoutMs: 2000 }), ttlMs: 60_000, log: recordingLog(), now: () => now });
    expect(await cache.usdRate('litecoin')).toBe(84);
    price = 90;
    now += 59_999;
    expect(await cache.usdRate('litecoin')).toBe(84);
    expect(requests).toHaveLength(1);
    now += 1;
    expect(await cache.usdRate('litecoin')).toBe(90);
    expect(requests).toHaveLength(2);
  });

  it('shares one upstream call between concurrent requests for a coin', async () => {
    const held: ServerResponse[] = [];
    const { url, requests } = await serve((_req, res) => held.push(res));
    const cache = new PriceCache({ source: coinGeckoSource({ url, timeoutMs: 5000 }), ttlMs: 60_000, log: recordingLog() });
    const answers = Promise.all(Array.from({ length: 20 }, () => cache.usdRate('litecoin')));
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    for (const res of held) json(res, { litecoin: { usd: 84 } });
    expect(await answers).toEqual(Array.from({ length: 20 }, () => 84));
    expect(requests).toHaveLength(1);
  });

  it.each([
    ['garbage', (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('<html>rate limited</html>')],
    ['an error status', (_req: IncomingMessage, res: ServerResponse) => res.writeHead(429).end('{"status":{"error_code":429}}')],
    ['a timeout', () => undefined],
  ])('serves 0 while the source answers with %s, warns once per failure window, and recovers', async (_what, failing) => {
    let healthy = false;
    const { url } = await serve((req, res) => (healthy ? json(res, { litecoin: { usd: 84 } }) : failing(req, res)));
    let now = 0;
    const log = recordingLog();
    const cache = new PriceCache({ source: coinGeckoSource({ url, timeoutMs: 200 }), ttlMs: 60_000, log, now: () => now });
    expect(await cache.usdRate('litecoin')).toBe(0);
    expect(await cache.usdRate('litecoin')).toBe(0);
    now += 60_000;
    expect(await cache.usdRate('litecoin')).toBe(0);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]).toMatch(/usd_balance is 0 for litecoin/);
    now += 15 * 60_000; // a reminder, not one per request
    expect(await cache.usdRate('litecoin')).toBe(0);
    expect(log.warnings).toHaveLength(2);
    healthy = true;
    now += 60_000;
    expect(await cache.usdRate('litecoin')).toBe(84);
    expect(log.infos).toEqual(['USD price source answers again']);
  });

  it('keeps coins apart', async () => {
    const calls: string[] = [];
    const source: PriceSource = {
      name: 'test',
      usdPrice: async (coin) => {
        calls.push(coin);
        if (coin === 'dash') throw new Error('down');
        return coin === 'litecoin' ? 80 : null;
      },
      usdPriceAt: async () => null,
    };
    const cache = new PriceCache({ source, ttlMs: 1000, log: recordingLog(), now: () => 0 });
    expect(await Promise.all([cache.usdRate('litecoin'), cache.usdRate('dash'), cache.usdRate('bitcoin'), cache.usdRate('litecoin')])).toEqual([80, 0, 0, 80]);
    expect(calls.sort()).toEqual(['bitcoin', 'dash', 'litecoin']);
  });
});
