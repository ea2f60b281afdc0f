// Payments back to back from the same source, over HTTP on litecoind -regtest, without waiting for
// the index between them: the second never selects what the first just spent, both broadcast and
// both confirm. A broadcast the node rejects excludes nothing; a reorg that puts the payments back
// in the mempool offers their inputs no more than before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p2pkhAddressOfPublicKey } from '../../../shared/coins/address.ts';
import { bytesToHex } from '../../../shared/coins/bytes.ts';
import { hash160 } from '../../../shared/coins/hash.ts';
import { p2pkhScript } from '../../../shared/coins/script.ts';
import { decodeTxHex } from '../../../shared/coins/tx.ts';
import { startRegtestService, type RegtestService } from '../../test/regtest-service.ts';
import { testKey, type TestKey } from '../../test/keys.ts';

const COIN = 100_000_000n;
const alice = testKey('spends alice');
const carol = testKey('spends carol');
const bob = testKey('spends bob');

let t: RegtestService;
let to: string;

beforeAll(async () => {
  t = await startRegtestService(['litecoin']);
  to = p2pkhAddressOfPublicKey(t.backend('litecoin').params, bob.publicKey);
  for (const k of [alice, alice, carol, carol]) await t.node.fundScript(p2pkhScript(hash160(k.publicKey)), COIN);
  await t.node.mine(1);
  await t.synced();
});
afterAll(async () => t?.dispose());

const show = (json: unknown) => JSON.stringify(json, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

interface Created {
  tx: string;
  hashes: { input_index: number; public_key: string; hash_to_sign: string }[];
}

async function create(from: TestKey, amount: bigint): Promise<Created> {
  const res = await t.request('POST', `/transaction/create/litecoin?to=${to}&from=${from.publicKeyHex}&amount=${amount}`);
  expect(res.status, show(res.json)).toBe(200);
  return res.json as Created;
}

function send(p: Created, key: TestKey) {
  const signatures = p.hashes.map((h) => ({ ...h, signature: key.sign(h.hash_to_sign) }));
  return t.request('POST', '/transaction/sign_and_send/litecoin', { tx: p.tx, signatures });
}

const inputs = (p: Created) => decodeTxHex(p.tx).inputs.map((i) => `${bytesToHex(i.prevTxid)}:${i.vout}`);

async function sent(p: Created, key: TestKey): Promise<string> {
  const res = await send(p, key);
  expect(res.status, show(res.json)).toBe(200);
  return (res.json as { message: string }).message;
}

async function confirmations(txid: string): Promise<number> {
  return (await t.node.rpc.call<{ confirmations?: number }>('getrawtransaction', [txid, true])).confirmations ?? 0;
}

describe('outputs this service just spent', () => {
  let first: Created;
  let second: Created;

  it('are not offered to the next payment, which broadcasts and confirms too', async () => {
    first = await create(alice, COIN / 2n);
    const txid1 = await sent(first, alice);
    // no wait for the index: the next payment is built at once
    second = await create(alice, COIN / 2n);
    expect(inputs(second).filter((o) => inputs(first).includes(o))).toEqual([]);
    const txid2 = await sent(second, alice);
    await t.node.mine(1);
    expect([await confirmations(txid1), await confirmations(txid2)]).toEqual([1, 1]);
  });

  it('a reorg that returns the payments to the mempool does not offer their inputs again', async () => {
    await t.synced();
    const tip = await t.node.rpc.call<string>('getbestblockhash');
    await t.node.rpc.call('invalidateblock', [tip]);
    await t.synced();
    expect(await t.node.rpc.call<string[]>('getrawmempool')).toHaveLength(2);
    const third = await create(alice, COIN / 10n);
    expect(inputs(third).filter((o) => [...inputs(first), ...inputs(second)].includes(o))).toEqual([]);
    await t.node.rpc.call('reconsiderblock', [tip]);
    await t.synced();
  });

  it('a broadcast the node rejected excludes nothing', async () => {
    const small = await create(carol, COIN / 2n); // one of carol's two outputs
    const both = await create(carol, (3n * COIN) / 2n); // both, one of them the one above
    expect(inputs(both)).toHaveLength(2);
    await sent(small, carol);
    const rejected = await send(both, carol);
    expect(rejected.status, show(rejected.json)).toBe(422);
    // the output only the rejected payment spent is still offered, the other one is not
    const next = await create(carol, COIN / 2n);
    expect(inputs(next)).toEqual(inputs(both).filter((o) => !inputs(small).includes(o)));
    const txid = await sent(next, carol);
    await t.node.mine(1);
    expect(await confirmations(txid)).toBe(1);
  });
});
