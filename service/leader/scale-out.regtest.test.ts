// Scale-out: two service instances on one PostgreSQL schema and one litecoind -regtest. Only the
// elected instance indexes; both answer the same balances from the shared tables; a follower never
// answers from a stale cache; when the leader's lock session dies the other takes over and indexes
// new blocks; a broadcast through a follower works and does not make it index.
// Needs litecoind and PostgreSQL (fails, naming what is missing).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { parseApiJson } from '../../shared/api/json.ts';
import { p2pkhAddressOfPublicKey } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { testKey } from '../test/keys.ts';
import type { Balance, Status } from '../../shared/api/schemas.ts';
import type { NodeRpcBackend } from '../chains/utxo/node-rpc-backend.ts';
import type { Service } from '../service.ts';
import { createApiKey } from '../store/api-keys.ts';
import { sharedSchema, type SharedSchema } from '../test/shared-postgres.ts';
import { until } from '../test/until.ts';

const COIN = 100_000_000n;

let node: RegtestNode;
let db: SharedSchema;
let leader: Service; // A: starts first, retries the lock only every minute once it has lost it
let follower: Service; // B: retries the lock every 200 ms
let key: string;
/** Index writes each instance made, recorded at the store's write methods. */
const writes = new Map<Service, number>();

function countWrites(s: Service): void {
  const index = (s.backends.get('litecoin') as NodeRpcBackend).index;
  writes.set(s, 0);
  for (const method of ['applyBlocks', 'applyMempoolTx', 'removeMempoolTxs', 'rollbackTo'] as const) {
    const original = index[method].bind(index) as (...args: unknown[]) => Promise<void>;
    (index as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      writes.set(s, (writes.get(s) ?? 0) + 1);
      return original(...args);
    };
  }
}
// Not the node wallet's: the wallet never spends from it, so its balance only grows.
const address = p2pkhAddressOfPublicKey(chainParams('litecoin', 'regtest'), testKey('scale-out').publicKey);

async function get<T>(s: Service, url: string): Promise<T> {
  const res = await s.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return parseApiJson(res.body) as T;
}

const litecoin = async (s: Service) => (await get<Status>(s, '/status')).coins.find((c) => c.coin === 'litecoin')!;
const balance = (s: Service) => get<Balance>(s, `/address/balance/litecoin/${address}`);
const tip = () => node.rpc.call<number>('getblockcount');
const indexedAt = (s: Service, height: number) => until(`an index at height ${height}`, async () => ((await litecoin(s)).indexed_height === height ? true : undefined));

const start = (retrySeconds: number): Promise<Service> => db.instance(node, { leader: { retrySeconds } });

beforeAll(async () => {
  db = await sharedSchema('cs_scale', 'the scale-out test');
  node = await fundedNode();
  leader = await start(60);
  key = (await createApiKey(leader.store, 'scale-out')).key; // one table: the key works on both
  countWrites(leader);
  leader.startIndexers();
  await until('the first instance to lead', async () => ((await litecoin(leader)).role === 'leader' ? true : undefined));
  follower = await start(0.2);
  countWrites(follower);
  follower.startIndexers();
});

afterAll(async () => {
  await follower?.close();
  await leader?.close();
  await db?.dispose();
  await node?.stop();
});

describe('two instances on one PostgreSQL', () => {
  it('elects one indexer: the other reports itself a follower and writes nothing', async () => {
    await indexedAt(leader, await tip());
    await until('the follower to try the lock a few times', async () => (follower.election!.attempts >= 3 ? true : undefined));
    expect((await litecoin(leader)).role).toBe('leader');
    expect((await litecoin(follower)).role).toBe('follower');
    expect(follower.election!.leads('litecoin')).toBe(false);
    // the follower watches the node and the shared tables: same height, known tip
    const seen = await until('the follower to see the shared index', async () => {
      const s = await litecoin(follower);
      return s.indexed_height === (await tip()) && s.tip_height !== null ? s : undefined;
    });
    expect(seen.lag).toBe(0);
    expect(writes.get(follower)).toBe(0);
    expect((await follower.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('serves the same balances from both, and the follower never answers from a stale cache', async () => {
    // Both answer (and the leader caches) the empty balance first.
    expect((await balance(leader)).balance).toBe(0n);
    expect((await balance(follower)).balance).toBe(0n);
    await node.walletRpc.call('sendtoaddress', [address, 1.5]);
    const [hash] = await node.mine(1);
    expect(hash).toBeDefined();
    await indexedAt(leader, await tip());
    // No waiting on the follower: once the leader has written the block, its next answer has it.
    expect((await balance(follower)).balance).toBe((3n * COIN) / 2n);
    expect((await balance(leader)).balance).toBe((3n * COIN) / 2n);
  });

  it('a broadcast through the follower reaches the node, and the follower still does not index', async () => {
    const raw = await node.walletRpc.call<string>('createrawtransaction', [[], { [address]: 0.25 }]);
    const funded = await node.walletRpc.call<{ hex: string }>('fundrawtransaction', [raw]);
    const signed = await node.walletRpc.call<{ hex: string }>('signrawtransactionwithwallet', [funded.hex]);
    const res = await follower.app.inject({ method: 'POST', url: `/transaction/send_raw/litecoin?rawtx=${signed.hex}`, headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(200);
    const txid = (JSON.parse(res.body) as { message: string }).message;
    expect(await node.rpc.call<string[]>('getrawmempool')).toContain(txid);
    // The leader's mempool pass shows it, on both instances.
    const seen = await until('the leader to index the broadcast as unconfirmed', async () => {
      const b = await balance(follower);
      return b.unconfirmed_balance === COIN / 4n ? b : undefined;
    });
    expect(seen.unconfirmed_balance).toBe(COIN / 4n);
    expect((await litecoin(follower)).role).toBe('follower');
    // everything so far was written by the leader alone, the broadcast's mempool entry included
    expect(writes.get(follower)).toBe(0);
    expect(writes.get(leader)).toBeGreaterThan(0);
  });

  it('when the leader dies uncleanly, the follower takes over and indexes new blocks; the old leader serves fresh balances', async () => {
    const before = await balance(leader); // cached by the leader
    // The leader's lock session ends without an unlock, as when its process or host dies.
    const pid = leader.election!.sessionPid;
    expect(pid).not.toBeNull();
    await db.admin.query('select pg_terminate_backend($1)', [pid]);

    await until('the follower to take over', async () => ((await litecoin(follower)).role === 'leader' ? true : undefined));
    expect((await litecoin(leader)).role).toBe('follower');
    const leaderWrites = writes.get(leader);
    expect((await balance(leader)).balance).toBe(before.balance); // asked again as a follower, before the next block

    await node.walletRpc.call('sendtoaddress', [address, 2]);
    await node.mine(2);
    const height = await tip();
    await indexedAt(follower, height);
    const expected = before.balance + COIN / 4n + 2n * COIN;
    expect((await balance(follower)).balance).toBe(expected);
    // The old leader gave up its cache with its lock: its next answer is the new one.
    expect((await balance(leader)).balance).toBe(expected);
    expect((await balance(leader)).unconfirmed_balance).toBe(0n);
    expect(writes.get(follower)).toBeGreaterThan(0); // the new leader indexed the new blocks
    expect(writes.get(leader)).toBe(leaderWrites); // the old one wrote nothing more
  });
});
