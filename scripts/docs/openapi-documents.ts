// The committed OpenAPI documents (docs/openapi.json, docs/openapi-v1.json): exactly what a default
// deployment serves at /openapi.json and /v1/openapi.json (API keys required, /v1 keyed too),
// taken from a service with no coins, so the text depends on the code alone.
import { createService } from '../../service/service.ts';

export const OPENAPI_FILES = { v2: 'docs/openapi.json', v1: 'docs/openapi-v1.json' } as const;

/** Each committed file's path (relative to the repository) and its expected text. */
export async function renderOpenApiDocuments(): Promise<Record<string, string>> {
  const service = await createService({ database: { sqlite: ':memory:' }, coins: {}, auth: { required: true }, log: { level: 'silent' } });
  try {
    const text = async (url: string) => {
      const res = await service.app.inject({ method: 'GET', url });
      if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
      return `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`;
    };
    return { [OPENAPI_FILES.v2]: await text('/openapi.json'), [OPENAPI_FILES.v1]: await text('/v1/openapi.json') };
  } finally {
    await service.close();
  }
}
