// PostgreSQL shared by many stores: a store opens (and migrates) while others drop their schemas.
// Kysely's look for its migration tables reads every schema by name, so a schema dropped during
// that read failed the open with 'schema "…" does not exist' (seen when test files ran side by side).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runName } from '../test/shared-postgres.ts';
import { openStore } from './database.ts';
import { TEST_POSTGRES_URL } from './test-stores.ts';

let admin: pg.Client;
beforeAll(async () => {
  admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect().catch((err: unknown) => {
    throw new Error(`PostgreSQL is required for this test and is not reachable at ${TEST_POSTGRES_URL}: ${err instanceof Error ? err.message : String(err)}`);
  });
});
afterAll(async () => admin?.end());

describe('opening a PostgreSQL store while other schemas come and go', () => {
  it('migrates every store, whatever schema is dropped meanwhile', async () => {
    let churning = true;
    const churned: string[] = [];
    // Another store's life, over and over: its schema created with a table, then dropped.
    const churn = (async () => {
      while (churning) {
        const other = runName('cs_churn');
        await admin.query(`create schema ${other}`);
        await admin.query(`create table ${other}.t (a int)`);
        await admin.query(`drop schema ${other} cascade`);
        churned.push(other);
      }
    })();
    const schemas: string[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const schema = runName('cs_race');
        schemas.push(schema);
        const store = await openStore({ kind: 'postgres', url: TEST_POSTGRES_URL, schema, poolSize: 2 });
        await store.close();
      }
    } finally {
      churning = false;
      await churn;
      for (const s of schemas) await admin.query(`drop schema if exists ${s} cascade`);
    }
    expect(schemas).toHaveLength(4);
    expect(churned.length).toBeGreaterThan(0);
  });
});
