// Contract tests generated from the OpenAPI documents (v2 at /openapi.json, v1 at /v1/openapi.json):
// every documented operation is called for real on a service over litecoind -regtest (and hardhat
// for Ether/ERC20), and its answer is validated with ajv against the document's response schema.
// An operation without an example here fails the test, so a new route cannot go undocumented-untested.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SigningKey, Wallet, computeAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from '../../shared/coins/address.ts';
import { assembleSigned } from '../../shared/coins/assemble.ts';
import { bytesToHex, hexToBytes } from '../../shared/coins/bytes.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { multisigRedeemScript } from '../../shared/coins/script.ts';
import { decodeTxHex, encodeTx } from '../../shared/coins/tx.ts';
import { createService } from '../service.ts';
import type { ServiceConfigInput } from '../config.ts';
import { evmRpcBackendConfig, fundEther, mintedToken, startHardhat, type HardhatNode } from '../test/hardhat-node.ts';
import { testKey, type TestKey } from '../test/keys.ts';
import { startRegtestService, type RegtestService } from '../test/regtest-service.ts';

type Json = Record<string, unknown>;
interface Operation {
  revision: 'v2' | 'v1';
  method: string;
  path: string;
  responses: Record<string, { content?: Record<string, { schema: Json }> }>;
}
interface OpenApiDocument {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Omit<Operation, 'revision' | 'method' | 'path'>>>;
  components?: Json;
}

interface Example {
  path?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: unknown;
  /** Status the example expects (default 200); its schema must be documented. */
  status?: number;
}

// What both revisions' documents are, from a service built the way the tested one is.
const AUTH = { required: true, v1Open: true };
async function documents(app: { inject(o: { method: 'GET'; url: string }): Promise<{ statusCode: number; body: string }> }) {
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    if (res.statusCode !== 200) throw new Error(`${url} -> ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as OpenApiDocument;
  };
  return { v2: await get('/openapi.json'), v1: await get('/v1/openapi.json') };
}
const probe = await createService({ database: { sqlite: ':memory:' }, coins: {}, auth: AUTH, log: { level: 'silent' } });
const docs = await documents(probe.app);
await probe.close();

const operations: Operation[] = (['v2', 'v1'] as const).flatMap((revision) =>
  Object.entries(docs[revision].paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ revision, method: method.toUpperCase(), path, responses: op.responses }))),
);
const keyOf = (op: Pick<Operation, 'revision' | 'method' | 'path'>) => `${op.revision} ${op.method} ${op.path}`;

// ---- the chain state the examples use ---------------------------------------------------------

const params = chainParams('litecoin', 'regtest');
const COIN = 100_000_000n;
const keys = {
  watch: testKey('contract watch'),
  v2pay: testKey('contract v2 pay'),
  v2raw: testKey('contract v2 raw'),
  v1pay: testKey('contract v1 pay'),
  v1raw: testKey('contract v1 raw'),
  bob: testKey('contract bob'),
};
const cosigners = [testKey('contract c1'), testKey('contract c2'), testKey('contract c3')];
const allKeys: TestKey[] = [...Object.values(keys), ...cosigners];
const addr = (k: TestKey) => p2pkhAddressOfPublicKey(params, k.publicKey);
const redeem = multisigRedeemScript(2, cosigners.map((k) => k.publicKey));
const msAddr = p2shAddressOfRedeemScript(params, redeem);
const keyFor = (hex: string) => allKeys.find((k) => k.publicKeyHex === hex) ?? (() => { throw new Error(`no test key ${hex}`); })();
// BIP32 test vector 1, m/0'
const XPUB = 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw';

const ether = new SigningKey(Wallet.createRandom().privateKey);
const A = computeAddress(ether);
const B = computeAddress(new SigningKey(Wallet.createRandom().privateKey));

let hardhat: HardhatNode;
let t: RegtestService;
let token: string;
let watchFunding: string;

interface Answer {
  status: number;
  json: unknown;
}

function urlOf(revision: 'v2' | 'v1', path: string, example: Example): string {
  const server = docs[revision].servers[0]!.url.replace(/\/$/, '');
  const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = example.path?.[name];
    if (value === undefined) throw new Error(`example for ${path} lacks path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(example.query ?? {})) for (const one of Array.isArray(v) ? v : [v]) query.append(k, one);
  const qs = query.toString();
  return `${server}${filled}${qs ? `?${qs}` : ''}`;
}

