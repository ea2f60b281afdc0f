// A service on a fresh store for HTTP tests (requests through app.inject, no port), with one API key.
import type { Service } from '../service.ts';
import { createService } from '../service.ts';
import type { ServiceConfigInput } from '../config.ts';
import { createApiKey } from '../store/api-keys.ts';
import { parseApiJson } from '../../shared/api/json.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';

export interface TestService {
  service: Service;
  apiKey: string;
  request(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  dispose(): Promise<void>;
}

/** `levelIndex`: the UTXO coins' full index in LevelDB beside the SQLite file (database.index). */
export async function startTestService(
  config: Omit<ServiceConfigInput, 'database'> & { database?: ServiceConfigInput['database'] },
  options: { levelIndex?: boolean } = {},
): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-svc-'));
  const service = await createService(
    { database: { sqlite: join(dir, 'service.sqlite'), ...(options.levelIndex ? { index: join(dir, 'index') } : {}) }, ...config },
    { logger: pino({ level: process.env.COUNTERSIGN_TEST_LOG ?? 'silent' }) },
  );
  const { key } = await createApiKey(service.store, 'test');
  return {
    service,
    apiKey: key,
    async request(method, url, body) {
      const res = await service.app.inject({
        method,
        url,
        headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, json: res.body ? parseApiJson(res.body) : null };
    },
    async dispose() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
