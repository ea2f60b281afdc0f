// createService(): the whole service as one object, for the CLI and for embedding in the desktop
// app (docs/architecture.md). Listening, and closing in order, live here.
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { CoinName, UtxoCoinName } from '../shared/coins/coin-table.ts';
import type { UtxoBackend } from './chains/backend.ts';
import { createEvmChain, createUtxoBackend } from './chains/backend-factory.ts';
import { blockTimesFor, type BlockTimes } from './chains/block-times.ts';
import type { EvmChain } from './chains/evm/evm-chain.ts';
import { parseConfig, type CoinConfig, type ServiceConfig, type ServiceConfigInput } from './config.ts';
import { buildApp } from './http/app.ts';
import { DEFAULT_RELAY_LIMITS, type RelayLimits } from './relay/relay.ts';
import { indexElection, type IndexElection } from './leader/leadership.ts';
import { openStore, type Store, type StoreConfig } from './store/database.ts';
import { claimSqliteInstance, type InstanceClaim } from './store/instance-lock.ts';
import { priceSourceFromConfig } from './prices/from-config.ts';
import { PriceCache } from './prices/price-cache.ts';
import { PriceHistoryCache } from './prices/price-history.ts';
import { coinsAtStart, startupSummary } from './startup-summary.ts';

export type { ServiceConfigInput } from './config.ts';
// The desk's "Test connection" (main/core/chains/settings.ts) asks through here, the embedded path.
export { probeChain, type ProbeAnswer, type ProbeField, type ProbeResult } from './chains/probe.ts';

export interface Service {
  config: ServiceConfig;
  app: FastifyInstance;
  store: Store;
  backends: ReadonlyMap<CoinName, UtxoBackend>;
  /** The ethereum coin's backend, when configured. */
  evm: EvmChain | null;
  log: Logger;
  /** PostgreSQL: which instance writes each index (service/leader); null on SQLite. */
  election: IndexElection | null;
  /** Starts the indexers and listens; resolves to the base URL. */
  listen(): Promise<string>;
  /** Starts the indexers without listening (tests use app.inject). */
  startIndexers(): void;
  close(): Promise<void>;
}

export interface ServiceOptions {
  logger?: Logger;
  /** package.json's version, for the startup line (the CLI passes it). */
  version?: string;
  /** The relay's limits and clock, for tests (expiry without waiting days). */
  relay?: { limits?: Partial<RelayLimits>; now?: () => number };
}

export function storeConfigOf(config: ServiceConfig): StoreConfig {
  const db = config.database;
  if ('sqlite' in db) return { kind: 'sqlite', path: db.sqlite, ...(db.index === undefined ? {} : { indexDir: db.index }), ...(db.cacheMb === undefined ? {} : { cacheMb: db.cacheMb }) };
  return { kind: 'postgres', url: db.postgres, ...(db.schema ? { schema: db.schema } : {}) };
}

export async function createService(input: ServiceConfigInput, options: ServiceOptions = {}): Promise<Service> {
  const config = parseConfig(input);
  const log = options.logger ?? pino({ level: config.log.level, base: { service: 'countersign' } });
  const store = await openStore(storeConfigOf(config));
  // One instance per SQLite file (several share PostgreSQL through service/leader): a second is refused here.
  let claim: InstanceClaim | null = null;
  try {
    if (store.sqlitePath !== undefined) claim = claimSqliteInstance(store.sqlitePath, `${config.listen.host}:${config.listen.port}`);
    return await assemble(config, store, log, claim, options);
  } catch (err) {
    claim?.release();
    await store.close().catch(() => undefined);
    throw err;
  }
}

async function assemble(config: ServiceConfig, store: Store, log: Logger, claim: InstanceClaim | null, options: ServiceOptions): Promise<Service> {
  const backends = new Map<CoinName, UtxoBackend>();
  const blockTimes = new Map<CoinName, BlockTimes>();
  const { ethereum: ethereumConfig, ...utxoCoins } = config.coins;
  for (const [coin, coinConfig] of Object.entries(utxoCoins) as [UtxoCoinName, CoinConfig][]) {
    backends.set(coin, createUtxoBackend(coin, coinConfig, { store, log }));
    const times = blockTimesFor(coinConfig);
    if (times) blockTimes.set(coin, times);
  }

  // What the backends hold is opened now: a LevelDB index another process holds refuses the start
  // in words, before anything listens.
  await Promise.all([...backends.values()].map((b) => b.open?.()));
  const evm: EvmChain | null = ethereumConfig ? createEvmChain(ethereumConfig, { store, log }) : null;
  // Before any indexer starts: on PostgreSQL every index writer waits for its lock.
  const election = indexElection({ database: config.database, retrySeconds: config.leader.retrySeconds, backends: [...backends.values(), evm], log });

  const priceSource = priceSourceFromConfig(config);
  const priceLog = log.child({ component: 'prices' });
  const prices = new PriceCache({ source: priceSource, ttlMs: config.prices.ttlSeconds * 1000, log: priceLog });
  const pastPrices = new PriceHistoryCache({ source: priceSource, ttlMs: config.prices.ttlSeconds * 1000, log: priceLog });
  const app = await buildApp({
    ctx: { utxo: backends, evm, blockTimes, usdRate: (coin) => prices.usdRate(coin), usdRateAt: (coin, at) => pastPrices.usdRateAt(coin, at) },
    store,
    authRequired: config.auth.required,
    operations: config,
    v1Open: config.auth.v1Open,
    authFailures: { max: config.auth.maxFailures, windowSeconds: config.auth.failureWindowSeconds },
    logger: log,
    relay: { limits: { ...DEFAULT_RELAY_LIMITS, messageTtlMs: config.relay.messageTtlDays * 86_400_000, ...options.relay?.limits }, ...(options.relay?.now ? { now: options.relay.now } : {}) },
  });

  /** The startup line, with each own index's height read before its indexer runs. */
  const logStartup = async () => {
    const coins = coinsAtStart(config);
    for (const c of coins) {
      const own = c.index === null ? null : (backends.get(c.coin) ?? evm); // the one own index not a UTXO backend's is ethereum's
      try {
        if (own) c.indexedHeight = await own.indexedHeight();
      } catch {
        // the indexer meets the same failure and says it in its own words
      }
    }
    const { fields, message } = startupSummary(config, options.version ?? null, process.versions.node, coins);
    log.info(fields, message);
  };

  let started = false;
  const startIndexers = () => {
    if (started) return;
    started = true;
    for (const b of backends.values()) b.start();
    evm?.start();
    election?.start();
  };

  return {
    config,
    app,
    store,
    backends,
    evm,
    log,
    election,
    startIndexers,
    async listen() {
      await logStartup();
      startIndexers();
      const address = await app.listen({ host: config.listen.host, port: config.listen.port });
      log.info({ url: address }, 'service listening');
      return address;
    },
    async close() {
      await app.close();
      await Promise.all([...backends.values()].map((b) => b.stop()));
      for (const t of blockTimes.values()) t.close();
      await evm?.stop();
      await election?.stop(); // after the indexers: no write outlives the lock
      await store.close();
      claim?.release(); // last: nothing of this instance writes the file any more
    },
  };
}
