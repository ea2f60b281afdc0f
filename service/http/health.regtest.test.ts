// /readyz and the index gauges against a real node: an instance whose index falls behind the tip
// (here: another session holds its coin's lock, so nobody indexes) is not ready, saying which coin
// lags and by how much; once it may index and catches up, it is ready again.
// Needs litecoind and PostgreSQL (fails, naming what is missing).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, type RegtestNode } from '../../dev/chains/litecoind.ts';
import { advisoryLockKey } from '../leader/advisory-lock.ts';
import type { Service } from '../service.ts';
import { sharedSchema, type SharedSchema } from '../test/shared-postgres.ts';
import { until } from '../test/until.ts';

let node: RegtestNode;
let db: SharedSchema;
let service: Service | undefined;

const start = () => db.instance(node, { readiness: { maxLagBlocks: 3 }, leader: { retrySeconds: 0.2 } });

async function readyz(s: Service): Promise<{ status: number; body: { ready: boolean; message?: string } }> {
  const res = await s.app.inject({ method: 'GET', url: '/readyz' });
  return { status: res.statusCode, body: JSON.parse(res.body) as { ready: boolean; message?: string } };
}
const metrics = async (s: Service) => (await s.app.inject({ method: 'GET', url: '/metrics' })).body;

beforeAll(async () => {
  db = await sharedSchema('cs_ready', 'the readiness test');
  node = await fundedNode();
});

afterAll(async () => {
  await service?.close();
  await db?.dispose();
  await node?.stop();
});

describe('/readyz on a real node', () => {
  it('is ready once the index has caught up with the node', async () => {
    service = await start();
    service.startIndexers();
    const ready = await until('the first catch-up', async () => {
      const r = await readyz(service!);
      return r.status === 200 ? r : undefined;
    });
    expect(ready.body.ready).toBe(true);
    // a clean close releases the lock for the next instance
    await service.close();
    service = undefined;
  });

  it('is 503 naming the coin and its lag while nobody indexes it, and ready again once it may', async () => {
    // Another session holds litecoin's lock: the new instance can only watch.
    const key = advisoryLockKey(db.schema, 'litecoin').toString();
    expect((await db.admin.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key])).rows[0]!.ok).toBe(true);
    service = await start();
    service.startIndexers();
    const tip = await node.rpc.call<number>('getblockcount');
    await until('the follower to see the index at the tip', async () => ((await readyz(service!)).status === 200 ? true : undefined));

    await node.mine(5);
    const lagging = await until('the follower to see the node 5 blocks ahead', async () => {
      const r = await readyz(service!);
      return r.status === 503 ? r : undefined;
    });
    expect(lagging.body).toMatchObject({
      ready: false,
      message: `not ready: litecoin: the index lags the node's tip by 5 blocks (${tip} of ${tip + 5}; at most 3 allowed)`,
    });
    const text = await metrics(service);
    expect(text).toContain('countersign_index_lag_blocks{coin="litecoin"} 5');
    expect(text).toContain(`countersign_indexed_height{coin="litecoin"} ${tip}`);
    expect(text).toContain('countersign_index_leader{coin="litecoin"} 0');

    await db.admin.query('select pg_advisory_unlock($1::bigint)', [key]);
    await until('the instance to take the lock and catch up', async () => ((await readyz(service!)).status === 200 ? true : undefined));
    const after = await metrics(service);
    expect(after).toContain('countersign_index_lag_blocks{coin="litecoin"} 0');
    expect(after).toContain('countersign_index_leader{coin="litecoin"} 1');
  });
});
