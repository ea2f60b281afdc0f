// Fuzzing every endpoint of the v2 API (at the root) and of /v1 with random and adversarial path
// parameters, query parameters and bodies: no answer may be a 5xx. Bad input is the caller's
// fault (4xx naming the field); the backends here all answer (litecoind -regtest for the UTXO
// coins, hardhat for ethereum), so a 502/504 would be ours too. Requests go through app.inject
// (no port). The seed is fixed (COUNTERSIGN_FUZZ_SEED overrides it) and every failure names its
// request's index, so a failure reproduces. Prints the request count and the status histogram.
import { SigningKey, Wallet, computeAddress } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAddress, p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from '../../shared/coins/address.ts';
import { chainParams, type CoinName } from '../../shared/coins/coin-table.ts';
import { hash160 } from '../../shared/coins/hash.ts';
import { multisigRedeemScript, p2pkhScript } from '../../shared/coins/script.ts';
import type { ServiceConfigInput } from '../config.ts';
import { adversarialString, mutated, PRIVATE_KEYS, Random, wrongType } from '../test/fuzz-values.ts';
import { evmRpcBackendConfig, fundEther, mintedToken, startHardhat, type HardhatNode } from '../test/hardhat-node.ts';
import { testKey } from '../test/keys.ts';
import { startRegtestService, type RegtestService } from '../test/regtest-service.ts';
import { until } from '../test/until.ts';

const SEED = Number(process.env.COUNTERSIGN_FUZZ_SEED ?? 20_240_611);
const PER_OPERATION = 120;
// zcash is not served: litecoind's transactions are no zcash transactions (a 502 of the test's
// making); its addresses (two-byte prefixes) are still among the values.
const COINS = ['litecoin', 'bitcoin', 'bitcoin_cash'] as const satisfies readonly CoinName[];
const COIN = 100_000_000n;

// What a field holds decides its good values; every field also gets the adversarial ones.
type Kind = 'coin' | 'address' | 'addresses' | 'from' | 'units' | 'smallint' | 'txid' | 'hex' | 'eth' | 'ethkey' | 'contract' | 'xpub' | 'path' | 'pubkey' | 'rsv';
type Fields = Record<string, Kind>;
interface Spec {
  path?: Fields;
  query?: Fields;
  body?: 'signatures' | 'multisig' | 'network' | 'treasury' | 'watch' | 'rescan' | 'window' | 'relay-keys' | 'invitation' | 'envelope';
}

