// The watch API over HTTP (docs/api-decisions.md section 10): a vault registered by one API key is
// scanned and answered; bad descriptors, unregistered addresses, another key's wallet and a coin
// on the full index each get their 4xx in words.
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, nodeRpcBackendConfig, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { bytesToHex, chainParams, sha256 } from '../../shared/coins/index.ts';
import { deriveAddress } from '../../shared/coins/multisig-address.ts';
import { formatMultisigDescriptor } from '../../shared/files/descriptor.ts';
import type { NodeRpcBackend } from '../chains/utxo/node-rpc-backend.ts';
import { createApiKey } from '../store/api-keys.ts';
import { startTestService, type TestService } from '../test/http-service.ts';

const bip32 = BIP32Factory(ecc);
const TEST_NET = { messagePrefix: '', bech32: 'tb', bip32: { public: 0x043587cf, private: 0x04358394 }, pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const params = chainParams('litecoin', 'regtest');
const KEYS = ['dora', 'eve', 'finn'].map((who) => {
  const root = bip32.fromSeed(Buffer.from(sha256(new TextEncoder().encode(`watch api ${who}`))), TEST_NET);
  return { name: who, xpub: root.derivePath("m/48'/1'/0'/1'").neutered().toBase58(), fingerprint: bytesToHex(root.fingerprint), derivationPath: "m/48'/1'/0'/1'" };
});
const SCRIPT = { scriptType: 'p2sh-p2wsh' as const, sortKeys: true };
const RECEIVE = formatMultisigDescriptor(2, KEYS, '/0/*', true, SCRIPT);
const CHANGE = formatMultisigDescriptor(2, KEYS, '/1/*', true, SCRIPT);
const address = (index: number) => deriveAddress(params, 2, KEYS.map((k) => k.xpub), false, index, SCRIPT).address;

describe('the watch API', () => {
  let node: RegtestNode;
  let t: TestService;
  let otherKey: string;

  beforeAll(async () => {
    node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
    const backend = nodeRpcBackendConfig(node, 100);
    t = await startTestService({ coins: { litecoin: { network: 'regtest', backend: { ...backend, index: 'watch' } }, dash: { network: 'regtest', backend } } });
    otherKey = (await createApiKey(t.service.store, 'another desk')).key;
  }, 120_000);
  afterAll(async () => {
    await t?.dispose();
    await node?.stop();
  });

  const synced = () => (t.service.backends.get('litecoin') as NodeRpcBackend).indexer.sync();

  it('registers a vault by receive and change descriptors and answers its addresses once scanned', async () => {
    const birthday = (await node.rpc.call<number>('getblockcount')) + 1;
    const put = await t.request('PUT', '/v2/watch/litecoin/treasury', { descriptors: [RECEIVE, CHANGE], birthday_height: birthday });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ birthday_height: birthday, state: 'scanning' });
    await node.rpc.call('sendtoaddress', [address(3), 2.5]);
    await node.mine(1);
    await synced();
    const status = await t.request('GET', '/v2/watch/litecoin/treasury');
    // The one block of the vault, fetched twice: using address 3 derived up to 23 (the gap limit),
    // and the blocks were read again for the new scripts.
    expect(status.json).toMatchObject({ state: 'ready', filters: true, blocks_fetched: 2, blocks_matched: 2, scanned_height: birthday });
    const balance = await t.request('GET', `/v2/address/balance/litecoin/${address(3)}`);
    expect(balance.status).toBe(200);
    expect(balance.json).toMatchObject({ balance: 250_000_000n });

    const rescan = await t.request('POST', '/v2/watch/litecoin/treasury/rescan', { from_height: birthday });
    expect(rescan.status).toBe(200);
    await synced();
    expect((await t.request('GET', '/v2/watch/litecoin/treasury')).json).toMatchObject({ state: 'ready', blocks_fetched: 3 });
  }, 120_000);

  it('refuses in words: an address nobody registered, a taproot descriptor, another key\'s wallet, a coin on the full index', async () => {
    const stranger = await t.request('GET', `/v2/address/balance/litecoin/${await node.newAddress('bech32')}`);
    expect(stranger.status).toBe(404);
    expect(JSON.stringify(stranger.json)).toMatch(/belongs to no wallet this service watches/);

    const taproot = await t.request('PUT', '/v2/watch/litecoin/tr', { descriptors: [`tr(${KEYS[0]!.xpub}/<0;1>/*)`], birthday_height: null });
    expect(taproot.status).toBe(400);
    expect(JSON.stringify(taproot.json)).toMatch(/taproot/);

    const mixed = await t.request('PUT', '/v2/watch/litecoin/mixed', { descriptors: [RECEIVE, formatMultisigDescriptor(2, KEYS.slice(0, 2).concat(KEYS[0]!), '/1/*', true, SCRIPT)], birthday_height: 0 });
    expect(mixed.status).toBe(400);

    const theirs = await t.service.app.inject({ method: 'GET', url: '/v2/watch/litecoin/treasury', headers: { 'x-api-key': otherKey } });
    expect(theirs.statusCode).toBe(404);
    expect(JSON.parse(theirs.body)).toMatchObject({ message: expect.stringMatching(/no wallet "treasury" is registered by this API key/) });

    const full = await t.request('PUT', '/v2/watch/dash/treasury', { descriptors: [RECEIVE], birthday_height: 0 });
    expect(full.status).toBe(409);
    expect(JSON.stringify(full.json)).toMatch(/full address index/);
  }, 60_000);
});
