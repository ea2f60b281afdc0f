// PostgreSQL as several service instances share it (leader election, scale-out): an admin session
// the test inspects locks with, a schema of this run's own that the instances share and that is
// dropped at the end, and instances on it indexing a regtest node. Missing PostgreSQL fails, naming it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { nodeRpcBackendConfig, type RegtestNode } from '../../dev/chains/litecoind.ts';
import type { ServiceConfigInput } from '../config.ts';
import { createService, type Service } from '../service.ts';
import { TEST_POSTGRES_URL } from '../store/test-stores.ts';

/** A name of this run's own (schema, lock scope): parallel test files never meet. */
export const runName = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;

/** A session of its own on the test PostgreSQL; `purpose` names the test in the error when it is not reachable. */
export async function adminSession(purpose: string): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is required for ${purpose} and is not reachable at ${TEST_POSTGRES_URL} (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  return admin;
}

export interface SharedSchema {
  schema: string;
  admin: pg.Client;
  /** A service instance on the shared schema indexing litecoin on `node` (regtest), the full index unless `index` says 'watch'. */
  instance(node: RegtestNode, config?: Pick<ServiceConfigInput, 'leader' | 'readiness'>, index?: 'full' | 'watch'): Promise<Service>;
  /** Drops the schema and ends the admin session (close the instances first). */
  dispose(): Promise<void>;
}

export async function sharedSchema(prefix: string, purpose: string): Promise<SharedSchema> {
  const schema = runName(prefix);
  const admin = await adminSession(purpose);
  const logger = pino({ level: process.env.COUNTERSIGN_TEST_LOG ?? 'silent' });
  return {
    schema,
    admin,
    instance: (node, config = {}, index = 'full') =>
      createService({ database: { postgres: TEST_POSTGRES_URL, schema }, coins: { litecoin: { network: 'regtest', backend: { ...nodeRpcBackendConfig(node, 100), index } } }, ...config }, { logger }),
    dispose: async () => {
      await admin.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
      await admin.end();
    },
  };
}