/** v2 carries the API key; v1 goes without one (the operator allowed it: auth.v1Open). */
async function call(revision: 'v2' | 'v1', method: string, url: string, body?: unknown, withKey = revision === 'v2'): Promise<Answer> {
  const res = await t.service.app.inject({
    method: method as 'GET' | 'POST',
    url,
    headers: { ...(withKey ? { 'x-api-key': t.apiKey } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, json: res.body ? (JSON.parse(res.body) as unknown) : null };
}

async function ok<T>(revision: 'v2' | 'v1', method: string, path: string, example: Example): Promise<T> {
  const res = await call(revision, method, urlOf(revision, path, example), example.body);
  if (res.status !== 200) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as T;
}

interface Created {
  tx: string;
  hashes: { input_index: number; public_key: string; hash_to_sign: string }[];
}
const signed = (c: Created, only?: (pub: string) => boolean) =>
  c.hashes.filter((h) => (only ? only(h.public_key) : true)).map((h) => ({ ...h, signature: keyFor(h.public_key).sign(h.hash_to_sign) }));

/** A fully signed raw transaction, built by the service (create) and signed and assembled here. */
async function rawPayment(revision: 'v2' | 'v1', payer: TestKey): Promise<string> {
  const created = await ok<Created>(revision, 'POST', '/transaction/create/{coin}', { path: { coin: 'litecoin' }, query: { from: payer.publicKeyHex, to: addr(keys.bob), amount: String(COIN / 10n) } });
  const tx = assembleSigned(
    params,
    decodeTxHex(created.tx, 'tx', params),
    signed(created).map((s) => ({ inputIndex: s.input_index, publicKey: hexToBytes(s.public_key), signature: hexToBytes(s.signature) })),
  );
  return bytesToHex(encodeTx(tx));
}

async function etherSignature(revision: 'v2' | 'v1', kind: 'ethereum' | 'erc20', query: Record<string, string>): Promise<Record<string, string>> {
  const { hash_to_sign } = await ok<{ hash_to_sign: string }>(revision, 'POST', `/${kind}/create/`, { query });
  const sig = ether.sign(hash_to_sign);
  return { ...query, r: sig.r, s: sig.s, v: String(sig.v) };
}

const GWEI_TOKEN = (n: bigint) => String(n * 1_000_000_000n);

// One example per documented operation. Keys are "<revision> <METHOD> <document path>".
const examples: Record<string, () => Promise<Example>> = {
  'v2 GET /address/balance/{coin}/{address}': async () => ({ path: { coin: 'litecoin', address: addr(keys.watch) } }),
  'v2 GET /address/balances/{coin}/{addresses}': async () => ({ path: { coin: 'litecoin', addresses: `${addr(keys.watch)},${msAddr}` } }),
  'v2 GET /address/history/{coin}/{addresses}': async () => ({ path: { coin: 'litecoin', addresses: `${addr(keys.watch)},${msAddr}` }, query: { limit: '10', offset: '0' } }),
  'v2 GET /address/utxos/{coin}/{addresses}': async () => ({ path: { coin: 'litecoin', addresses: `${addr(keys.watch)},${msAddr}` } }),
  'v2 POST /address/to_network_addresses': async () => ({ body: { number_of_required_signatures: 2, master_keys: [{ xpub: XPUB, path: 'm/0' }, { xpub: XPUB, path: 'm/1' }] } }),
  'v2 POST /transaction/create/{coin}': async () => ({ path: { coin: 'litecoin' }, query: { from: keys.v2pay.publicKeyHex, to: addr(keys.bob), amount: String(COIN / 10n), miners_fee: '5000' } }),
  'v2 POST /transaction/sign_and_send/{coin}': async () => {
    const created = await ok<Created>('v2', 'POST', '/transaction/create/{coin}', { path: { coin: 'litecoin' }, query: { from: keys.v2pay.publicKeyHex, to: addr(keys.bob), amount: String(COIN / 10n) } });
    return { path: { coin: 'litecoin' }, body: { tx: created.tx, signatures: signed(created) } };
  },
  'v2 POST /transaction/send_raw/{coin}': async () => ({ path: { coin: 'litecoin' }, query: { rawtx: await rawPayment('v2', keys.v2raw) } }),
  'v2 GET /transaction/raw/{coin}/{txid}': async () => ({ path: { coin: 'litecoin', txid: watchFunding } }),
  'v2 POST /multi_sig/create/{coin}': async () => ({
    path: { coin: 'litecoin' },
    body: { number_of_required_signatures: 2, amount: Number(COIN / 10n), to: addr(keys.bob), redeem_scripts: [{ public_keys: cosigners.map((k) => k.publicKeyHex) }] },
  }),
  'v2 POST /multi_sig/sign_and_send/{coin}': async () => {
    const body = { number_of_required_signatures: 2, amount: Number(COIN / 10n), to: addr(keys.bob), redeem_scripts: [{ public_keys: cosigners.map((k) => k.publicKeyHex) }] };
    const created = await ok<Created>('v2', 'POST', '/multi_sig/create/{coin}', { path: { coin: 'litecoin' }, body });
    const firstTwo = new Set(cosigners.slice(0, 2).map((k) => k.publicKeyHex));
    return { path: { coin: 'litecoin' }, body: { tx: created.tx, signatures: signed(created, (pub) => firstTwo.has(pub)) } };
  },
  'v2 POST /ethereum/create/': async () => ({ query: { from: A, to: B, amount: '1000' } }),
  'v2 POST /ethereum/sign_and_send/': async () => ({ query: await etherSignature('v2', 'ethereum', { from: A, to: B, amount: '2000' }) }),
  'v2 POST /erc20/create/': async () => ({ query: { from: A, to: B, amount: GWEI_TOKEN(1n), contract_id: token, decimal_places: '18' } }),
  'v2 POST /erc20/sign_and_send/': async () => ({ query: await etherSignature('v2', 'erc20', { from: A, to: B, amount: GWEI_TOKEN(2n), contract_id: token, decimal_places: '18' }) }),
  'v2 GET /erc20/token/{contract}': async () => ({ path: { contract: token } }),
  'v2 GET /fee_estimates/{coin}': async () => ({ path: { coin: 'litecoin' } }),
  'v2 GET /blocks/{coin}/height_at/{unix_time}': async () => ({ path: { coin: 'litecoin', unix_time: '1700000000' } }),
  'v2 GET /prices/history/{coin}': async () => ({ path: { coin: 'litecoin' }, query: { at: '1700000000,1700086400' } }),
  // This service runs litecoin on the full index: the watch endpoints answer that there is nothing to register
  // (their 200s are proven in watch-api.regtest.test.ts on a watch-mode coin).
  'v2 PUT /watch/{coin}/{wallet_id}': async () => ({ path: { coin: 'litecoin', wallet_id: 'vault' }, body: { descriptors: [`wsh(sortedmulti(2,${XPUB}/0/*,${XPUB}/1/*))`], birthday_height: 1, gap_limit: 20 }, status: 409 }),
  'v2 GET /watch/{coin}/{wallet_id}': async () => ({ path: { coin: 'litecoin', wallet_id: 'vault' }, status: 409 }),
  'v2 POST /watch/{coin}/{wallet_id}/rescan': async () => ({ path: { coin: 'litecoin', wallet_id: 'vault' }, body: { from_height: 1 }, status: 409 }),
  'v2 POST /watch/{coin}/{wallet_id}/window': async () => ({ path: { coin: 'litecoin', wallet_id: 'vault' }, body: { shown: { receive: 25, change: -1 } }, status: 409 }),
  // The relay (docs/api-decisions.md §13): every call is signed by a device key; unsigned, or aimed at
  // a room or invitation that is not there, each is refused as documented (relay.test.ts runs whole exchanges).
  'v2 POST /relay/rooms': async () => ({ body: { sign_key: 'aa'.repeat(32), box_key: 'bb'.repeat(32) }, status: 401 }),
  'v2 GET /relay/rooms/{room}': async () => ({ path: { room: '0'.repeat(32) }, status: 404 }),
  'v2 POST /relay/rooms/{room}/invitations': async () => ({ path: { room: '0'.repeat(32) }, body: { id: '0'.repeat(64), sealed: 'AAAA', expires_in_hours: 72 }, status: 404 }),
  'v2 GET /relay/invitations/{id}': async () => ({ path: { id: '0'.repeat(64) }, status: 404 }),
  'v2 POST /relay/invitations/{id}/join': async () => ({ path: { id: '0'.repeat(64) }, body: { sign_key: 'aa'.repeat(32), box_key: 'bb'.repeat(32) }, status: 401 }),
  'v2 DELETE /relay/rooms/{room}/members/{device}': async () => ({ path: { room: '0'.repeat(32), device: '1'.repeat(32) }, status: 404 }),
  'v2 POST /relay/rooms/{room}/messages': async () => ({ path: { room: '0'.repeat(32) }, body: { envelope: 'AAAA' }, status: 400 }),
  'v2 GET /relay/rooms/{room}/messages': async () => ({ path: { room: '0'.repeat(32) }, status: 404 }),
  'v2 GET /status': async () => ({}),
  'v2 GET /healthz': async () => ({}),
  'v2 GET /readyz': async () => ({}),

  'v1 GET /address/balance/{coin}/{address}': async () => ({ path: { coin: 'litecoin', address: addr(keys.watch) } }),
  'v1 GET /address/balances/{coin}/{addresses}': async () => ({ path: { coin: 'litecoin', addresses: `${addr(keys.watch)},${msAddr}` } }),
  'v1 GET /address/history/{coin}/{addresses}': async () => ({ path: { coin: 'litecoin', addresses: `${addr(keys.watch)},${addr(keys.v2pay)},${addr(keys.bob)}` } }),
  'v1 GET /address/utxo/{coin}/{addresses}': async () => ({ path: { coin: 'litecoin', addresses: `${addr(keys.watch)},${msAddr}` } }),
  'v1 POST /transaction/create/{coin}': async () => ({
    path: { coin: 'litecoin' },
    query: { from: keys.v1pay.publicKeyHex, to: addr(keys.bob), amount: String(COIN / 10n), fee_address: addr(keys.watch), fee_amount: '10000' },
  }),
  'v1 POST /transaction/sign_and_send/{coin}': async () => {
    const created = await ok<Created>('v1', 'POST', '/transaction/create/{coin}', { path: { coin: 'litecoin' }, query: { from: keys.v1pay.publicKeyHex, to: addr(keys.bob), amount: String(COIN / 10n) } });
    const sigs = signed(created);
    return {
      path: { coin: 'litecoin' },
      query: {
        tx: created.tx,
        public_keys: sigs.map((s) => s.public_key),
        signatures: sigs.map((s) => s.signature),
        hashes_to_sign: sigs.map((s) => s.hash_to_sign),
        input_indexes: sigs.map((s) => String(s.input_index)),
      },
    };
  },
  'v1 POST /transaction/send_raw/{coin}': async () => ({ path: { coin: 'litecoin' }, query: { rawtx: await rawPayment('v1', keys.v1raw) } }),
  'v1 POST /ethereum/create/': async () => ({ query: { from: A, to: B, amount: '3000' } }),
  'v1 POST /ethereum/sign_and_send/': async () => ({ query: await etherSignature('v1', 'ethereum', { from: A, to: B, amount: '4000' }) }),
  'v1 POST /erc20/create/': async () => ({ query: { from: A, to: B, amount: GWEI_TOKEN(3n), contract_id: token, decimal_places: '18' } }),
  'v1 POST /erc20/sign_and_send/': async () => ({ query: await etherSignature('v1', 'erc20', { from: A, to: B, amount: GWEI_TOKEN(4n), contract_id: token, decimal_places: '18' }) }),
};

// ---- validation -------------------------------------------------------------------------------

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

function validate(revision: 'v2' | 'v1', op: Pick<Operation, 'responses'>, answer: Answer): { documented: boolean; errors: string[] } {
  const response = op.responses[String(answer.status)] ?? op.responses['default'];
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) return { documented: false, errors: [`status ${answer.status} has no documented JSON schema`] };
  const check = ajv.compile({ ...schema, components: docs[revision].components ?? {} });
  const valid = check(answer.json);
  return { documented: op.responses[String(answer.status)] !== undefined, errors: valid ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`) };
}

beforeAll(async () => {
  hardhat = await startHardhat();
  try {
    await fundEther(hardhat, A, 10n ** 19n);
    token = await mintedToken(hardhat, 'Contract', 'CTR', A, 1000n * 10n ** 18n);
    const config: Omit<ServiceConfigInput, 'database'> = { auth: AUTH, coins: { ethereum: { network: 'regtest', backend: evmRpcBackendConfig(hardhat, 100) } } };
    t = await startRegtestService(['litecoin'], { usdRate: 80, config });
  } catch (err) {
    await hardhat.stop();
    throw err;
  }
  const script = (a: string) => addressToScript(params, a);
  watchFunding = await t.node.fundScript(script(addr(keys.watch)), 2n * COIN);
  for (const k of [keys.v2pay, keys.v2raw, keys.v1pay, keys.v1raw]) await t.node.fundScript(script(addr(k)), COIN);
  await t.node.fundScript(script(msAddr), COIN);
  await t.node.mine(1);
  await t.synced();
  t.service.startIndexers();
}, 180_000);

afterAll(async () => {
  await t?.dispose();
  await hardhat?.stop();
});

// ---- the tests --------------------------------------------------------------------------------

describe('the documents', () => {
  it('are OpenAPI 3.1 and the same ones the tested service serves, without a key', async () => {
    expect(docs.v2.openapi).toBe('3.1.0');
    expect(docs.v1.openapi).toBe('3.1.0');
    const res = await t.service.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(await documents(t.service.app)).toEqual(docs);
    const page = await t.service.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui');
  });

  it('mark the extensions beyond the spec', () => {
    const marked = operations.filter((op) => (docs[op.revision].paths[op.path]![op.method.toLowerCase()] as Json)['x-countersign-extension'] === true).map(keyOf);
    const extensions = ['v2 GET /blocks/{coin}/height_at/{unix_time}', 'v2 GET /erc20/token/{contract}', 'v2 GET /fee_estimates/{coin}', 'v2 GET /healthz', 'v2 GET /prices/history/{coin}', 'v2 GET /readyz', 'v2 GET /status', 'v2 GET /transaction/raw/{coin}/{txid}', 'v2 GET /watch/{coin}/{wallet_id}', 'v2 POST /watch/{coin}/{wallet_id}/rescan', 'v2 POST /watch/{coin}/{wallet_id}/window', 'v2 PUT /watch/{coin}/{wallet_id}', 'v2 POST /relay/rooms', 'v2 GET /relay/rooms/{room}', 'v2 POST /relay/rooms/{room}/invitations', 'v2 GET /relay/invitations/{id}', 'v2 POST /relay/invitations/{id}/join', 'v2 DELETE /relay/rooms/{room}/members/{device}', 'v2 POST /relay/rooms/{room}/messages', 'v2 GET /relay/rooms/{room}/messages'].sort();
    expect(marked.sort()).toEqual(extensions.filter((k) => operations.some((op) => keyOf(op) === k)));
    expect(marked).toContain('v2 GET /status');
  });

  it('have an example here for every operation (add one when adding a route)', () => {
    const missing = operations.map(keyOf).filter((k) => !(k in examples));
    expect(missing).toEqual([]);
  });
});

describe.each(operations.map((op) => [keyOf(op), op] as const))('%s', (key, op) => {
  it('answers as documented', async () => {
    const make = examples[key];
    if (!make) throw new Error(`no example for ${key}: add one to the contract test`);
    const example = await make();
    const answer = await call(op.revision, op.method, urlOf(op.revision, op.path, example), example.body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(example.status ?? 200);
    const { documented, errors } = validate(op.revision, op, answer);
    expect(documented).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe('errors as documented', () => {
  it.each(['v2', 'v1'] as const)('%s: a bad address is a 400 naming the field, in the error schema', async (revision) => {
    const path = '/address/balance/{coin}/{address}';
    const answer = await call(revision, 'GET', urlOf(revision, path, { path: { coin: 'litecoin', address: 'not-an-address' } }));
    expect(answer.status).toBe(400);
    expect((answer.json as { message: string }).message).toMatch(/address/);
    const op = operations.find((o) => o.revision === revision && o.path === path)!;
    expect(validate(revision, op, answer).errors).toEqual([]);
  });

  it.each(['v2', 'v1'] as const)('%s: a send route refuses a bad transaction with status_code and message', async (revision) => {
    const path = '/transaction/send_raw/{coin}';
    const answer = await call(revision, 'POST', urlOf(revision, path, { path: { coin: 'litecoin' }, query: { rawtx: '00ff' } }));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ status_code: 400 });
    const op = operations.find((o) => o.revision === revision && o.path === path)!;
    expect(validate(revision, op, answer).errors).toEqual([]);
  });

  it('v2 without a key is a 401 in the error schema; v1 answers without one', async () => {
    const path = '/address/balance/{coin}/{address}';
    const example = { path: { coin: 'litecoin', address: addr(keys.watch) } };
    const answer = await call('v2', 'GET', urlOf('v2', path, example), undefined, false);
    expect(answer.status).toBe(401);
    expect(validate('v2', operations.find((o) => o.revision === 'v2' && o.path === path)!, answer).errors).toEqual([]);
    expect((await call('v1', 'GET', urlOf('v1', path, example), undefined, false)).status).toBe(200);
  });
});

describe('the validator bites', () => {
  it('refuses a v2 body against the v1 schema of the same operation', async () => {
    const v2 = await call('v2', 'GET', urlOf('v2', '/address/utxos/{coin}/{addresses}', { path: { coin: 'litecoin', addresses: addr(keys.watch) } }));
    const v1op = operations.find((o) => o.revision === 'v1' && o.path === '/address/utxo/{coin}/{addresses}')!;
    expect(validate('v1', v1op, v2).errors).not.toEqual([]);
  });
});

describe('v1 carries the same facts as v2, reshaped', () => {
  it('utxo is the bare array of v2\'s utxos without the extension; balances the same amounts with whole-dollar usd_balance', async () => {
    const example = { path: { coin: 'litecoin', addresses: `${addr(keys.watch)},${msAddr}` } };
    const v2 = await ok<{ utxos: { height: number | null; confirmations: number }[] }>('v2', 'GET', '/address/utxos/{coin}/{addresses}', example);
    // v2's extension: each output's height and confirmations (the tip is the node's, and the index has it).
    const tip = await t.node.rpc.call<number>('getblockcount');
    expect(v2.utxos.length).toBeGreaterThan(0);
    for (const u of v2.utxos) expect(u.confirmations).toBe(u.height === null ? 0 : tip - u.height + 1);
    expect(await ok('v1', 'GET', '/address/utxo/{coin}/{addresses}', example)).toEqual(v2.utxos.map(({ height: _h, confirmations: _c, ...spec }) => spec));
    const b1 = await ok<{ totals: { balance: number; usd_balance: number } }>('v1', 'GET', '/address/balances/{coin}/{addresses}', example);
    const b2 = await ok<{ totals: { balance: number; usd_balance: number } }>('v2', 'GET', '/address/balances/{coin}/{addresses}', example);
    expect(b1.totals.balance).toBe(b2.totals.balance);
    expect(b1.totals.usd_balance).toBe(Math.round(b2.totals.usd_balance));
    expect(Number.isInteger(b1.totals.usd_balance)).toBe(true);
  });

  it('history entries: inputs and outputs of each transaction, fees = total_in - total_out', async () => {
    const example = { path: { coin: 'litecoin', addresses: addr(keys.watch) } };
    const h = await ok<{ total_txs: number; txs: { txid: string; blockheight: number; total_in: number; total_out: number; fees: number; vins: { address: string; amount: number }[]; vouts: { address: string; amount: number }[] }[] }>(
      'v1',
      'GET',
      '/address/history/{coin}/{addresses}',
      example,
    );
    const funding = h.txs.find((e) => e.txid === watchFunding)!;
    const node = await t.node.rpc.call<{ blockhash: string; vout: { value: number; scriptPubKey: { hex: string } }[] }>('getrawtransaction', [watchFunding, true]);
    const block = await t.node.rpc.call<{ height: number }>('getblock', [node.blockhash]);
    expect(funding.blockheight).toBe(block.height);
    expect(funding.vouts).toContainEqual({ address: addr(keys.watch), amount: Number(2n * COIN) });
    expect(funding.vouts.map((o) => o.amount)).toEqual(node.vout.map((o) => Math.round(o.value * 1e8)));
    expect(funding.total_out).toBe(funding.vouts.reduce((s, o) => s + o.amount, 0));
    expect(funding.total_in).toBe(funding.vins.reduce((s, i) => s + i.amount, 0));
    expect(funding.fees).toBe(funding.total_in - funding.total_out);
    expect(funding.fees).toBeGreaterThan(0);
  });

  it('v1 sign_and_send refuses lists of different lengths, broadcasting nothing', async () => {
    const created = await ok<Created>('v1', 'POST', '/transaction/create/{coin}', { path: { coin: 'litecoin' }, query: { from: keys.v1pay.publicKeyHex, to: addr(keys.bob), amount: '100000' } });
    const sigs = signed(created);
    const before = await t.node.rpc.call<string[]>('getrawmempool');
    const answer = await call(
      'v1',
      'POST',
      urlOf('v1', '/transaction/sign_and_send/{coin}', { path: { coin: 'litecoin' }, query: { tx: created.tx, public_keys: sigs.map((s) => s.public_key), signatures: sigs.map((s) => s.signature), input_indexes: [] } }),
    );
    expect(answer.status).toBe(400);
    expect((answer.json as { message: string }).message).toMatch(/input_indexes/);
    expect(await t.node.rpc.call<string[]>('getrawmempool')).toEqual(before);
  });

  it('v1 create takes fee_amount as a string and answers without total_input_value', async () => {
    const created = await ok<Json>('v1', 'POST', '/transaction/create/{coin}', {
      path: { coin: 'litecoin' },
      query: { from: keys.v1pay.publicKeyHex, to: addr(keys.bob), amount: '100000', fee_address: addr(keys.watch), fee_amount: '20000' },
    });
    expect(Object.keys(created).sort()).toEqual(['hashes', 'tx']);
    const tx = decodeTxHex(created['tx'] as string, 'tx', params);
    expect(tx.outputs[1]!.value).toBe(20_000n);
  });
});
