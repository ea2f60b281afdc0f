// Address queries over the index's keys (migration 0004): pages, totals and unspent outputs agree
// with a recomputation from the blocks themselves, through spends and rollbacks, and their plans
// read one script's rows by key instead of every row of its history.
import { CompiledQuery, sql } from 'kysely';
import { allUnspent } from '../test/all-unspent.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_STORE_KINDS, openTestStore, type StoreKind, type TestStore } from '../store/test-stores.ts';
import { type IndexedBlock, type IndexedTx, levelIndexOf, UtxoIndexStore } from './utxo-index.ts';
import { confirmedHistoryQuery, confirmedUnspentQuery } from './queries.ts';
import { scriptHash, scriptKeyOf } from './script-keys.ts';
import { fundingKey, fundingValue } from './level-rows.ts';
import type { Store } from '../store/database.ts';
import { AddressTooLarge } from '../errors.ts';

const txid = (n: number) => n.toString(16).padStart(64, '0');
const script = (byte: number, length = 25) => Uint8Array.from({ length }, (_, i) => (i < 3 ? i : byte));
const A = script(0xaa);
const B = script(0xbb, 23);
const C = script(0xcc);
const NOBODY = script(0xdd);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function block(height: number, txs: IndexedTx[]): IndexedBlock {
  return { height, hash: `b${height.toString(16).padStart(63, '0')}`, time: 1_700_000_000 + height, txs };
}

/**
 * A chain where A receives a coinbase in every block and spends the previous one to B and C (two
 * history rows a block), B and C receive small payments in other txs of the same block (several
 * positions per block), and now and then a tx pays A and B at once.
 */
function chainOf(heights: number): IndexedBlock[] {
  const blocks: IndexedBlock[] = [];
  let id = 1;
  let previous: string | null = null;
  for (let h = 1; h <= heights; h++) {
    const cb = txid(id++);
    const txs: IndexedTx[] = [{ txid: cb, inputs: [], outputs: [{ vout: 0, script: A, amount: 1_000n + BigInt(h) }] }];
    if (previous) {
      txs.push({ txid: txid(id++), inputs: [{ txid: previous, vout: 0 }], outputs: [{ vout: 0, script: B, amount: 600n }, { vout: 1, script: C, amount: 300n }] });
    }
    if (h % 3 === 0) txs.push({ txid: txid(id++), inputs: [], outputs: [{ vout: 0, script: C, amount: 7n }, { vout: 1, script: B, amount: 5n }] });
    if (h % 5 === 0) txs.push({ txid: txid(id++), inputs: [], outputs: [{ vout: 0, script: A, amount: 11n }, { vout: 1, script: B, amount: 13n }, { vout: 2, script: A, amount: 17n }] });
    blocks.push(block(h, txs));
    previous = cb;
  }
  return blocks;
}

interface RefRow {
  script: string;
  txid: string;
  height: number;
  position: number;
  delta: bigint;
}

/** History and unspent outputs computed from the blocks alone, the plain way. */
function reference(blocks: readonly IndexedBlock[]) {
  const outputs = new Map<string, { script: string; amount: bigint; height: number; position: number; vout: number; txid: string; spent: boolean }>();
  const history: RefRow[] = [];
  for (const b of blocks) {
    b.txs.forEach((tx, position) => {
      const deltas = new Map<string, bigint>();
      for (const i of tx.inputs) {
        const o = outputs.get(`${i.txid}:${i.vout}`);
        if (!o) continue;
        o.spent = true;
        deltas.set(o.script, (deltas.get(o.script) ?? 0n) - o.amount);
      }
      for (const o of tx.outputs) {
        outputs.set(`${tx.txid}:${o.vout}`, { script: hex(o.script), amount: o.amount, height: b.height, position, vout: o.vout, txid: tx.txid, spent: false });
        deltas.set(hex(o.script), (deltas.get(hex(o.script)) ?? 0n) + o.amount);
      }
      for (const [s, delta] of deltas) history.push({ script: s, txid: tx.txid, height: b.height, position, delta });
    });
  }
  // hex order is byte order for txids and scripts
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  history.sort((x, y) => y.height - x.height || y.position - x.position || cmp(x.txid, y.txid) || cmp(x.script, y.script));
  const unspent = [...outputs.values()].filter((o) => !o.spent).sort((x, y) => x.height - y.height || x.position - y.position || x.vout - y.vout);
  return {
    page: (scripts: readonly Uint8Array[], limit: number, offset: number) => {
      const wanted = new Set(scripts.map(hex));
      const rows = history.filter((r) => wanted.has(r.script));
      return { total: rows.length, rows: rows.slice(offset, offset + limit).map((r) => [r.script, r.txid, r.height, r.delta]) };
    },
    unspent: (scripts: readonly Uint8Array[]) => {
      const wanted = new Set(scripts.map(hex));
      return unspent.filter((o) => wanted.has(o.script)).map((o) => [o.txid, o.vout, o.script, o.amount, o.height]);
    },
    balance: (s: Uint8Array) => history.filter((r) => r.script === hex(s)).reduce((sum, r) => sum + r.delta, 0n),
    /** Every output ever made (spent or not), as outpoints. */
    outpoints: () => [...outputs.values()].map((o) => ({ txid: o.txid, vout: o.vout })),
  };
}

