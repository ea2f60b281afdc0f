// The indexer against a real litecoind, on SQLite and on PostgreSQL: it reaches the node's tip,
// agrees with the node's UTXO set, resumes after a restart without starting over, and rolls back
// a reorganisation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { addressToScript, p2pkhAddressOfPublicKey } from '../../../shared/coins/address.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { chainParams } from '../../../shared/coins/coin-table.ts';
import { fundedNode, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../../store/test-stores.ts';
import { UtxoIndexStore } from '../../index/utxo-index.ts';
import { testKey } from '../../test/keys.ts';
import { UtxoIndexer } from './indexer.ts';
import { coinsToUnits, RpcClient } from './rpc-client.ts';

const params = chainParams('litecoin', 'regtest');
const log = pino({ level: 'silent' });
const key = testKey('indexer');
const address = p2pkhAddressOfPublicKey(params, key.publicKey);
const script = addressToScript(params, address);

let node: RegtestNode;
beforeAll(async () => {
  node = await fundedNode();
  for (let i = 0; i < 5; i++) await node.fundScript(script, BigInt(i + 1) * 1_000_000n);
  await node.mine(3);
});
afterAll(async () => node?.stop());

async function nodeTotal(): Promise<bigint> {
  const res = await node.rpc.call<{ total_amount: number }>('scantxoutset', ['start', [`raw(${bytesToHex(script)})`]]);
  return coinsToUnits(res.total_amount);
}

describe.each(STORE_KINDS)('UTXO indexer on %s', (kind) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(kind);
  });
  afterAll(async () => t?.dispose());

  const indexerOn = (index: UtxoIndexStore) => new UtxoIndexer({ rpc: new RpcClient(node.rpcConfig), index, params, log, pollIntervalMs: 50 });

  it('catches up with the node and agrees with its UTXO set', async () => {
    const index = new UtxoIndexStore(t.store, 'litecoin');
    const indexer = indexerOn(index);
    await indexer.sync();
    const tip = await node.rpc.call<number>('getblockcount');
    expect(indexer.status()).toMatchObject({ tipHeight: tip, indexedHeight: tip, error: null });
    expect((await index.balances([script]))[0]!.confirmed).toBe(await nodeTotal());
  });

  it('resumes after a restart from where it stopped', async () => {
    const before = await node.rpc.call<number>('getblockcount');
    await node.fundScript(script, 7_000_000n);
    await node.mine(2);
    const reopened = new UtxoIndexStore(await t.reopen(), 'litecoin');
    expect((await reopened.tip())!.height).toBe(before); // nothing lost, nothing re-indexed yet
    const indexer = indexerOn(reopened);
    indexer.start(); // the polling loop, as in production
    await expect.poll(async () => (await reopened.tip())?.height, { timeout: 20_000 }).toBe(before + 2);
    await indexer.stop();
    expect((await reopened.balances([script]))[0]!.confirmed).toBe(await nodeTotal());
  });

  it('rolls back a reorganisation to the fork point', async () => {
    const index = new UtxoIndexStore(t.store, 'litecoin');
    const indexer = indexerOn(index);
    const [hash] = await node.mine(1, address); // a coinbase to our address
    await indexer.sync();
    const withBlock = (await index.balances([script]))[0]!.confirmed;
    await node.rpc.call('invalidateblock', [hash]);
    await node.mine(2); // a longer branch without it
    await indexer.sync();
    expect((await index.balances([script]))[0]!.confirmed).toBe(await nodeTotal());
    expect((await index.balances([script]))[0]!.confirmed).toBeLessThan(withBlock);
    expect((await index.tip())!.hash).toBe(await node.rpc.call<string>('getbestblockhash'));
    await node.rpc.call('reconsiderblock', [hash]); // shorter branch: stays stale
  });
});
