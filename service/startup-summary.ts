// The one line a service logs as it starts, before its indexers run: what it is (version, Node),
// what it serves (each coin's network, backend and index mode) and where its data is, with the
// height each own index resumes after. An operator reads a restart's whole setting in one line.
import type { CoinName } from '../shared/coins/coin-table.ts';
import type { ServiceConfig } from './config.ts';
import { redactUrl } from './redact.ts';

export interface CoinAtStart {
  coin: CoinName;
  network: string;
  backend: string;
  /** The service's own index: 'full' or 'watch' (node-rpc), 'transfers' (evm-rpc); null: the backend's index. */
  index: 'full' | 'watch' | 'transfers' | null;
  /** The own index's height at start (null: empty); absent for a backend that keeps no index here. */
  indexedHeight?: number | null;
}

export interface StartupSummary {
  version: string | null;
  node: string;
  store: { kind: 'sqlite'; path: string; index?: string } | { kind: 'postgres'; url: string; schema?: string };
  coins: CoinAtStart[];
}

/** Each configured coin with the index mode it runs in (heights filled in by the caller). */
export function coinsAtStart(config: ServiceConfig): CoinAtStart[] {
  return (Object.entries(config.coins) as [CoinName, ServiceConfig['coins'][CoinName]][]).flatMap(([coin, c]) => {
    if (!c) return [];
    const type = c.backend.type;
    const index = type === 'node-rpc' ? ('index' in c.backend ? c.backend.index : 'full') : type === 'evm-rpc' ? 'transfers' : null;
    return [{ coin, network: c.network, backend: type, index }];
  });
}

export function startupSummary(config: ServiceConfig, version: string | null, nodeVersion: string, coins: CoinAtStart[]): { fields: StartupSummary; message: string } {
  const db = config.database;
  const store: StartupSummary['store'] =
    'sqlite' in db
      ? { kind: 'sqlite', path: db.sqlite, ...(db.index === undefined ? {} : { index: db.index }) }
      : { kind: 'postgres', url: redactUrl(db.postgres), ...(db.schema ? { schema: db.schema } : {}) };
  const where = store.kind === 'sqlite' ? `SQLite ${store.path}${store.index ? `, LevelDB index in ${store.index}` : ''}` : `PostgreSQL ${store.url}`;
  const said = coins.map((c) => {
    const index = c.index === null ? `${c.backend}'s index` : `${c.index} index`;
    const from = c.indexedHeight === undefined ? '' : c.indexedHeight === null ? ', from an empty index' : `, resuming after block ${c.indexedHeight}`;
    return `${c.coin} ${c.network} (${c.backend}, ${index}${from})`;
  });
  const message = `countersign ${version ?? '(version unknown)'} starting on Node ${nodeVersion}: ${said.length > 0 ? said.join('; ') : 'no coins configured'}; store: ${where}`;
  return { fields: { version, node: nodeVersion, store, coins }, message };
}