const pageOf = async (index: UtxoIndexStore, scripts: readonly Uint8Array[], limit: number, offset: number) => {
  const page = await index.history(scripts, limit, offset);
  return { total: page.total, rows: page.rows.map((r) => [hex(r.script), r.txid, r.height, r.delta]) };
};
const unspentOf = async (index: UtxoIndexStore, scripts: readonly Uint8Array[]) =>
  (await allUnspent(index, scripts)).map((u) => [u.txid, u.vout, hex(u.script), u.amount, u.height]);

const SCRIPT_SETS: Uint8Array[][] = [[A], [B], [C], [NOBODY], [A, B], [B, A, A], [A, B, C, NOBODY]];
const PAGES: Array<[number, number]> = [[1, 0], [10, 0], [25, 0], [7, 13], [50, 100], [1000, 0], [30, 380], [5, 10_000]];

async function expectAgrees(index: UtxoIndexStore, blocks: readonly IndexedBlock[]): Promise<void> {
  const ref = reference(blocks);
  for (const scripts of SCRIPT_SETS) {
    for (const [limit, offset] of PAGES) expect(await pageOf(index, scripts, limit, offset), `${scripts.map(hex).join(',')} ${limit}@${offset}`).toEqual(ref.page(scripts, limit, offset));
    expect(await unspentOf(index, scripts)).toEqual(ref.unspent(scripts));
  }
  // named outputs looked up by key (coin control): every output ever made, spent ones among them, and one that never was
  const named = [...ref.outpoints(), { txid: txid(999_999), vout: 0 }];
  const found = [...(await index.unspentAt([A, B, C, NOBODY], named)).values()].map((u) => [u.txid, u.vout, hex(u.script), u.amount, u.height]);
  const byPlace = (x: unknown[], y: unknown[]) => Number(x[4]) - Number(y[4]) || String(x[0]).localeCompare(String(y[0])) || Number(x[1]) - Number(y[1]);
  expect(found.sort(byPlace)).toEqual(ref.unspent([A, B, C, NOBODY]).sort(byPlace));
  expect((await index.balances([A, B, C])).map((b) => b.confirmed)).toEqual([ref.balance(A), ref.balance(B), ref.balance(C)]);
}

