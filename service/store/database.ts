// Opens the service's store: SQLite (better-sqlite3) by default, PostgreSQL by URL.
import BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql, type SqliteDatabase, type SqliteStatement } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.ts';
import { Lru } from '../lru.ts';
import { redactUrl } from '../redact.ts';
import type { Database } from './schema.ts';
import { type IndexCaches, indexCaches } from '../index/cache-budget.ts';

/**
 * `indexDir` (SQLite only): the UTXO chains' full address index goes there, in LevelDB (one
 * folder per chain, service/index/level-index.ts), instead of into this store's tables; the mempool
 * and everything else stay in the file.
 */
export type StoreConfig =
  | { kind: 'sqlite'; path: string; indexDir?: string; cacheMb?: number }
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

/** Which database a configuration names, in words safe to print (no password). */
export function describeStore(config: StoreConfig): string {
  if (config.kind === 'sqlite') return `the SQLite file ${config.path === ':memory:' ? config.path : resolve(config.path)}`;
  return `PostgreSQL ${redactUrl(config.url)}${config.schema ? `, schema ${config.schema}` : ''}`;
}

export interface Store {
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  /**
   * The SQLite handle under `db`, for the index's bulk writes: one prepared single-row statement
   * per row is twice as fast in better-sqlite3 as multi-row inserts built by Kysely. Used only
   * inside a Kysely transaction, which holds the same connection.
   */
  sqlite?: BetterSqlite3.Database;
  /** The file of a file-backed SQLite store (the UTXO index's writer thread opens its own connection). */
  sqlitePath?: string;
  /** The pool under `db` on PostgreSQL, for the index's bulk writes (service/index/pg-apply.ts). */
  pgPool?: pg.Pool;
  /** The folder of the LevelDB full index (StoreConfig.indexDir), when there is one. */
  levelIndexDir?: string;
  /** What the index may keep in memory (index/cache-budget.ts). */
  indexCaches: IndexCaches;
  /** Runs `closer` when the store closes, before its connections (the index's writer thread). */
  onClose(closer: () => Promise<void>): void;
  close(): Promise<void>;
}

/** `migrateUpTo`: for tests of a migration, a store left at an older migration. */
export async function openStore(config: StoreConfig, migrateUpTo?: string): Promise<Store> {
  const opened = config.kind === 'sqlite' ? openSqlite(config.path) : await openPostgres(config);
  const store: Store = {
    ...opened,
    ...(config.kind === 'sqlite' && config.indexDir !== undefined ? { levelIndexDir: config.indexDir } : {}),
    indexCaches: indexCaches(config.kind === 'sqlite' ? config.cacheMb : undefined),
  };
  try {
    await migrateToLatest(store.db as unknown as Kysely<unknown>, store.dialect, config.kind === 'postgres' ? config.schema : undefined, migrateUpTo);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

function openSqlite(path: string): Omit<Store, 'indexCaches'> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  database.pragma('cache_size = -16384'); // 16 MiB for reads; the writer thread has its own
  // Amounts must stay exact beyond 2^53: integers come back as bigint.
  database.defaultSafeIntegers(true);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  const closers: (() => Promise<void>)[] = [];
  return {
    db,
    dialect: 'sqlite',
    sqlite: database,
    ...(path === ':memory:' ? {} : { sqlitePath: path }),
    onClose: (closer) => void closers.push(closer),
    close: async () => {
      for (const closer of closers.splice(0)) await closer();
      await db.destroy();
    },
  };
}

// Kysely prepares every query anew; better-sqlite3 statements are reusable, and re-preparing was
// the largest single cost of a balance request. Queries are built with fixed shapes (see
// utxo-index.ts), so a small cache keyed by SQL text serves nearly all of them.
const STATEMENT_CACHE = 512;

function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Lru<string, BetterSqlite3.Statement>(STATEMENT_CACHE);
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (!statement) {
        statement = database.prepare(sqlText);
        cache.set(sqlText, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}

async function openPostgres(config: { url: string; schema?: string; poolSize?: number }): Promise<Omit<Store, 'indexCaches'>> {
  const schema = config.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`postgres schema name "${schema}" must be lower-case letters, digits and underscores`);
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    else await sql`select 1`.execute(db);
  } catch (err) {
    await db.destroy();
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot reach PostgreSQL at ${redactUrl(config.url)}: ${reason}`, { cause: err });
  }
  const closers: (() => Promise<void>)[] = [];
  return {
    db,
    dialect: 'postgres',
    pgPool: pool,
    onClose: (closer) => void closers.push(closer),
    close: async () => {
      for (const closer of closers.splice(0)) await closer();
      await db.destroy();
    },
  };
}

/** Normalise an integer column that may be number, bigint or string. */
export function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' || typeof value === 'string') return BigInt(value);
  if (value === null || value === undefined) return 0n;
  throw new TypeError(`not an integer: ${String(value)}`);
}

export function toNumber(value: unknown): number {
  return Number(toBigInt(value));
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}