const tokenQuery: Fields = { contract_id: 'contract', decimal_places: 'smallint' };
const ethCreate: Fields = { to: 'eth', from: 'eth', amount: 'units', gas_price: 'units', gas_limit: 'units' };
const ethSend: Fields = { ...ethCreate, r: 'rsv', s: 'rsv', v: 'smallint' };
const SPECS: Record<string, Spec> = {
  'GET /address/balance/{coin}/{address}': { path: { coin: 'coin', address: 'address' }, query: tokenQuery },
  'GET /address/balances/{coin}/{addresses}': { path: { coin: 'coin', addresses: 'addresses' }, query: tokenQuery },
  'GET /address/history/{coin}/{addresses}': { path: { coin: 'coin', addresses: 'addresses' }, query: { ...tokenQuery, limit: 'smallint', offset: 'smallint' } },
  'GET /address/utxos/{coin}/{addresses}': { path: { coin: 'coin', addresses: 'addresses' } },
  'GET /address/utxo/{coin}/{addresses}': { path: { coin: 'coin', addresses: 'addresses' } },
  'POST /address/to_network_addresses': { body: 'network' },
  'POST /transaction/create/{coin}': { path: { coin: 'coin' }, query: { to: 'address', from: 'from', amount: 'units', fee_address: 'address', fee_amount: 'units', miners_fee: 'units' }, body: 'treasury' },
  'POST /transaction/sign_and_send/{coin}': { path: { coin: 'coin' }, body: 'signatures' },
  'POST /transaction/send_raw/{coin}': { path: { coin: 'coin' }, query: { rawtx: 'hex' } },
  'GET /transaction/raw/{coin}/{txid}': { path: { coin: 'coin', txid: 'txid' } },
  'POST /multi_sig/create/{coin}': { path: { coin: 'coin' }, body: 'multisig' },
  'POST /multi_sig/sign_and_send/{coin}': { path: { coin: 'coin' }, body: 'signatures' },
  'POST /ethereum/create/': { query: ethCreate },
  'POST /ethereum/sign_and_send/': { query: ethSend },
  'POST /erc20/create/': { query: { ...ethCreate, ...tokenQuery } },
  'POST /erc20/sign_and_send/': { query: { ...ethSend, ...tokenQuery } },
  'GET /erc20/token/{contract}': { path: { contract: 'contract' } },
  'GET /fee_estimates/{coin}': { path: { coin: 'coin' } },
  'GET /blocks/{coin}/height_at/{unix_time}': { path: { coin: 'coin', unix_time: 'units' } },
  'PUT /watch/{coin}/{wallet_id}': { path: { coin: 'coin', wallet_id: 'hex' }, body: 'watch' },
  'GET /watch/{coin}/{wallet_id}': { path: { coin: 'coin', wallet_id: 'hex' } },
  'POST /watch/{coin}/{wallet_id}/rescan': { path: { coin: 'coin', wallet_id: 'hex' }, body: 'rescan' },
  'POST /watch/{coin}/{wallet_id}/window': { path: { coin: 'coin', wallet_id: 'hex' }, body: 'window' },
  'POST /relay/rooms': { body: 'relay-keys' },
  'GET /relay/rooms/{room}': { path: { room: 'hex' } },
  'POST /relay/rooms/{room}/invitations': { path: { room: 'hex' }, body: 'invitation' },
  'GET /relay/invitations/{id}': { path: { id: 'hex' } },
  'POST /relay/invitations/{id}/join': { path: { id: 'hex' }, body: 'relay-keys' },
  'DELETE /relay/rooms/{room}/members/{device}': { path: { room: 'hex', device: 'hex' } },
  'POST /relay/rooms/{room}/messages': { path: { room: 'hex' }, body: 'envelope' },
  'GET /relay/rooms/{room}/messages': { path: { room: 'hex' }, query: { after: 'smallint', wait: 'smallint', limit: 'smallint' } },
  'GET /prices/history/{coin}': { path: { coin: 'coin' }, query: { at: 'units' } },
  'GET /status': {},
  'GET /healthz': {},
  'GET /readyz': {},
};
// v1's sign_and_send carries the signatures in the query, arrays as repeated keys.
const V1_SPECS: Record<string, Spec> = {
  'POST /transaction/sign_and_send/{coin}': { path: { coin: 'coin' }, query: { tx: 'hex', public_keys: 'pubkey', signatures: 'hex', hashes_to_sign: 'hex', input_indexes: 'smallint' } },
};

let hardhat: HardhatNode;
let t: RegtestService;
const good = new Map<Kind, string[]>();

