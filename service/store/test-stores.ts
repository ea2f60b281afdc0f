// Opens a fresh store of each kind for tests: a SQLite file in its own temp dir, or a PostgreSQL
// schema of its own (so parallel test files never meet). A missing PostgreSQL fails the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openStore, type Store, type StoreConfig } from './database.ts';

export const TEST_POSTGRES_URL = process.env.COUNTERSIGN_TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** 'level': a SQLite store whose UTXO full index is in LevelDB (StoreConfig.indexDir). */
export type SqlStoreKind = 'sqlite' | 'postgres';
export type StoreKind = SqlStoreKind | 'level';
export const STORE_KINDS: readonly SqlStoreKind[] = ['sqlite', 'postgres'];
/** The stores the full address index can be written into. */
export const INDEX_STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres', 'level'];

export interface TestStore {
  store: Store;
  /** How to open the same database from another process. */
  config: StoreConfig;
  /** Re-open the same database (a restart). */
  reopen(): Promise<Store>;
  dispose(): Promise<void>;
}

/** `migrateUpTo`: the first store is left at that migration; `reopen` migrates to the latest. */
export async function openTestStore(kind: StoreKind, migrateUpTo?: string): Promise<TestStore> {
  if (kind !== 'postgres') {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-store-'));
    const path = join(dir, 'service.sqlite');
    const config: StoreConfig = kind === 'level' ? { kind: 'sqlite', path, indexDir: join(dir, 'index') } : { kind: 'sqlite', path };
    const opened: Store[] = [await openStore(config, migrateUpTo)];
    return {
      store: opened[0]!,
      config,
      reopen: async () => {
        // LevelDB is one process's at a time: a restart closes what ran before
        if (kind === 'level') for (const s of opened) await s.close().catch(() => undefined);
        const s = await openStore(config);
        opened.push(s);
        return s;
      },
      dispose: async () => {
        for (const s of opened) await s.close().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `cs_test_${randomBytes(6).toString('hex')}`;
  let first: Store;
  try {
    first = await openStore({ kind: 'postgres', url: TEST_POSTGRES_URL, schema, poolSize: 4 }, migrateUpTo);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `PostgreSQL is required for the storage tests and is not usable (${reason}). Start it with ` +
        '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or set COUNTERSIGN_TEST_PG_URL.',
      { cause: err },
    );
  }
  const opened: Store[] = [first];
  return {
    store: first,
    config: { kind: 'postgres', url: TEST_POSTGRES_URL, schema },
    reopen: async () => {
      const s = await openStore({ kind: 'postgres', url: TEST_POSTGRES_URL, schema, poolSize: 4 });
      opened.push(s);
      return s;
    },
    dispose: async () => {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(first.db).catch(() => undefined);
      for (const s of opened) await s.close().catch(() => undefined);
    },
  };
}
