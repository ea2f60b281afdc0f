// The committed OpenAPI documents are the ones the code generates: a schema change without
// `npm run docs:openapi` fails here.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILES, renderOpenApiDocuments } from './openapi-documents.ts';

const root = new URL('../../', import.meta.url);

describe('docs/openapi*.json', () => {
  it('match what the service serves (run `npm run docs:openapi` after changing a schema)', async () => {
    const expected = await renderOpenApiDocuments();
    expect(Object.keys(expected).sort()).toEqual(Object.values(OPENAPI_FILES).sort());
    for (const [path, text] of Object.entries(expected)) {
      const committed = await readFile(new URL(path, root), 'utf8');
      expect(committed, `${path} is stale: run npm run docs:openapi`).toBe(text);
    }
  });

  it('are v2 and v1 documents of OpenAPI 3.1', async () => {
    const v2 = JSON.parse(await readFile(new URL(OPENAPI_FILES.v2, root), 'utf8')) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
    const v1 = JSON.parse(await readFile(new URL(OPENAPI_FILES.v1, root), 'utf8')) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
    expect([v2.openapi, v2.info.version, v1.openapi, v1.info.version]).toEqual(['3.1.0', '2', '3.1.0', '1']);
    expect(Object.keys(v2.paths)).toContain('/multi_sig/create/{coin}');
    expect(Object.keys(v1.paths)).toContain('/address/utxo/{coin}/{addresses}');
  });
});
