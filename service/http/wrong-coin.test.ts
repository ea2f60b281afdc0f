// Inputs of another coin or network are refused clearly, before any chain is asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p2pkhAddressOfPublicKey } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { startTestService, type TestService } from '../test/http-service.ts';
import { testKey } from '../test/keys.ts';

let t: TestService;
const key = testKey('wrong coin');
const backend = { type: 'node-rpc' as const, url: 'http://127.0.0.1:1' };

beforeAll(async () => {
  t = await startTestService({ coins: { bitcoin_gold: { backend }, zcash: { backend }, bitcoin_cash: { backend }, zclassic: { backend } } });
});
afterAll(async () => t?.dispose());

const message = (res: { json: unknown }) => (res.json as { message: string }).message;

describe('wrong-coin inputs', () => {
  it('a Bitcoin address given for bitcoin_gold', async () => {
    const btc = p2pkhAddressOfPublicKey(chainParams('bitcoin', 'mainnet'), key.publicKey);
    const res = await t.request('POST', `/transaction/create/bitcoin_gold?from=${key.publicKeyHex}&to=${btc}&amount=100000`);
    expect(res.status).toBe(400);
    expect(message(res)).toMatch(/to: address ".*" is not a valid bitcoin_gold address: it is a bitcoin, bitcoin_cash address/);
  });

  it('a testnet address given for mainnet zcash', async () => {
    const testnet = p2pkhAddressOfPublicKey(chainParams('zcash', 'testnet'), key.publicKey);
    const res = await t.request('GET', `/address/balance/zcash/${testnet}`);
    expect(res.status).toBe(400);
    expect(message(res)).toMatch(/zcash (testnet|regtest)/);
  });

  it('a testnet (tpub) key yields addresses only on coins served on a test network', async () => {
    // BIP32 test vector 1's master key with the testnet version
    const tpub = 'tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp';
    const res = await t.request('POST', '/address/to_network_addresses', { master_keys: [{ xpub: tpub, path: '0' }] });
    expect(res.status).toBe(200);
    const coins = (res.json as { addresses: { coin: string }[] }[])[0]!.addresses.map((a) => a.coin);
    expect(coins).toEqual(['testnet3', 'ethereum']);
  });

  it('CashAddr is shown for bitcoin_cash and a Bitcoin Cash address is refused on bitcoin_gold', async () => {
    const cash = p2pkhAddressOfPublicKey(chainParams('bitcoin_cash', 'mainnet'), key.publicKey);
    expect(cash).toMatch(/^bitcoincash:q/);
    expect((await t.request('GET', `/address/balance/bitcoin_cash/${cash}`)).status).toBe(200);
    const res = await t.request('GET', `/address/balance/bitcoin_gold/${cash}`);
    expect(res.status).toBe(400);
    expect(message(res)).toMatch(/bitcoin_cash/);
  });
});
