// createService(): the whole service as one object, for the CLI and for embedding in the desktop
// app (DESIGN.md). Listening, and closing in order, live here.
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { chainParams, type CoinName, type UtxoCoinName } from '../shared/coins/coin-table.ts';
import type { UtxoBackend } from './chains/backend.ts';
import { NodeRpcBackend } from './chains/utxo/node-rpc-backend.ts';
import { EvmBackend } from './chains/evm/evm-backend.ts';
import { parseConfig, type CoinConfig, type ServiceConfig, type ServiceConfigInput } from './config.ts';
import { buildApp } from './http/app.ts';
import { openStore, type Store, type StoreConfig } from './store/database.ts';

export type { ServiceConfigInput } from './config.ts';

export interface Service {
  config: ServiceConfig;
  app: FastifyInstance;
  store: Store;
  backends: ReadonlyMap<CoinName, UtxoBackend>;
  /** The ethereum coin's backend, when configured. */
  evm: EvmBackend | null;
  log: Logger;
  /** Starts the indexers and listens; resolves to the base URL. */
  listen(): Promise<string>;
  /** Starts the indexers without listening (tests use app.inject). */
  startIndexers(): void;
  close(): Promise<void>;
}

export interface ServiceOptions {
  logger?: Logger;
}

export function storeConfigOf(config: ServiceConfig): StoreConfig {
  const db = config.database;
  return 'sqlite' in db ? { kind: 'sqlite', path: db.sqlite } : { kind: 'postgres', url: db.postgres, ...(db.schema ? { schema: db.schema } : {}) };
}

export async function createService(input: ServiceConfigInput, options: ServiceOptions = {}): Promise<Service> {
  const config = parseConfig(input);
  const log = options.logger ?? pino({ level: config.log.level, base: { service: 'countersign' } });
  const store = await openStore(storeConfigOf(config));

  const backends = new Map<CoinName, UtxoBackend>();
  const usdRates = new Map<CoinName, number>();
  const { ethereum: ethereumConfig, ...utxoCoins } = config.coins;
  for (const [coin, coinConfig] of Object.entries(utxoCoins) as [UtxoCoinName, CoinConfig][]) {
    const { backend } = coinConfig;
    backends.set(
      coin,
      new NodeRpcBackend({
        params: chainParams(coin, coinConfig.network),
        store,
        rpc: {
          url: backend.url,
          timeoutMs: backend.timeoutMs,
          ...(backend.username !== undefined ? { username: backend.username } : {}),
          ...(backend.password !== undefined ? { password: backend.password } : {}),
          ...(backend.cookieFile !== undefined ? { cookieFile: backend.cookieFile } : {}),
        },
        log: log.child({ coin }),
        pollIntervalMs: backend.pollIntervalMs,
        fallbackFeePerKb: BigInt(backend.fallbackFeePerKb),
        minFeePerKb: BigInt(backend.minFeePerKb),
      }),
    );
    if (coinConfig.usdRate !== undefined) usdRates.set(coin, coinConfig.usdRate);
  }

  let evm: EvmBackend | null = null;
  if (ethereumConfig) {
    const { backend } = ethereumConfig;
    evm = new EvmBackend({
      network: ethereumConfig.network,
      url: backend.url,
      store,
      log: log.child({ coin: 'ethereum' }),
      startHeight: backend.startHeight ?? null,
      pollIntervalMs: backend.pollIntervalMs,
      timeoutMs: backend.timeoutMs,
    });
    if (ethereumConfig.usdRate !== undefined) usdRates.set('ethereum', ethereumConfig.usdRate);
  }

  const app = await buildApp({
    ctx: { utxo: backends, evm, usdRate: (coin) => usdRates.get(coin) ?? 0 },
    store,
    authRequired: config.auth.required,
    logger: log,
  });

  let started = false;
  const startIndexers = () => {
    if (started) return;
    started = true;
    for (const b of backends.values()) b.start();
    evm?.start();
  };

  return {
    config,
    app,
    store,
    backends,
    evm,
    log,
    startIndexers,
    async listen() {
      startIndexers();
      const address = await app.listen({ host: config.listen.host, port: config.listen.port });
      log.info({ url: address }, 'service listening');
      return address;
    },
    async close() {
      await app.close();
      await Promise.all([...backends.values()].map((b) => b.stop()));
      await evm?.stop();
      await store.close();
    },
  };
}
