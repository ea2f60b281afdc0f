// The Bitcoin-rules coins besides litecoin, each configured on its own regtest prefixes against
// one litecoind: addresses render with the coin's prefixes and payments built for it are valid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript, p2pkhAddressOfPublicKey, p2shAddressOfRedeemScript } from '../shared/coins/address.ts';
import { chainParams, type CoinName } from '../shared/coins/coin-table.ts';
import { multisigRedeemScript } from '../shared/coins/script.ts';
import type { Balance, HashesToSign } from '../shared/api/schemas.ts';
import { startRegtestService, type RegtestService } from './test/regtest-service.ts';
import { testKey } from './test/keys.ts';

const COINS = ['bitcoin', 'testnet3', 'dash'] as const satisfies readonly CoinName[];
let t: RegtestService;
beforeAll(async () => {
  t = await startRegtestService(COINS);
});
afterAll(async () => t?.dispose());

async function ok<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const res = await t.request(method, url, body);
  if (res.status !== 200) throw new Error(`${method} ${url} -> ${res.status} ${String((res.json as { message?: string })?.message)}`);
  return res.json as T;
}

describe.each(COINS)('%s on regtest prefixes', (coin) => {
  const params = chainParams(coin, 'regtest');
  const payer = testKey(`${coin} payer`);
  const payee = testKey(`${coin} payee`);
  const keys = [testKey(`${coin} k1`), testKey(`${coin} k2`), testKey(`${coin} k3`)];
  const payerAddr = p2pkhAddressOfPublicKey(params, payer.publicKey);
  const payeeAddr = p2pkhAddressOfPublicKey(params, payee.publicKey);
  const msAddr = p2shAddressOfRedeemScript(params, multisigRedeemScript(2, keys.map((k) => k.publicKey)));
  const all = [payer, ...keys];

  it('renders addresses with the coin\'s own prefixes', () => {
    expect(payerAddr[0]).toBe(coin === 'dash' ? 'y' : payerAddr[0] === 'm' ? 'm' : 'n');
    expect(msAddr[0]).toBe(coin === 'dash' ? '8' : '2');
  });

  it('single-sig and 2-of-3 payments round-trip through the node', async () => {
    await t.node.fundScript(addressToScript(params, payerAddr), 50_000_000n);
    await t.node.fundScript(addressToScript(params, msAddr), 50_000_000n);
    await t.node.mine(1);
    await t.synced();
    expect((await ok<Balance>('GET', `/address/balance/${coin}/${payerAddr}`)).balance).toBe(50_000_000n);

    const single = await ok<HashesToSign>('POST', `/transaction/create/${coin}?from=${payer.publicKeyHex}&to=${payeeAddr}&amount=10000000`);
    const sign = (c: HashesToSign) => c.hashes.map((h) => ({ ...h, signature: all.find((k) => k.publicKeyHex === h.public_key)!.sign(h.hash_to_sign) }));
    const sent1 = await ok<{ message: string }>('POST', `/transaction/sign_and_send/${coin}`, { tx: single.tx, signatures: sign(single) });

    const multi = await ok<HashesToSign>('POST', `/multi_sig/create/${coin}`, {
      number_of_required_signatures: 2,
      amount: 20_000_000,
      to: payeeAddr,
      redeem_scripts: [{ public_keys: keys.map((k) => k.publicKeyHex) }],
    });
    const sent2 = await ok<{ message: string }>('POST', `/multi_sig/sign_and_send/${coin}`, { tx: multi.tx, signatures: sign(multi).filter((s) => s.public_key !== keys[0]!.publicKeyHex) });
    expect(await t.node.rpc.call<string[]>('getrawmempool')).toEqual(expect.arrayContaining([sent1.message, sent2.message]));
    await t.node.mine(1);
    await t.synced();
    expect((await ok<Balance>('GET', `/address/balance/${coin}/${payeeAddr}`)).balance).toBe(30_000_000n);
  });

  it('refuses another coin\'s address', async () => {
    const other = coin === 'dash' ? p2pkhAddressOfPublicKey(chainParams('bitcoin', 'regtest'), payee.publicKey) : p2pkhAddressOfPublicKey(chainParams('dash', 'regtest'), payee.publicKey);
    const res = await t.request('POST', `/transaction/create/${coin}?from=${payer.publicKeyHex}&to=${other}&amount=10000000`);
    expect(res.status).toBe(400);
    expect((res.json as { message: string }).message).toMatch(/to/);
  });
});