beforeAll(async () => {
  hardhat = await startHardhat();
  const A = computeAddress(new SigningKey(Wallet.createRandom().privateKey));
  let token: string;
  try {
    await fundEther(hardhat, A, 10n ** 19n);
    token = await mintedToken(hardhat, 'Fuzz', 'FZZ', A, 1000n * 10n ** 18n);
    const config: Omit<ServiceConfigInput, 'database'> = { coins: { ethereum: { network: 'regtest', backend: evmRpcBackendConfig(hardhat, 100) } } };
    t = await startRegtestService(COINS, { config });
  } catch (err) {
    await hardhat.stop();
    throw err;
  }
  // the indexers follow their chains as in production; /readyz is then 200 (it is fuzzed too)
  t.service.startIndexers();
  await until('every backend to be ready', async () => (await t.service.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, { deadlineMs: 60_000 });
  const keys = [testKey('fuzz a'), testKey('fuzz b'), testKey('fuzz c')];
  const ltc = chainParams('litecoin', 'regtest');
  const addresses = [...COINS, 'zcash' as const].flatMap((coin) => {
    const params = chainParams(coin, 'regtest');
    return [p2pkhAddressOfPublicKey(params, keys[0]!.publicKey), p2shAddressOfRedeemScript(params, multisigRedeemScript(2, keys.map((k) => k.publicKey)))];
  });
  addresses.push(encodeAddress(ltc, { type: 'p2wpkh', hash: hash160(keys[1]!.publicKey) }));
  // funded outputs, so create and sign_and_send get past coin selection
  const funding = await t.node.fundScript(p2pkhScript(hash160(keys[0]!.publicKey)), 5n * COIN);
  await t.node.mine(1);
  await t.synced();
  const created = await t.request('POST', `/transaction/create/litecoin?to=${addresses[1]!}&from=${keys[0]!.publicKeyHex}&amount=1000000`);
  expect(created.status).toBe(200);
  const unsigned = (created.json as { tx: string }).tx;
  const xpub = 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw';
  good.set('coin', [...COINS, 'ethereum', 'dash', 'no_such_coin', 'LITECOIN']);
  good.set('address', [...addresses, A, ...PRIVATE_KEYS]);
  good.set('addresses', [addresses.join(','), ...addresses]);
  good.set('from', keys.map((k) => k.publicKeyHex).concat(keys.map((k) => k.publicKeyHex).join(',')));
  good.set('units', ['1', '1000', '100000000', '0', String(5n * COIN), '2100000000000000', '1.5']);
  good.set('smallint', ['0', '1', '2', '18', '27', '28', '50', '201']);
  good.set('txid', [funding, funding.toUpperCase(), '00'.repeat(32)]);
  good.set('hex', [unsigned, `0x${unsigned}`, '00', 'deadbeef']);
  good.set('eth', [A, computeAddress(new SigningKey(Wallet.createRandom().privateKey)), token, A.toLowerCase()]);
  good.set('contract', [token, A]);
  good.set('xpub', [xpub, ...PRIVATE_KEYS]);
  good.set('path', ['m', 'm/0', 'm/0/1', "m/0'", 'm/2147483648', 'm/-1', '0/1']);
  good.set('pubkey', keys.map((k) => k.publicKeyHex).concat(PRIVATE_KEYS));
  good.set('rsv', [`0x${'11'.repeat(32)}`, '0x00', `0x${'ff'.repeat(32)}`]);
}, 180_000);

afterAll(async () => {
  await t?.dispose();
  await hardhat?.stop();
});

// Each request is mostly good values with a few bad ones, so bad input reaches past the schemas
// into the codecs, coin selection and signature checks; `badness` is the share of bad fields.
let badness = 0.5;
function value(random: Random, kind: Kind): string {
  const goods = good.get(kind)!;
  if (!random.chance(badness)) return random.pick(goods);
  return random.chance(0.5) ? mutated(random, random.pick(goods)) : adversarialString(random);
}

function fields(random: Random, spec: Fields | undefined, dropOptional = true): [string, string][] {
  return Object.entries(spec ?? {}).flatMap(([name, kind]): [string, string][] => {
    if (dropOptional && random.chance(badness / 4)) return [];
    const repeat = random.chance(badness / 5) ? 2 + random.int(3) : 1; // a repeated key is an array
    return Array.from({ length: repeat }, () => [name, value(random, kind)] as [string, string]);
  });
}

/** The treasury extension fields (outputs, inputs, fee_rate, ...), each present half the time or so. */
function treasuryFields(random: Random, anyOf: (k: Kind) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const amount = () => (random.chance(0.5) ? anyOf('units') : random.pick([1000, -5, 1e30, 0.5]));
  if (random.chance(0.5)) out.outputs = Array.from({ length: random.pick([0, 1, 2, 50, 1001]) }, () => (random.chance(0.1) ? wrongType(random) : { to: anyOf('address'), amount: amount() }));
  if (random.chance(0.5)) {
    out.inputs = Array.from({ length: random.pick([0, 1, 2]) }, () => {
      const vout = random.pick([0, 1, -1, 2 ** 32, 1.5]);
      return random.pick([`${String(anyOf('txid'))}:${vout}`, { txid: anyOf('txid'), vout }, wrongType(random)]);
    });
  }
  if (random.chance(0.3)) out.allow_unconfirmed = random.chance(0.8) ? random.pick([true, false]) : wrongType(random);
  if (random.chance(0.5)) out.fee_rate = amount();
  if (random.chance(0.3)) out.replaceable = random.chance(0.8) ? random.pick([true, false]) : wrongType(random);
  return out;
}

function body(random: Random, kind: Spec['body']): unknown {
  if (kind === undefined) return random.chance(badness / 5) ? wrongType(random) : undefined;
  if (kind === 'treasury' && random.chance(0.3)) return undefined; // the original request: no body
  if (random.chance(badness / 5)) return wrongType(random);
  const anyOf = (k: Kind) => (random.chance(badness / 4) ? wrongType(random) : value(random, k));
  let out: Record<string, unknown>;
  if (kind === 'signatures') {
    out = {
      tx: anyOf('hex'),
      signatures: Array.from({ length: random.pick([0, 1, 2, 3, 50]) }, () =>
        random.chance(0.1) ? wrongType(random) : { input_index: random.chance(0.8) ? random.pick([0, 1, 2, -1, 2 ** 32, 1.5]) : wrongType(random), public_key: anyOf('pubkey'), signature: anyOf('hex'), hash_to_sign: anyOf('hex') },
      ),
    };
  } else if (kind === 'multisig') {
    out = {
      number_of_required_signatures: random.chance(0.8) ? random.pick([0, 1, 2, 3, 15, 16, -1]) : wrongType(random),
      amount: random.chance(0.5) ? anyOf('units') : random.pick([1000, -5, 1e30, 0.5]),
      to: anyOf('address'),
      fee_address: anyOf('address'),
      fee_amount: anyOf('units'),
      redeem_scripts: Array.from({ length: random.pick([0, 1, 2]) }, () => ({ public_keys: Array.from({ length: random.pick([0, 1, 3, 16]) }, () => anyOf('pubkey')) })),
      ...(random.chance(0.5) ? treasuryFields(random, anyOf) : {}),
    };
    if (random.chance(0.5)) delete out.fee_address;
  } else if (kind === 'treasury') {
    out = treasuryFields(random, anyOf);
  } else if (kind === 'watch') {
    const key = () => `${String(anyOf('xpub'))}/${random.pick(['<0;1>', '0', '1', '<0;1;2>'])}/*`;
    const shape = random.pick(['wsh(sortedmulti(2,%))', 'sh(multi(1,%))', 'sh(wsh(multi(2,%)))', 'tr(%)', '%']);
    out = {
      descriptors: Array.from({ length: random.pick([0, 1, 2, 3]) }, () => (random.chance(0.1) ? wrongType(random) : shape.replace('%', [key(), key()].join(',')))),
      birthday_height: random.chance(0.8) ? random.pick([null, 0, 1, 200, -1, 2 ** 32, 1.5]) : wrongType(random),
      gap_limit: random.chance(0.8) ? random.pick([0, 1, 20, 1000, 1001, -3, 2.5]) : wrongType(random),
    };
  } else if (kind === 'window') {
    const index = () => (random.chance(0.8) ? random.pick([-2, -1, 0, 19, 100_000, 100_001, 2 ** 31, 1.5]) : wrongType(random));
    out = { shown: random.chance(0.9) ? { receive: index(), change: index() } : wrongType(random) };
  } else if (kind === 'relay-keys') {
    out = { sign_key: anyOf('hex'), box_key: anyOf('hex') };
  } else if (kind === 'invitation') {
    out = { id: anyOf('hex'), sealed: random.chance(0.8) ? random.pick(['', 'AAAA', '!!', 'A'.repeat(20_000)]) : wrongType(random), expires_in_hours: random.chance(0.8) ? random.pick([0, 1, 72, -1, 1e9, 1.5]) : wrongType(random) };
  } else if (kind === 'envelope') {
    out = { envelope: random.chance(0.8) ? random.pick(['', 'AAAA', '!!', 'A'.repeat(4_000)]) : wrongType(random) };
  } else if (kind === 'rescan') {
    out = { from_height: random.chance(0.8) ? random.pick([0, 1, 200, -1, 2 ** 32, 1.5]) : wrongType(random) };
  } else {
    out = {
      number_of_required_signatures: random.chance(0.8) ? random.pick([0, 1, 2, 15, 16, -1]) : wrongType(random),
      master_keys: Array.from({ length: random.pick([0, 1, 2, 16]) }, () => (random.chance(0.1) ? wrongType(random) : { xpub: anyOf('xpub'), path: anyOf('path') })),
    };
  }
  for (const name of Object.keys(out)) if (random.chance(0.05)) delete out[name];
  if (random.chance(0.05)) out[adversarialString(random).slice(0, 30)] = wrongType(random);
  return out;
}

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  prefix: '' | '/v1';
  path: string;
  spec: Spec;
}

