// HTTP contract tests that need no chain: auth, routing, validation and refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/http-service.ts';
import { testKey } from '../test/keys.ts';
import { base58checkEncode } from '../../shared/coins/base58.ts';

let t: TestService;
const alice = testKey('alice');

beforeAll(async () => {
  // The node is never contacted: these requests are answered from the (empty) index or refused first.
  t = await startTestService({
    coins: { litecoin: { network: 'mainnet', backend: { type: 'node-rpc', url: 'http://127.0.0.1:1', username: 'u', password: 'p' } } },
  });
});
afterAll(async () => t?.dispose());

describe('authentication', () => {
  it('refuses a request without X-API-KEY with 401 and a message', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: '/address/balance/litecoin/LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3' });
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ message: expect.stringMatching(/missing X-API-KEY/) });
  });

  it('refuses an unknown key', async () => {
    const res = await t.service.app.inject({ method: 'GET', url: '/status', headers: { 'x-api-key': 'cs_nope_nope' } });
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).message).toMatch(/unknown or revoked/);
  });

  it('accepts the key, at the root and under /v2', async () => {
    expect((await t.request('GET', '/status')).status).toBe(200);
    expect((await t.request('GET', '/v2/status')).status).toBe(200);
  });
});

describe('routing and validation', () => {
  it('404s an unknown coin and a coin this deployment does not serve', async () => {
    const unknown = await t.request('GET', '/address/balance/dogecoin/abc');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ message: expect.stringMatching(/unknown coin "dogecoin"/) });
    const unserved = await t.request('GET', '/address/balance/dash/XabcX');
    expect(unserved.status).toBe(404);
    expect(unserved.json).toEqual({ message: expect.stringMatching(/dash is not served/) });
  });

  it('404s an unknown route with a JSON message', async () => {
    const res = await t.request('GET', '/nope');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: 'no such route: GET /nope' });
    // A long unknown path is not repeated whole.
    const long = await t.request('GET', `/nope/${'x'.repeat(10_000)}`);
    expect(long.status).toBe(404);
    expect((long.json as { message: string }).message).toMatch(/^no such route: GET \/nope\/x+… \(\d+ characters\)$/);
    expect((long.json as { message: string }).message.length).toBeLessThan(600);
  });

  it('400s an invalid address, naming it', async () => {
    const res = await t.request('GET', '/address/balances/litecoin/LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3,notanaddress');
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toMatch(/notanaddress/);
  });

  it('400s a bitcoin address on litecoin, saying whose it is', async () => {
    const res = await t.request('GET', '/address/balance/litecoin/1BoatSLRHtKNngkdXEeobR76b53LETtpyT');
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toMatch(/bitcoin/);
  });

  it('answers an empty balance for a valid address', async () => {
    const res = await t.request('GET', '/address/balance/litecoin/LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3');
    expect(res).toEqual({ status: 200, json: { usd_balance: 0, balance: 0n, unconfirmed_balance: 0n, human_balance: 0, human_unconfirmed_balance: 0 } });
  });

  it('400s malformed JSON and a body of the wrong shape without a stack trace', async () => {
    const res = await t.service.app.inject({
      method: 'POST',
      url: '/multi_sig/create/litecoin',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      payload: '{"amount": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toMatch(/at .*\.ts:\d+/);
    const shape = await t.request('POST', '/multi_sig/create/litecoin', { amount: 'ten' });
    expect(shape.status).toBe(400);
    expect((shape.json as { message: string }).message).toMatch(/body field "amount"/);
  });

  it('refuses a private key where a public key belongs', async () => {
    const wif = base58checkEncode(Uint8Array.of(0xb0), Uint8Array.from([...alice.privateKey, 0x01]));
    const res = await t.request('POST', `/transaction/create/litecoin?from=${wif}&to=LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3&amount=100000`);
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toMatch(/private key/);
    const hexSecret = Buffer.from(alice.privateKey).toString('hex');
    const res2 = await t.request('POST', `/transaction/create/litecoin?from=${hexSecret}&to=LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3&amount=100000`);
    expect(res2.status).toBe(400);
    expect((res2.json as { message: string }).message).toMatch(/private key/);
  });

  it('says how much is available and needed when funds are short', async () => {
    const res = await t.request('POST', `/transaction/create/litecoin?from=${alice.publicKeyHex}&to=LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3&amount=100000&miners_fee=1000`);
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toMatch(/insufficient funds: available 0 .* needed 101000/);
  });

  it("refuses an amount below the dust limit in the coin's unit with its ticker, naming the row of outputs", async () => {
    const to = 'LQTpS3VaYTjCr4s9Y1t5zbeY26zevf7Fb3';
    const res = await t.request('POST', `/transaction/create/litecoin?from=${alice.publicKeyHex}&to=${to}&amount=5459&miners_fee=1000`);
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toBe('amount 0.00005459 LTC is below the dust limit of 0.0000546 LTC: the network would not relay the output');
    const row = await t.request('POST', `/transaction/create/litecoin?from=${alice.publicKeyHex}&miners_fee=1000`, { outputs: [{ to, amount: 100_000 }, { to, amount: 1 }] });
    expect(row.status).toBe(400);
    expect((row.json as { message: string }).message).toBe('outputs[1]: amount 0.00000001 LTC is below the dust limit of 0.0000546 LTC: the network would not relay the output');
    // At the limit it is no longer dust: the refusal is then the (empty) funds.
    const limit = await t.request('POST', `/transaction/create/litecoin?from=${alice.publicKeyHex}&to=${to}&amount=5460&miners_fee=1000`);
    expect((limit.json as { message: string }).message).toMatch(/^insufficient funds/);
  });

  it('puts status_code in the error body of the send endpoints', async () => {
    const res = await t.request('POST', '/transaction/send_raw/litecoin?rawtx=00ff');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status_code: 400, message: expect.stringMatching(/rawtx/) });
  });
});

