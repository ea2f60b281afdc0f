import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodedOf } from './blocks.ts';
import { applyBlocksPostgres, MARK_SPENT } from './pg-apply.ts';
import { openTestStore, type TestStore } from '../store/test-stores.ts';
import { UtxoIndexStore } from './utxo-index.ts';

const A = Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(0xaa), 0x88, 0xac]);
const block = (height: number, id: number) =>
  encodedOf({
    height,
    hash: `h${height}`.padEnd(64, '0'),
    time: 1_700_000_000 + height,
    txs: [{ txid: id.toString(16).padStart(64, '0'), inputs: [], outputs: [{ vout: 0, script: A, amount: 5n }] }],
  });

// Commits of the index are asynchronous on PostgreSQL, so after a server crash the stored tip may
// be behind the writer's: a batch that does not follow the stored tip is refused, not written.
describe('the PostgreSQL index write path', () => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore('postgres');
  });
  afterEach(async () => t.dispose());

  it('refuses a batch that does not follow the stored tip, and writes nothing of it', async () => {
    const pool = t.store.pgPool;
    if (!pool) throw new Error('a PostgreSQL store has its pool');
    const index = new UtxoIndexStore(t.store, 'litecoin');
    index.cacheBalances = false; // the writes below bypass it
    await applyBlocksPostgres(pool, 'litecoin', [block(1, 1)], []);
    await expect(applyBlocksPostgres(pool, 'litecoin', [block(3, 3)], [])).rejects.toThrow(/tip is at height 1: the next block to index is 2, not 3/);
    await expect(applyBlocksPostgres(pool, 'litecoin', [block(1, 4)], [])).rejects.toThrow(/next block to index is 2, not 1/);
    expect(await index.tip()).toEqual({ height: 1, hash: block(1, 1).hash });
    expect(await index.balances([A])).toEqual([{ confirmed: 5n, unconfirmed: 0n }]);
    await applyBlocksPostgres(pool, 'litecoin', [block(2, 2)], []);
    expect(await index.balances([A])).toEqual([{ confirmed: 10n, unconfirmed: 0n }]);
  });

  it('marks spends through the primary key, never through the partial index of unspent outputs', async () => {
    const pool = t.store.pgPool;
    if (!pool) throw new Error('a PostgreSQL store has its pool');
    // Planner settings as a bulk load leaves them: statistics of an empty table. At a million
    // transactions the partial index's plan scanned every unspent output for each key.
    const client = await pool.connect();
    try {
      const explained = await client.query<{ 'QUERY PLAN': string }>(`explain ${MARK_SPENT}`, ['litecoin', null, null, null]);
      const plan = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index Scan using chain_outputs_pk on chain_outputs/);
      expect(plan).not.toMatch(/chain_outputs_unspent/);
      expect(plan).toMatch(/Tid Scan on chain_outputs/);
    } finally {
      client.release();
    }
  });
});