async function operationsOf(prefix: '' | '/v1'): Promise<Operation[]> {
  const res = await t.service.app.inject({ method: 'GET', url: `${prefix}/openapi.json` });
  const doc = JSON.parse(res.body) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((m) => {
      const method = m.toUpperCase() as 'GET' | 'POST' | 'PUT';
      const key = `${method} ${path}`;
      const spec = (prefix === '/v1' ? V1_SPECS[key] : undefined) ?? SPECS[key];
      if (!spec) throw new Error(`the fuzz test has no spec for ${prefix} ${key}: add one`);
      return { method, prefix, path, spec };
    }),
  );
}

describe('fuzzing every endpoint', () => {
  it('answers no request with a 5xx', async () => {
    const operations = [...(await operationsOf('')), ...(await operationsOf('/v1'))];
    const random = new Random(SEED);
    const histogram = new Map<number, number>();
    const failures: string[] = [];
    let requests = 0;
    let longest = '';
    const started = Date.now();
    for (const op of operations) {
      const times = Object.keys({ ...op.spec.path, ...op.spec.query }).length === 0 && !op.spec.body ? 5 : PER_OPERATION;
      for (let i = 0; i < times; i++) {
        badness = random.pick([0.05, 0.2, 0.5, 0.9]);
        const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
          const v = value(random, op.spec.path![name]!);
          return random.chance(0.9) ? encodeURIComponent(v) : v.replace(/[/?#%]/g, '');
        });
        const query = new URLSearchParams(fields(random, op.spec.query));
        const payload = body(random, op.spec.body);
        const qs = query.toString();
        const url = `${op.prefix}${path}${qs ? `?${qs}` : ''}`;
        const res = await t.service.app.inject({
          method: op.method,
          url,
          headers: { 'x-api-key': t.apiKey, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
        });
        requests++;
        histogram.set(res.statusCode, (histogram.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode >= 400 && res.body.length > longest.length) longest = `${res.statusCode} ${res.body}`;
        // Refusals must not echo their input back; an answer may be long (44 rates for 44 times asked).
        if (res.statusCode >= 400 && res.body.length > 2_000) failures.push(`#${requests} ${op.method} ${url.slice(0, 200)}: a ${res.body.length}-character answer repeats the input: ${res.body.slice(0, 300)}`);
        if (res.statusCode >= 500) failures.push(`#${requests} ${op.method} ${url.slice(0, 300)} body ${JSON.stringify(payload)?.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const shown = [...histogram.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ');
    console.log(`fuzz (seed ${SEED}): ${requests} requests over ${operations.length} operations in ${seconds} s; statuses ${shown}`);
    console.log(`longest refusal: ${longest.length} characters: ${longest.slice(0, 400)}`);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 300_000);
});
