// The OpenAPI documents and the docs page without any chain: open without a key, OpenAPI 3.1,
// amounts as integers, extensions marked, v1's security following auth.v1Open, no CDN.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service } from '../service.ts';

type Json = Record<string, unknown>;
let keyed: Service;
let open: Service;

beforeAll(async () => {
  keyed = await createService({ database: { sqlite: ':memory:' }, coins: {}, auth: { required: true }, log: { level: 'silent' } });
  open = await createService({ database: { sqlite: ':memory:' }, coins: {}, auth: { required: true, v1Open: true }, log: { level: 'silent' } });
});
afterAll(async () => {
  await keyed?.close();
  await open?.close();
});

async function get(s: Service, url: string) {
  const res = await s.app.inject({ method: 'GET', url });
  return { status: res.statusCode, type: String(res.headers['content-type']), body: res.body };
}
const doc = async (s: Service, url: string) => JSON.parse((await get(s, url)).body) as Json & { paths: Record<string, Record<string, Json>>; security: unknown[] };

describe('OpenAPI documents', () => {
  it('are served without an API key, as OpenAPI 3.1 with an honest description', async () => {
    for (const url of ['/openapi.json', '/v1/openapi.json']) {
      const res = await get(keyed, url);
      expect(res.status).toBe(200);
      expect(res.type).toMatch(/application\/json/);
      const d = JSON.parse(res.body) as { openapi: string; info: { description: string } };
      expect(d.openapi).toBe('3.1.0');
      expect(d.info.description).toMatch(/never receives a private key|earlier revision/);
    }
  });

  it('document amounts as exact integers and every error as {message}', async () => {
    const d = await doc(keyed, '/openapi.json');
    const balance = d.paths['/address/balance/{coin}/{address}']!['get']!['responses'] as Record<string, { content: Record<string, { schema: Json & { properties: Record<string, Json> } }> }>;
    const schema = balance['200']!.content['application/json']!.schema;
    expect(schema.properties['balance']).toMatchObject({ type: 'integer' });
    expect(schema.properties['unconfirmed_balance']).toMatchObject({ type: 'integer' });
    expect(schema.properties['usd_balance']).toMatchObject({ type: 'number' });
    expect(balance['default']!.content['application/json']!.schema).toMatchObject({ properties: { message: { type: 'string' } }, required: ['message'] });
    expect(String((d['info'] as Json)['description'])).toMatch(/2\^53/);
  });

  it('mark extensions (operations and the history paging parameters)', async () => {
    const d = await doc(keyed, '/openapi.json');
    for (const [path, method] of [['/status', 'get'], ['/transaction/raw/{coin}/{txid}', 'get'], ['/erc20/token/{contract}', 'get'], ['/healthz', 'get']] as const) {
      const op = d.paths[path]![method]!;
      expect(op['x-countersign-extension']).toBe(true);
      expect(String(op['description'])).toMatch(/^Extension beyond the spec/);
    }
    expect(d.paths['/address/balance/{coin}/{address}']!['get']!['x-countersign-extension']).toBeUndefined();
    const params = d.paths['/address/history/{coin}/{addresses}']!['get']!['parameters'] as { name: string; description?: string; schema: Json }[];
    for (const name of ['limit', 'offset']) {
      const p = params.find((x) => x.name === name)!;
      expect(p.description).toMatch(/^Extension beyond the spec/);
      expect(p.schema['x-countersign-extension']).toBe(true);
    }
  });

  it('v1 has its own forms and no multi-signature or key conversion', async () => {
    const v1 = await doc(keyed, '/v1/openapi.json');
    expect(Object.keys(v1.paths)).toContain('/address/utxo/{coin}/{addresses}');
    expect(Object.keys(v1.paths)).not.toContain('/address/utxos/{coin}/{addresses}');
    expect(Object.keys(v1.paths).filter((p) => p.startsWith('/multi_sig') || p === '/address/to_network_addresses')).toEqual([]);
    expect(v1['servers']).toEqual([{ url: '/v1' }]);
    const utxo = v1.paths['/address/utxo/{coin}/{addresses}']!['get']!['responses'] as Record<string, { content: Record<string, { schema: Json }> }>;
    expect(utxo['200']!.content['application/json']!.schema['type']).toBe('array');
    const create = v1.paths['/transaction/create/{coin}']!['post']!;
    const fee = (create['parameters'] as { name: string; schema: Json }[]).find((p) => p.name === 'fee_amount')!;
    expect(fee.schema['type']).toBe('string');
    const created = ((create['responses'] as Json)['200'] as { content: Record<string, { schema: { properties: Json } }> }).content['application/json']!.schema;
    expect(Object.keys(created.properties).sort()).toEqual(['hashes', 'tx']);
  });

  it('v1 asks for a key unless the operator opened it (auth.v1Open)', async () => {
    expect((await doc(keyed, '/v1/openapi.json')).security).toEqual([{ apiKey: [] }]);
    expect((await doc(open, '/v1/openapi.json')).security).toEqual([]);
    const url = '/v1/address/balance/litecoin/LM2WMpR1Rp6j3Sa59cMXMs1SPzj9eXpGc1';
    expect((await get(keyed, url)).status).toBe(401);
    // open: past auth, then 404 because this deployment serves no litecoin
    expect(await get(open, url)).toMatchObject({ status: 404 });
    expect((await get(open, '/address/balance/litecoin/LM2WMpR1Rp6j3Sa59cMXMs1SPzj9eXpGc1')).status).toBe(401);
  });
});

describe('docs page', () => {
  it('serves swagger-ui from the installed package, without a key and without a CDN', async () => {
    const page = await get(keyed, '/docs/');
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/text\/html/);
    expect(page.body).not.toMatch(/src="https?:|href="https?:/);
    const init = await get(keyed, '/docs/static/swagger-initializer.js');
    expect(init.status).toBe(200);
    expect(init.body).toContain('/openapi.json');
    expect(init.body).toContain('/v1/openapi.json');
    const bundle = await get(keyed, '/docs/static/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.body.length).toBeGreaterThan(100_000);
  });
});