describe('to_network_addresses', () => {
  // BIP32 test vector 1, m/0' (an xpub of depth 1)
  const xpub = 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw';

  it('derives single-key addresses on every coin that can hold them, ethereum included', async () => {
    const res = await t.request('POST', '/address/to_network_addresses', { number_of_required_signatures: 0, master_keys: [{ xpub, path: 'm/1' }] });
    expect(res.status).toBe(200);
    const [entry] = res.json as { addresses: { coin: string; network_address: string }[]; public_keys: string[] }[];
    expect(entry!.public_keys).toHaveLength(1);
    const coins = entry!.addresses.map((a) => a.coin);
    expect(coins).toEqual(expect.arrayContaining(['bitcoin', 'litecoin', 'dash', 'ethereum']));
    expect(entry!.addresses.find((a) => a.coin === 'litecoin')!.network_address).toMatch(/^L/);
    expect(entry!.addresses.find((a) => a.coin === 'ethereum')!.network_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('makes one M-of-N address from all keys in the order given', async () => {
    const body = { number_of_required_signatures: 2, master_keys: [{ xpub, path: '0' }, { xpub, path: '1' }, { xpub, path: '2' }] };
    const res = await t.request('POST', '/address/to_network_addresses', body);
    expect(res.status).toBe(200);
    const list = res.json as { addresses: { coin: string; network_address: string }[]; public_keys: string[] }[];
    expect(list).toHaveLength(1);
    expect(list[0]!.public_keys).toHaveLength(3);
    expect(list[0]!.addresses.find((a) => a.coin === 'litecoin')!.network_address).toMatch(/^M/);
    const swapped = await t.request('POST', '/address/to_network_addresses', { ...body, master_keys: [body.master_keys[1]!, body.master_keys[0]!, body.master_keys[2]!] });
    const other = swapped.json as typeof list;
    expect(other[0]!.addresses[0]!.network_address).not.toBe(list[0]!.addresses[0]!.network_address);
  });

  it('refuses hardened steps, an xprv and too many required signatures', async () => {
    const hardened = await t.request('POST', '/address/to_network_addresses', { master_keys: [{ xpub, path: "m/0'" }] });
    expect(hardened.status).toBe(400);
    expect((hardened.json as { message: string }).message).toMatch(/hardened/);
    const xprv = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
    const priv = await t.request('POST', '/address/to_network_addresses', { master_keys: [{ xpub: xprv, path: 'm/0' }] });
    expect(priv.status).toBe(400);
    expect((priv.json as { message: string }).message).toMatch(/private/);
    const tooMany = await t.request('POST', '/address/to_network_addresses', { number_of_required_signatures: 3, master_keys: [{ xpub, path: '0' }] });
    expect(tooMany.status).toBe(400);
  });
});
