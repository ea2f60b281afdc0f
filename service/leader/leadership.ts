// Which instance writes each index. SQLite: this process, always (one process owns the file).
// PostgreSQL: several instances may share the tables, so each index gets one writer, elected by an
// advisory lock (advisory-lock.ts); the others read the shared tables and stand by.
import type { Logger } from 'pino';
import { AdvisoryLockElection } from './advisory-lock.ts';

/** A backend that writes an index of its own (node-rpc, evm-rpc); Blockbook and Electrum do not. */
export interface IndexWriter {
  /** The index's chain key: one writer per key across instances. */
  readonly indexName: string;
  /** Start (true) or stop (false) writing the index; reads go on either way. */
  setLeading(leading: boolean): void;
}

export function isIndexWriter(backend: unknown): backend is IndexWriter {
  return typeof backend === 'object' && backend !== null && 'setLeading' in backend && 'indexName' in backend && typeof backend.indexName === 'string';
}

export interface IndexElection {
  start(): void;
  stop(): Promise<void>;
  leads(indexName: string): boolean;
  /** The lock session's backend pid, null while it has none. */
  readonly sessionPid: number | null;
  /** Attempts to take the locks so far. */
  readonly attempts: number;
}

export interface ElectionSetup {
  database: { sqlite: string } | { postgres: string; schema?: string | undefined };
  retrySeconds: number;
  backends: readonly unknown[];
  log: Logger;
}

/**
 * Null on SQLite (every backend leads). On PostgreSQL every index writer starts as a follower and
 * leads only once its lock is taken; `start()` begins the attempts.
 */
export function indexElection(setup: ElectionSetup): IndexElection | null {
  if (!('postgres' in setup.database)) return null;
  const writers = new Map(setup.backends.filter(isIndexWriter).map((w) => [w.indexName, w]));
  if (writers.size === 0) return null;
  for (const w of writers.values()) w.setLeading(false);
  return new AdvisoryLockElection({
    url: setup.database.postgres,
    scope: setup.database.schema ?? 'public',
    names: [...writers.keys()],
    retryMs: setup.retrySeconds * 1000,
    log: setup.log.child({ component: 'leader' }),
    onChange: (name, leading) => writers.get(name)?.setLeading(leading),
  });
}