/** The query plan's lines: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN text. */
async function planOf(store: Store, query: { compile(): CompiledQuery }): Promise<string> {
  const compiled = query.compile();
  const explain = CompiledQuery.raw((store.dialect === 'sqlite' ? 'explain query plan ' : 'explain ') + compiled.sql, [...compiled.parameters]);
  if (store.dialect === 'sqlite') return (await store.db.executeQuery<{ detail: string }>(explain)).rows.map((r) => r.detail).join('\n');
  // In a test-sized table a sequential read is PostgreSQL's cheaper plan (and its statistics
  // cannot see that one script holds few unspent outputs): with it and bitmap scans off for this
  // transaction, the plan shows the index the query can use and whether the rows then need sorting.
  return store.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_bitmapscan = off`.execute(trx);
    return (await trx.executeQuery<{ 'QUERY PLAN': string }>(explain)).rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

describe.each(INDEX_STORE_KINDS)('address queries on %s', (kind: StoreKind) => {
  let t: TestStore;
  let index: UtxoIndexStore;
  beforeEach(async () => {
    t = await openTestStore(kind);
    index = new UtxoIndexStore(t.store, 'litecoin');
  });
  afterEach(async () => t.dispose());

  it('pages an address with many entries as a plain recomputation from the blocks does', async () => {
    const blocks = chainOf(240); // A: ~530 history rows; B ~370; C ~320
    for (let i = 0; i < blocks.length; i += 40) await index.applyBlocks(blocks.slice(i, i + 40), new Set());
    await expectAgrees(index, blocks);
    // mempool entries come first, then the confirmed page continues where the mempool ends
    await index.applyMempoolTx({ txid: txid(99_999), inputs: [], outputs: [{ vout: 0, script: A, amount: 1n }] }, 5);
    const ref = reference(blocks);
    const first = await index.history([A, B], 4, 0);
    expect(first.total).toBe(ref.page([A, B], 0, 0).total + 1);
    expect(first.rows[0]!.height).toBeNull();
    expect(first.rows.slice(1).map((r) => [hex(r.script), r.txid, r.height, r.delta])).toEqual(ref.page([A, B], 3, 0).rows);
    expect((await pageOf(index, [A, B], 20, 31)).rows).toEqual(ref.page([A, B], 20, 30).rows);
  });

  it('keeps totals, pages and unspent outputs right through rollbacks, with and without block content', async () => {
    const blocks = chainOf(60);
    // the LevelDB index finds a block's rows only from its content: without it, a rollback is refused
    for (const withContent of kind === 'level' ? [true] : [true, false]) {
      const chain = new UtxoIndexStore(t.store, withContent ? 'dash' : 'bitcoin');
      await chain.applyBlocks(blocks.slice(0, 30), new Set());
      for (const b of blocks.slice(30)) await chain.applyBlock(b, new Set());
      await expectAgrees(chain, blocks);
      const byHash = new Map(blocks.map((b) => [b.hash, b]));
      // un-spends A's coinbase of block 44, spent in block 45
      await chain.rollbackTo(44, async (hash) => (withContent ? (byHash.get(hash) ?? null) : null));
      await expectAgrees(chain, blocks.slice(0, 44));
      expect(await unspentOf(chain, [A])).toContainEqual([blocks[43]!.txs[0]!.txid, 0, hex(A), 1_044n, 44]);
      await chain.applyBlocks(blocks.slice(44), new Set());
      await expectAgrees(chain, blocks);
    }
  });

  it('undoes, by the content of the blocks, the spends a rollback cuts out of one batch (marks on the output rows)', async () => {
    const blocks = chainOf(60);
    await index.applyBlocks(blocks, new Set()); // every spend within the batch: written with its output
    const byHash = new Map(blocks.map((b) => [b.hash, b]));
    await index.rollbackTo(44, async (hash) => byHash.get(hash) ?? null);
    await expectAgrees(index, blocks.slice(0, 44));
    await index.applyBlocks(blocks.slice(44), new Set()); // now spends of an earlier batch's outputs
    await expectAgrees(index, blocks);
    // the SQL stores refuse a spend of a spent output (their mark is an update); LevelDB trusts the node's validation here
    if (kind !== 'level') await expect(index.applyBlocks([{ ...blocks[59]!, height: 61, hash: 'f'.repeat(64) }], new Set())).rejects.toThrow(/already spent/);
  });

  it('keeps the count of a script whose balance returns to zero, through a rollback', async () => {
    const receive = block(1, [{ txid: txid(1), inputs: [], outputs: [{ vout: 0, script: A, amount: 50n }] }]);
    const spendAll = block(2, [{ txid: txid(2), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 50n }] }]);
    const other = block(3, [{ txid: txid(3), inputs: [], outputs: [{ vout: 0, script: C, amount: 1n }] }]);
    await index.applyBlocks([receive, spendAll, other], new Set());
    expect((await index.balances([A]))[0]!.confirmed).toBe(0n);
    await index.rollbackTo(2, async (hash) => (hash === other.hash ? other : null));
    expect((await index.history([A], 10, 0)).total).toBe(2);
    expect((await index.history([C], 10, 0)).total).toBe(0);
    expect(await allUnspent(index, [A, C])).toEqual([]);
    // by scan (LevelDB: by content): the spend is undone, A's output unspent again
    await index.rollbackTo(1, async (hash) => (kind === 'level' ? ([spendAll, receive].find((b) => b.hash === hash) ?? null) : null));
    expect((await index.history([A, B], 10, 0)).total).toBe(1);
    expect(await unspentOf(index, [A, B])).toEqual([[txid(1), 0, hex(A), 50n, 1]]);
  });

  it('gives a txid repeated in a later block (BIP30) a history row of its own, undone on its own', async () => {
    const coinbase = { txid: txid(7), inputs: [], outputs: [{ vout: 0, script: A, amount: 50n }] };
    const b1 = block(1, [coinbase]);
    const b2 = block(2, [{ txid: txid(8), inputs: [], outputs: [{ vout: 0, script: B, amount: 1n }] }, coinbase]);
    await index.applyBlocks([b1, b2], new Set());
    const page = await index.history([A], 10, 0);
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => [r.txid, r.height, r.delta])).toEqual([
      [txid(7), 2, 50n],
      [txid(7), 1, 50n],
    ]);
    expect((await allUnspent(index, [A])).map((u) => [u.txid, u.height])).toEqual([[txid(7), 2]]); // the later output overwrote it
    await index.rollbackTo(1, async (hash) => (hash === b2.hash ? b2 : null));
    expect((await index.history([A], 10, 0)).rows.map((r) => [r.txid, r.height, r.delta])).toEqual([[txid(7), 1, 50n]]);
    // as before 0004: the first block's 50 stays in the balance; its output (overwritten) is gone
    // in the SQL stores, as in the node. LevelDB's rows hold no record of the overwrite once its
    // block is undone, so the first output is unspent again there (only two such pairs exist, on
    // Bitcoin, buried since 2010).
    expect((await index.balances([A]))[0]!.confirmed).toBe(50n);
    expect((await allUnspent(index, [A])).map((u) => [u.txid, u.height])).toEqual(kind === 'level' ? [[txid(7), 1]] : []);
  });

  // The SQL stores' own tables: their plans, their collision rows and their migrations.
  if (kind !== 'level') {
    it('keeps a script apart from another that holds its 8-byte key (a collision), through rollbacks', async () => {
      // A script standing for one whose key collides with A's, indexed before A
      const STRANGER = script(0xee);
      const key = scriptKeyOf(A);
      await sql`insert into chain_balances (chain, skey, script, confirmed, tx_count) values ('litecoin', ${key}, ${Buffer.from(STRANGER)}, 999, 1)`.execute(t.store.db);
      await sql`insert into chain_history (chain, skey, txnum, delta) values ('litecoin', ${key}, 0, 999)`.execute(t.store.db);
      const blocks = chainOf(60);
      await index.applyBlocks(blocks.slice(0, 30), new Set());
      for (const b of blocks.slice(30)) await index.applyBlock(b, new Set());
      await expectAgrees(index, blocks);
      const moved = await t.store.db.selectFrom('chain_script_keys').select(['script', 'skey']).where('chain', '=', 'litecoin').execute();
      expect(moved.map((r) => hex(r.script))).toEqual([hex(A)]);
      expect(hex(moved[0]!.skey)).not.toBe(hex(key));
      // its row, untouched (its real twin would read it by its own key, which is A's)
      const stranger = async () => {
        const row = await t.store.db.selectFrom('chain_balances').select(['script', 'confirmed']).where('skey', '=', key).executeTakeFirstOrThrow();
        return hex(row.script) === hex(STRANGER) ? BigInt(row.confirmed) : null;
      };
      expect(await stranger()).toBe(999n);
      const byHash = new Map(blocks.map((b) => [b.hash, b]));
      await index.rollbackTo(44, async (hash) => byHash.get(hash) ?? null);
      await expectAgrees(index, blocks.slice(0, 44));
      await index.rollbackTo(0); // by scan: A has no rows left, and no moved key
      expect(await t.store.db.selectFrom('chain_script_keys').selectAll().execute()).toEqual([]);
      expect(await stranger()).toBe(999n);
      expect((await index.history([A], 10, 0)).total).toBe(0);
      await index.applyBlocks(blocks, new Set());
      await expectAgrees(index, blocks);
      expect(await stranger()).toBe(999n);
    });

    it('reads the first history page and the unspent outputs of one script by key, with no sort of its rows', async () => {
      // A: 800 history rows and one unspent output; B and C: 400 unspent outputs each
      const blocks = Array.from({ length: 400 }, (_, i) => {
        const h = i + 1;
        const txs: IndexedTx[] = [{ txid: txid(2 * h), inputs: [], outputs: [{ vout: 0, script: A, amount: 100n }] }];
        if (h > 1) txs.push({ txid: txid(2 * h + 1), inputs: [{ txid: txid(2 * h - 2), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 60n }, { vout: 1, script: C, amount: 40n }] });
        return block(h, txs);
      });
      for (let i = 0; i < blocks.length; i += 50) await index.applyBlocks(blocks.slice(i, i + 50), new Set());
      const db = t.store.db;
      const history = await planOf(t.store, confirmedHistoryQuery(db, 'litecoin', [scriptKeyOf(A)], { limit: 25, offset: 0 }));
      // a later page of B's: a range of the partial index from the cursor, cut by the LIMIT, no sort
      const unspent = await planOf(t.store, confirmedUnspentQuery(db, 'litecoin', Buffer.from(B), kind, { after: { txnum: 200 * 2 ** 20 + 1, vout: 0 }, limit: 25 }));
      expect((await confirmedUnspentQuery(db, 'litecoin', Buffer.from(B), kind, { after: { txnum: 200 * 2 ** 20 + 1, vout: 0 }, limit: 25 }).execute()).map((r) => Number(r.txnum) >>> 0)).toHaveLength(25);
      expect(await unspentOf(index, [A])).toEqual([[txid(800), 0, hex(A), 100n, 400]]);
      if (kind === 'sqlite') {
        // the page's rows by key (a co-routine: the page is cut first), then each row's block time
        // and txid by key: no scan of a table, no sort
        expect(history.split('\n')).toEqual([
          'CO-ROUTINE h',
          'SEARCH chain_history USING PRIMARY KEY (chain=? AND skey=?)',
          'SCAN h',
          'SEARCH b USING INDEX sqlite_autoindex_chain_blocks_1 (chain=? AND height=?)',
          'SEARCH t USING PRIMARY KEY (chain=? AND txnum=?)',
        ]);
        expect(unspent.split('\n')).toEqual(['SEARCH o USING INDEX chain_outputs_unspent (chain=? AND script=? AND (txnum,vout)>(?,?))', 'SEARCH t USING PRIMARY KEY (chain=? AND txnum=?)']);
      } else {
        // the page is cut from chain_history (a Limit right on its index scan) before any join, so
        // a bulk load's stale statistics cannot join an address's whole history to keep 25 rows
        expect(history).toMatch(/-> {2}Limit .*\n\s+-> {2}Index Scan Backward using chain_history_pk on chain_history/);
        expect(history).toMatch(/Index Scan using chain_txids_pk on chain_txids/);
        expect(history).toMatch(/Index Scan using chain_blocks_pk on chain_blocks/);
        expect(unspent).toMatch(/Index Scan using chain_outputs_unspent on chain_outputs/);
        expect(unspent).toMatch(/Index Scan using chain_txids_pk on chain_txids/);
        for (const plan of [history, unspent]) expect(plan).not.toMatch(/Sort|Seq Scan|Bitmap/);
      }
    });

    it('drops an index written before script keys (0007): the store holds no index until it is built again', async () => {
      const old = await openTestStore(kind, '0007_tx_numbers');
      try {
        const blocks = chainOf(20);
        await sql`insert into chain_blocks (chain, height, hash, time) values ('litecoin', 1, ${blocks[0]!.hash}, 1)`.execute(old.store.db);
        await sql`insert into chain_history (chain, script, txnum, delta) values ('litecoin', ${Buffer.from(A)}, 1048576, 5)`.execute(old.store.db);
        await sql`insert into chain_balances (chain, script, confirmed, tx_count) values ('litecoin', ${Buffer.from(A)}, 5, 1)`.execute(old.store.db);
        const migrated = new UtxoIndexStore(await old.reopen(), 'litecoin');
        expect(await migrated.tip()).toBeNull();
        expect(await migrated.balances([A])).toEqual([{ confirmed: 0n, unconfirmed: 0n }]);
        await migrated.applyBlocks(blocks, new Set());
        await expectAgrees(migrated, blocks);
      } finally {
        await old.dispose();
      }
    });

    it('drops an index written before tx numbers (0006): the store holds no index until it is built again', async () => {
      const old = await openTestStore(kind, '0005_watch');
      try {
        const blocks = chainOf(20);
        const blobOf = (id: string) => Buffer.from(id, 'hex');
        // rows as the writer before 0006 wrote them
        for (const b of blocks) {
          await sql`insert into chain_blocks (chain, height, hash, time) values ('litecoin', ${b.height}, ${b.hash}, ${b.time})`.execute(old.store.db);
          for (const [position, tx] of b.txs.entries()) {
            for (const o of tx.outputs) {
              await sql`insert into chain_outputs (chain, txid, vout, script, amount, height, position)
                values ('litecoin', ${blobOf(tx.txid)}, ${o.vout}, ${Buffer.from(o.script)}, ${o.amount}, ${b.height}, ${position})`.execute(old.store.db);
            }
          }
        }
        await sql`insert into chain_history (chain, script, txid, height, position, time, delta) values ('litecoin', ${Buffer.from(A)}, ${blobOf(blocks[0]!.txs[0]!.txid)}, 1, 0, 1, 5)`.execute(old.store.db);
        await sql`insert into chain_balances (chain, script, confirmed, tx_count) values ('litecoin', ${Buffer.from(A)}, 5, 1)`.execute(old.store.db);

        const migrated = new UtxoIndexStore(await old.reopen(), 'litecoin');
        expect(await migrated.tip()).toBeNull(); // the indexer starts again from the first block
        expect(await migrated.balances([A])).toEqual([{ confirmed: 0n, unconfirmed: 0n }]);
        expect((await migrated.history([A], 10, 0)).total).toBe(0);
        await migrated.applyBlocks(blocks, new Set());
        await expectAgrees(migrated, blocks);
      } finally {
        await old.dispose();
      }
    });
  }
});

describe('address queries on level: a script whose key another script holds', () => {
  let t: TestStore;
  afterEach(async () => t.dispose());

  it('keeps only its own funding rows, told apart by their checks, through a restart and rollbacks', async () => {
    t = await openTestStore('level');
    const STRANGER = script(0xee);
    const key = scriptKeyOf(A);
    // A funding row under A's key of a script standing for one whose key collides with A's (its
    // value's check is the stranger's: bytes 8 to 12 of its hash), and its tx row, written with the
    // LevelDB index's own encodings (level-rows.ts: F script key, txnum, vout -> check, amount and
    // flag; T txnum -> txid)
    const level = await levelIndexOf(t.store, 'litecoin')!;
    const raw = (level as unknown as { db: { put(k: Buffer, v: Buffer): Promise<void> } }).db;
    const fKey = fundingKey(key, 0, 0); // tx number 0 (height 0, before the chain), vout 0
    const tKey = Buffer.concat([Buffer.of(0x54), Buffer.alloc(6)]);
    const strangerHash = Buffer.concat([key, scriptHash(STRANGER).subarray(8)]);
    expect(strangerHash.subarray(8, 12).equals(scriptHash(A).subarray(8, 12))).toBe(false);
    await raw.put(fKey, Buffer.from(fundingValue(Buffer.alloc(13), strangerHash, true, 999n)));
    await raw.put(tKey, Buffer.alloc(32, 0xee));
    const isPlanted = (k: string) => k === hex(fKey) || k === hex(tKey);
    const planted = (await level.entries()).filter(([k]) => isPlanted(k));
    expect(planted).toHaveLength(2);

    let index = new UtxoIndexStore(t.store, 'litecoin');
    const blocks = chainOf(60);
    await index.applyBlocks(blocks.slice(0, 30), new Set());
    for (const b of blocks.slice(30)) await index.applyBlock(b, new Set());
    await expectAgrees(index, blocks);

    // a restart, rollbacks and the blocks again: A's answers never take the stranger's row
    const restarted = await t.reopen();
    index = new UtxoIndexStore(restarted, 'litecoin');
    await expectAgrees(index, blocks);
    const byHash = new Map(blocks.map((b) => [b.hash, b]));
    await index.rollbackTo(44, async (hash) => byHash.get(hash) ?? null);
    await expectAgrees(index, blocks.slice(0, 44));
    await index.rollbackTo(0, async (hash) => byHash.get(hash) ?? null);
    expect((await index.history([A], 10, 0)).total).toBe(0);
    const after = await (await levelIndexOf(restarted, 'litecoin')!).entries();
    expect(after.filter(([k]) => isPlanted(k))).toEqual(planted); // left alone
    await index.applyBlocks(blocks, new Set());
    await expectAgrees(index, blocks);
  });
});

describe('address queries on level, an address beyond a summary', () => {
  let t: TestStore;
  let index: UtxoIndexStore;
  beforeEach(async () => {
    t = await openTestStore('level');
    index = new UtxoIndexStore(t.store, 'litecoin');
  });
  afterEach(async () => t.dispose());

  it('refuses in words the balance and history of an address with more outputs than a summary may hold, and still pages its unspent outputs', async () => {
    t.store.indexCaches = { ...t.store.indexCaches, summaryMaxRows: 50 };
    const blocks = chainOf(60);
    await index.applyBlocks(blocks, new Set());
    const ref = reference(blocks);
    await expect(index.balances([A])).rejects.toThrow(/this address has more than 50 outputs: its balance and history are more than this service's LevelDB index works out in memory/);
    await expect(index.history([A], 10, 0)).rejects.toBeInstanceOf(AddressTooLarge);
    expect(await unspentOf(index, [A])).toEqual(ref.unspent([A]));
  });

  it('pages the unspent outputs of scripts in summaries and of one beyond them alike, in one list, through a rollback', async () => {
    const blocks = chainOf(60);
    const outputsOf = (s: Uint8Array) => blocks.flatMap((b) => b.txs.flatMap((tx) => tx.outputs)).filter((o) => hex(o.script) === hex(s)).length;
    // the script with the more outputs goes beyond the bound: its page is read from its funding
    // rows; the other's from its summary's columns
    const [small, large] = [A, B].sort((x, y) => outputsOf(x) - outputsOf(y)) as [Uint8Array, Uint8Array];
    expect(outputsOf(small)).toBeLessThan(outputsOf(large));
    t.store.indexCaches = { ...t.store.indexCaches, summaryMaxRows: outputsOf(large) - 1 };
    await index.applyBlocks(blocks, new Set());
    await expect(index.balances([large])).rejects.toBeInstanceOf(AddressTooLarge);
    expect((await index.balances([small]))[0]!.confirmed).toBe(reference(blocks).balance(small));
    for (const scripts of [[A, B], [small], [B, A, C]]) expect(await unspentOf(index, scripts)).toEqual(reference(blocks).unspent(scripts));
    const byHash = new Map(blocks.map((b) => [b.hash, b]));
    await index.rollbackTo(40, async (hash) => byHash.get(hash) ?? null); // keeps heights 1 to 40
    expect(await unspentOf(index, [A, B, C])).toEqual(reference(blocks.slice(0, 40)).unspent([A, B, C]));
    await index.applyBlocks(blocks.slice(40), new Set());
    expect(await unspentOf(index, [A, B, C])).toEqual(reference(blocks).unspent([A, B, C]));
  });
});
