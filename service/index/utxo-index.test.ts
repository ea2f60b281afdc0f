import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_CHUNK_ROWS } from './pg-apply.ts';
import { allUnspent } from '../test/all-unspent.ts';
import { INDEX_STORE_KINDS, openTestStore, STORE_KINDS, type TestStore } from '../store/test-stores.ts';
import { type IndexedBlock, type IndexedTx, levelIndexOf, UtxoIndexStore } from './utxo-index.ts';
import { heightOfTxNum, txNumOf } from './txnum.ts';
import type { Store } from '../store/database.ts';
import { HandMadeBlocks } from '../test/hand-made-node.ts';

const txid = (n: number) => n.toString(16).padStart(64, '0');
const A = Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(0xaa), 0x88, 0xac]);
const B = Uint8Array.from([0xa9, 0x14, ...new Array<number>(20).fill(0xbb), 0x87]);
const NOBODY = Uint8Array.from([0xa9, 0x14, ...new Array<number>(20).fill(0xcc), 0x87]);

function coinbase(id: number, to: Uint8Array, amount: bigint): IndexedTx {
  return { txid: txid(id), inputs: [], outputs: [{ vout: 0, script: to, amount }] };
}

function block(height: number, txs: IndexedTx[]): IndexedBlock {
  return { height, hash: `h${height}`.padEnd(64, '0'), time: 1_700_000_000 + height, txs };
}

/** The blocks the stores were given, by hash: the node the LevelDB index reads outputs by outpoint from. */
const node = new HandMadeBlocks();

/** A store's index whose node holds every block it is given (tests' blocks share hashes: the last given wins). */
function indexStore(store: Store, chain: string, options: { watch?: boolean } = {}): UtxoIndexStore {
  const index = new UtxoIndexStore(store, chain, { ...options, nodeTxs: node.read });
  const apply = index.applyBlocks.bind(index);
  index.applyBlocks = (blocks, mempool) => {
    for (const b of blocks) node.add(b);
    return apply(blocks, mempool);
  };
  return index;
}

const bal = (confirmed: bigint, unconfirmed = 0n) => ({ confirmed, unconfirmed });

describe.each(INDEX_STORE_KINDS)('UTXO index store on %s', (kind) => {
  let t: TestStore;
  let index: UtxoIndexStore;
  beforeEach(async () => {
    t = await openTestStore(kind);
    index = indexStore(t.store, 'litecoin');
  });
  afterEach(async () => t.dispose());

  it('indexes outputs, spends and history, and answers balance, history and unspent', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 5_000_000_000n)]), new Set());
    const pay: IndexedTx = {
      txid: txid(2),
      inputs: [{ txid: txid(1), vout: 0 }],
      outputs: [
        { vout: 0, script: B, amount: 1_000_000_000n },
        { vout: 1, script: A, amount: 3_999_990_000n },
      ],
    };
    await index.applyBlock(block(2, [coinbase(3, B, 1n), pay]), new Set());

    expect(await index.tip()).toEqual({ height: 2, hash: block(2, []).hash });
    expect(await index.balances([A, B, NOBODY])).toEqual([bal(3_999_990_000n), bal(1_000_000_001n), bal(0n)]);
    const h = await index.history([A], 10, 0);
    expect(h.total).toBe(2);
    expect(h.rows.map((r) => [r.txid, r.height, r.delta])).toEqual([
      [txid(2), 2, -1_000_010_000n],
      [txid(1), 1, 5_000_000_000n],
    ]);
    expect(h.rows[0]!.script).toEqual(A);
    const u = await allUnspent(index, [A, B]);
    expect(u.map((r) => [r.txid, r.vout, r.amount])).toEqual([
      [txid(3), 0, 1n],
      [txid(2), 0, 1_000_000_000n],
      [txid(2), 1, 3_999_990_000n],
    ]);
    const outs = await index.outputs([{ txid: txid(1), vout: 0 }, { txid: txid(9), vout: 0 }]);
    expect(outs.get(`${txid(1)}:0`)).toEqual({ script: A, amount: 5_000_000_000n });
    expect(outs.has(`${txid(9)}:0`)).toBe(false);
  });

  it('applies several blocks in one batch, spends within the batch included', async () => {
    const spend: IndexedTx = { txid: txid(2), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 40n }] };
    await index.applyBlocks([block(1, [coinbase(1, A, 50n)]), block(2, [coinbase(3, A, 7n), spend])], new Set());
    expect(await index.balances([A, B])).toEqual([bal(7n), bal(40n)]);
    expect((await allUnspent(index, [A])).map((u) => u.txid)).toEqual([txid(3)]);
  });

  it('writes the same rows whether blocks come in one batch or one at a time', async () => {
    // Spends within a batch are written with their output; spends across batches update it. A
    // repeated coinbase txid (BIP30) overwrites its output, unspent again, as in the node.
    const blocks = [
      block(1, [coinbase(1, A, 100n), coinbase(2, B, 50n)]),
      block(2, [coinbase(3, A, 1n), { txid: txid(10), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 60n }, { vout: 1, script: A, amount: 30n }] }]),
      block(3, [coinbase(4, B, 1n), { txid: txid(11), inputs: [{ txid: txid(10), vout: 1 }, { txid: txid(2), vout: 0 }], outputs: [{ vout: 0, script: NOBODY, amount: 70n }] }]),
      block(4, [coinbase(3, B, 9n), { txid: txid(12), inputs: [{ txid: txid(11), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 65n }] }]),
    ];
    const together = indexStore(t.store, 'dash');
    await together.applyBlocks(blocks, new Set());
    for (const b of blocks) await index.applyBlock(b, new Set());
    if (kind === 'level') {
      const rows = async (chain: string) => (await levelIndexOf(t.store, chain)!).entries();
      expect(await rows('dash')).toEqual(await rows('litecoin'));
    } else await expectSameTables();
    expect((await allUnspent(index, [A, B, NOBODY])).map((u) => [u.txid, u.height])).toEqual([
      [txid(10), 2],
      [txid(4), 3],
      [txid(3), 4],
      [txid(12), 4],
    ]);
    expect(await allUnspent(together, [A, B, NOBODY])).toEqual(await allUnspent(index, [A, B, NOBODY]));
  });

  async function expectSameTables() {
    const tables = async (chain: string) => ({
      outputs: await t.store.db.selectFrom('chain_outputs').select(['txnum', 'vout', 'script', 'amount', 'spent_txnum']).where('chain', '=', chain).orderBy('txnum').orderBy('vout').execute(),
      history: await t.store.db.selectFrom('chain_history').select(['skey', 'txnum', 'delta']).where('chain', '=', chain).orderBy('skey').orderBy('txnum').execute(),
      txids: await t.store.db.selectFrom('chain_txids').select(['txnum', 'txid']).where('chain', '=', chain).orderBy('txnum').execute(),
      txidKeys: await t.store.db.selectFrom('chain_txid_keys').select(['prefix', 'txnum']).where('chain', '=', chain).orderBy('prefix').orderBy('txnum').execute(),
      balances: await t.store.db.selectFrom('chain_balances').select(['skey', 'script', 'confirmed', 'tx_count']).where('chain', '=', chain).orderBy('skey').execute(),
    });
    const one = await tables('litecoin');
    expect(await tables('dash')).toEqual(one);
    const txidOf = (n: unknown) => Buffer.from(one.txids.find((r) => Number(r.txnum) === Number(n))!.txid).toString('hex');
    // of a txid confirmed twice (BIP30), the later tx's outputs are the ones left
    const spentBy = (n: number, vout: number) => one.outputs.findLast((o) => txidOf(o.txnum) === txid(n) && Number(o.vout) === vout);
    expect(txidOf(spentBy(10, 1)!.spent_txnum)).toBe(txid(11));
    expect(heightOfTxNum(Number(spentBy(10, 1)!.spent_txnum))).toBe(3);
    expect(spentBy(10, 0)!.spent_txnum).toBeNull();
    expect(Number(spentBy(3, 0)!.amount)).toBe(9); // the repeated coinbase's output
    expect(one.outputs.filter((o) => txidOf(o.txnum) === txid(3))).toHaveLength(1); // the first one's is gone
    // tx numbers are height * 2^20 + position; each numbered tx has one prefix key
    expect(one.txids.map((r) => Number(r.txnum))).toContain(txNumOf(4, 1));
    expect(one.txidKeys.map((r) => Number(r.txnum)).sort((a, b) => a - b)).toEqual(one.txids.map((r) => Number(r.txnum)));
  }

  it('refuses blocks that spend an output twice, and writes nothing of them', async () => {
    const spend = (id: number, height: number) => block(height, [coinbase(100 + height, B, 1n), { txid: txid(id), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 90n }] }]);
    await index.applyBlock(block(1, [coinbase(1, A, 100n)]), new Set());
    await index.applyBlock(spend(9, 2), new Set());
    // across batches: the output is already marked spent (LevelDB never reads while indexing: it
    // trusts the node's validation there, level-index.ts)
    if (kind !== 'level') {
      await expect(index.applyBlock(spend(10, 3), new Set())).rejects.toThrow(/already spent/);
      expect(await index.tip()).toEqual({ height: 2, hash: spend(9, 2).hash });
      expect(await index.balances([A, B])).toEqual([bal(0n), bal(91n)]);
    }
    // within one batch: the output is created and spent twice in it
    const again = indexStore(t.store, 'dash');
    await expect(again.applyBlocks([block(1, [coinbase(1, A, 100n)]), spend(9, 2), spend(10, 3)], new Set())).rejects.toThrow(/spent twice, in blocks 2 and 3/);
    expect(await again.tip()).toBeNull();
    expect(await again.balances([A, B])).toEqual([bal(0n), bal(0n)]);
  });

  it('overwrites a coinbase txid repeated within one batch, as when the blocks come one at a time', async () => {
    // BIP30: the second coinbase's output replaces the first; each block keeps its history row on A.
    const blocks = [block(1, [coinbase(1, A, 50n)]), block(2, [coinbase(1, A, 7n), coinbase(2, B, 3n)])];
    const together = indexStore(t.store, 'dash');
    await together.applyBlocks(blocks, new Set());
    for (const b of blocks) await index.applyBlock(b, new Set());
    for (const chain of [together, index]) {
      expect((await allUnspent(chain, [A, B])).map((u) => [u.txid, u.amount, u.height])).toEqual([
        [txid(1), 7n, 2],
        [txid(2), 3n, 2],
      ]);
      expect((await chain.history([A], 10, 0)).rows.map((r) => [r.txid, r.height, r.delta])).toEqual([
        [txid(1), 2, 7n],
        [txid(1), 1, 50n],
      ]);
      expect(await chain.balances([A, B])).toEqual([bal(57n), bal(3n)]);
    }
  });

  it('skips a spend of an output the index does not hold (a non-standard script) and writes the rest', async () => {
    const spend: IndexedTx = { txid: txid(9), inputs: [{ txid: txid(77), vout: 3 }], outputs: [{ vout: 0, script: B, amount: 40n }] };
    await index.applyBlocks([block(1, [coinbase(1, A, 50n), spend])], new Set());
    expect(await index.balances([A, B])).toEqual([bal(50n), bal(40n)]);
    expect((await index.history([B], 10, 0)).rows.map((r) => [r.txid, r.delta])).toEqual([[txid(9), 40n]]);
  });

  it('writes nothing of a batch whose spend fails, not its new outputs nor its mempool removals', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 100n)]), new Set());
    const first: IndexedTx = { txid: txid(9), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 90n }] };
    await index.applyBlock(block(2, [coinbase(2, B, 1n), first]), new Set());
    const again: IndexedTx = { txid: txid(10), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 80n }] };
    const pending: IndexedTx = { txid: txid(11), inputs: [], outputs: [{ vout: 0, script: NOBODY, amount: 5n }] };
    await index.applyMempoolTx(pending, 1_800_000_000);
    // LevelDB catches a double spend only within its batch (it never reads while indexing)
    const twice: IndexedTx = { txid: txid(12), inputs: [{ txid: txid(9), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 80n }] };
    const failing = kind === 'level' ? [block(3, [coinbase(3, A, 1n), pending, twice]), block(4, [coinbase(4, A, 1n), { ...twice, txid: txid(13) }])] : [block(3, [coinbase(3, A, 1n), pending]), block(4, [coinbase(4, A, 1n), again])];
    await expect(index.applyBlocks(failing, await index.mempoolTxids())).rejects.toThrow(kind === 'level' ? /spent twice/ : /already spent/);
    expect(await index.tip()).toEqual({ height: 2, hash: block(2, []).hash });
    expect(await index.balances([A, B, NOBODY])).toEqual([bal(0n), bal(91n), bal(0n, 5n)]);
    expect((await index.outputs([{ txid: txid(3), vout: 0 }])).size).toBe(0);
    expect(await index.mempoolCount()).toBe(1);
  });

  it('writes a batch larger than one statement of the PostgreSQL path, and spends it in another', async () => {
    const n = PG_CHUNK_ROWS + 1;
    const script = (i: number) => Uint8Array.from([0x6a, 0x04, i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff, 0x01]);
    const wide: IndexedTx = { txid: txid(2), inputs: [], outputs: Array.from({ length: n }, (_, i) => ({ vout: i, script: script(i), amount: BigInt(i + 1) })) };
    await index.applyBlocks([block(1, [coinbase(1, A, 1n), wide])], new Set());
    const gather: IndexedTx = { txid: txid(3), inputs: wide.outputs.map((o) => ({ txid: wide.txid, vout: o.vout })), outputs: [{ vout: 0, script: B, amount: 7n }] };
    await index.applyBlocks([block(2, [coinbase(4, A, 1n), gather])], new Set());
    if (kind !== 'level') await expectRowCounts(n);
    expect(await index.balances([A, B, script(0), script(n - 1)])).toEqual([bal(2n), bal(7n), bal(0n), bal(0n)]);
    expect((await index.history([script(n - 1)], 10, 0)).rows.map((r) => [r.txid, r.delta])).toEqual([
      [txid(3), -BigInt(n)],
      [txid(2), BigInt(n)],
    ]);
    expect(await allUnspent(index, [script(0), script(n - 1)])).toEqual([]);
  });

  async function expectRowCounts(n: number) {
    const count = async (table: 'chain_outputs' | 'chain_history' | 'chain_balances') =>
      Number((await t.store.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('chain', '=', 'litecoin').executeTakeFirstOrThrow()).n);
    expect(await count('chain_outputs')).toBe(n + 3);
    expect(await count('chain_history')).toBe(2 * n + 3);
    expect(await count('chain_balances')).toBe(n + 2);
    const spent = await t.store.db.selectFrom('chain_outputs').select((eb) => eb.fn.countAll<string>().as('n')).where('chain', '=', 'litecoin').where('spent_txnum', '>=', txNumOf(2, 0)).where('spent_txnum', '<', txNumOf(3, 0)).executeTakeFirstOrThrow();
    expect(Number(spent.n)).toBe(n);
  }

  it('keeps amounts above 2^53 exact', async () => {
    const big = 2n ** 60n + 1n;
    await index.applyBlock(block(1, [coinbase(1, A, big)]), new Set());
    expect((await index.balances([A]))[0]?.confirmed).toBe(big);
    expect((await allUnspent(index, [A]))[0]?.amount).toBe(big);
  });

  it('tracks mempool transactions as unconfirmed, then confirms them', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 100_000n)]), new Set());
    const spend: IndexedTx = { txid: txid(9), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 90_000n }] };
    const child: IndexedTx = { txid: txid(10), inputs: [{ txid: txid(9), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 80_000n }] };
    await index.applyMempoolTx(spend, 1_800_000_000);
    await index.applyMempoolTx(child, 1_800_000_001);
    expect(await index.balances([A, B])).toEqual([bal(100_000n, -20_000n), bal(0n, 0n)]);
    expect((await allUnspent(index, [A, B])).map((u) => [u.txid, u.height])).toEqual([[txid(10), null]]);
    const hist = await index.history([A, B], 10, 0);
    expect(hist.total).toBe(5);
    expect(hist.rows.map((r) => [r.txid, r.height, r.time])).toEqual([
      [txid(10), null, 1_800_000_001],
      [txid(10), null, 1_800_000_001],
      [txid(9), null, 1_800_000_000],
      [txid(9), null, 1_800_000_000],
      [txid(1), 1, 1_700_000_001],
    ]);
    expect(await index.mempoolCount()).toBe(2);

    await index.applyBlock(block(2, [coinbase(2, A, 1n), spend]), await index.mempoolTxids());
    expect(await index.balances([A, B])).toEqual([bal(1n, 80_000n), bal(90_000n, -90_000n)]);
    expect(await index.mempoolCount()).toBe(1);
  });

  it('drops evicted mempool transactions and rolls back reorganised blocks', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 100_000n)]), new Set());
    const spend: IndexedTx = { txid: txid(9), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 90_000n }] };
    await index.applyMempoolTx(spend, 1);
    await index.removeMempoolTxs([txid(9)]);
    expect(await index.balances([A, B])).toEqual([bal(100_000n), bal(0n)]);
    expect((await allUnspent(index, [A])).length).toBe(1);

    await index.applyBlocks([block(2, [coinbase(2, B, 7n), spend]), block(3, [coinbase(3, A, 5n)])], new Set());
    expect(await index.balances([A, B])).toEqual([bal(5n), bal(90_007n)]);
    const undone = new Map([block(2, [coinbase(2, B, 7n), spend]), block(3, [coinbase(3, A, 5n)])].map((b) => [b.hash, b]));
    // the SQL stores undo by scan without the blocks; LevelDB needs them
    await index.rollbackTo(1, async (hash) => (kind === 'level' ? (undone.get(hash) ?? null) : null));
    expect(await index.tip()).toEqual({ height: 1, hash: block(1, []).hash });
    expect(await index.balances([A, B])).toEqual([bal(100_000n), bal(0n)]);
    expect((await allUnspent(index, [A])).length).toBe(1);
    expect((await index.history([A, B], 10, 0)).total).toBe(1);
  });

  it('rolls back by recomputing what the undone blocks wrote, or by scanning when the node lacks them', async () => {
    for (const withContent of [true, false]) {
      const chain = indexStore(t.store, withContent ? 'dash' : 'bitcoin');
      const b1 = block(1, [coinbase(1, A, 100_000n)]);
      const spend: IndexedTx = { txid: txid(9), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 60_000n }, { vout: 1, script: A, amount: 30_000n }] };
      const b2 = block(2, [coinbase(2, B, 7n), spend]);
      const b3 = block(3, [coinbase(3, A, 5n), { txid: txid(10), inputs: [{ txid: txid(9), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 50_000n }] }]);
      await chain.applyBlocks([b1, b2], new Set());
      await chain.applyBlock(b3, new Set());
      const known = new Map([b2, b3].map((b) => [b.hash, b]));
      if (kind === 'level' && !withContent) {
        // LevelDB finds a block's rows only from its content: without it, nothing is undone
        await expect(chain.rollbackTo(1, async () => null)).rejects.toThrow(/the node does not have block 2 .*index again from an unpruned node/);
        expect(await chain.balances([A, B])).toEqual([bal(80_005n), bal(7n)]);
        continue;
      }
      await chain.rollbackTo(1, async (hash) => (withContent ? (known.get(hash) ?? null) : null));
      expect(await chain.balances([A, B])).toEqual([bal(100_000n), bal(0n)]);
      expect((await allUnspent(chain, [A, B])).map((u) => u.txid)).toEqual([txid(1)]);
      expect((await chain.history([A, B], 10, 0)).total).toBe(1);
      await chain.applyBlocks([b2, b3], new Set()); // the same blocks apply again cleanly
      expect(await chain.balances([A, B])).toEqual([bal(80_005n), bal(7n)]);
    }
  });

  it('rolls back to empty (height -1) when even the first block is another chain\'s, and indexes the new chain from block 0', async () => {
    // The indexer's findFork answers -1 when the node's block 0 differs (it was pointed at another chain).
    const b0 = block(0, [coinbase(1, A, 5n)]);
    const b1 = block(1, [coinbase(2, B, 7n), { txid: txid(3), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 4n }] }]);
    await index.applyBlocks([b0, b1], new Set());
    await index.applyMempoolTx({ txid: txid(4), inputs: [{ txid: txid(2), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 6n }] }, 9);
    const known = new Map([b0, b1].map((b) => [b.hash, b]));
    await index.rollbackTo(-1, async (hash) => known.get(hash) ?? null);
    expect(await index.tip()).toBeNull();
    expect(await index.blockHash(0)).toBeNull();
    expect(await index.balances([A, B])).toEqual([bal(0n), bal(0n)]);
    expect(await allUnspent(index, [A, B])).toEqual([]);
    expect((await index.history([A, B], 10, 0)).total).toBe(0);
    expect(await index.mempoolCount()).toBe(0);
    const other = { ...block(0, [coinbase(9, B, 3n)]), hash: 'f'.repeat(64) };
    await index.applyBlock(other, new Set());
    expect(await index.tip()).toEqual({ height: 0, hash: other.hash });
    expect(await index.balances([A, B])).toEqual([bal(0n), bal(3n)]);
  });

  /** What a reader with no cache of its own is told of A and B. */
  const view = async (reader = indexStore(t.store, 'litecoin')) => {
    const history = await reader.history([A, B], 10, 0);
    return {
      balances: await reader.balances([A, B]),
      unspent: (await allUnspent(reader, [A, B])).map((u) => [u.txid.slice(-2), u.vout, u.amount, u.height]),
      history: [history.total, history.rows.map((r) => [r.txid.slice(-2), r.height, r.delta])],
    };
  };
  const pay: IndexedTx = { txid: txid(2), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 60n }, { vout: 1, script: A, amount: 30n }] };
  const child: IndexedTx = { txid: txid(4), inputs: [{ txid: txid(2), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 50n }] };
  const b1 = block(1, [coinbase(1, A, 100n)]);
  const b2 = block(2, [coinbase(3, B, 1n), pay]);

  it('reads one state between the commits of a block: its mempool txs counted once, confirmed', async () => {
    // LevelDB writes the block and the SQL file then deletes its txs' mempool rows: two commits.
    await index.applyBlock(b1, new Set());
    await index.applyMempoolTx(pay, 10);
    await index.applyMempoolTx(child, 11);
    const before = await view();
    const writers = await view(index); // the writer's own reader, its balances now cached
    expect(writers).toEqual(before);
    const between: Awaited<ReturnType<typeof view>>[] = [];
    index.testKnobs.betweenCommits = async () => {
      between.push(await view(), await view(index));
    };
    await index.applyBlock(b2, await index.mempoolTxids());
    const after = await view();
    expect(after.balances).toEqual([bal(30n, 50n), bal(61n, -60n)]);
    expect(after.unspent).toEqual([['03', 0, 1n, 2], ['02', 1, 30n, 2], ['04', 0, 50n, null]]);
    if (kind !== 'level') return expect(between).toEqual([]); // one commit: nothing between
    expect(between).toHaveLength(2);
    expect(between[0]).toEqual(after);
    // the writer's reader: balances cached before the block, the rest read; each answer is one state
    expect([before.balances, after.balances]).toContainEqual(between[1]!.balances);
    expect(between[1]!.unspent).toEqual(after.unspent);
    expect(between[1]!.history).toEqual(after.history);
  });

  it('reads one state between the commits of a rollback: the undone blocks and the mempool never mixed', async () => {
    await index.applyBlocks([b1, b2], new Set());
    await index.applyMempoolTx(child, 11); // spends pay's output, which the rollback undoes
    const known = new Map([b2].map((b) => [b.hash, b]));
    const between: Awaited<ReturnType<typeof view>>[] = [];
    index.testKnobs.betweenCommits = async () => void between.push(await view());
    await index.rollbackTo(1, async (hash) => known.get(hash) ?? null);
    const after = await view();
    expect(after).toEqual({ balances: [bal(100n), bal(0n)], unspent: [['01', 0, 100n, 1]], history: [1, [['01', 1, 100n]]] });
    if (kind !== 'level') return expect(between).toEqual([]);
    // the mempool is forgotten first (it is read again from the node): blocks 1 and 2, no mempool
    expect(between).toEqual([
      {
        balances: [bal(30n), bal(61n)],
        unspent: [['03', 0, 1n, 2], ['02', 0, 60n, 2], ['02', 1, 30n, 2]],
        history: [4, [['02', 2, -70n], ['02', 2, 60n], ['03', 2, 1n], ['01', 1, 100n]]],
      },
    ]);
  });

  it('reads again when a rollback runs between its mempool rows and the confirmed index', async () => {
    await index.applyBlocks([b1, b2], new Set());
    await index.applyMempoolTx(child, 11);
    const reader = indexStore(t.store, 'litecoin');
    let release!: () => void;
    let paused!: () => void;
    const held = new Promise<void>((r) => (paused = r));
    const gate = new Promise<void>((r) => (release = r));
    let reads = 0;
    // the query's first mempool read holds the child; it waits here while the rollback runs
    reader.testKnobs.afterMempoolRead = async () => {
      if (reads++ > 0) return;
      paused();
      await gate;
    };
    const answer = reader.balances([A, B]);
    await held;
    await index.rollbackTo(1, async (hash) => new Map([b2].map((b) => [b.hash, b])).get(hash) ?? null);
    release();
    // the child's -60 on B never meets a chain without pay: read again, after the rollback
    expect(await answer).toEqual([bal(100n), bal(0n)]);
    expect(reads).toBe(2);
  });

  it('survives a restart: a reopened store resumes at the same tip', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 5n)]), new Set());
    const again = indexStore(await t.reopen(), 'litecoin');
    expect(await again.tip()).toEqual({ height: 1, hash: block(1, []).hash });
    expect((await again.balances([A]))[0]?.confirmed).toBe(5n);
  });

  it('pages history across mempool and confirmed entries', async () => {
    const blocks = Array.from({ length: 7 }, (_, i) => block(i + 1, [coinbase(i + 1, A, BigInt(i + 1))]));
    await index.applyBlocks(blocks, new Set());
    await index.applyMempoolTx({ txid: txid(50), inputs: [], outputs: [{ vout: 0, script: A, amount: 1n }] }, 9);
    const first = await index.history([A], 3, 0);
    expect(first.total).toBe(8);
    expect(first.rows.map((r) => r.height)).toEqual([null, 7, 6]);
    const page = await index.history([A], 3, 3);
    expect(page.rows.map((r) => r.height)).toEqual([5, 4, 3]);
  });
});

describe.each(STORE_KINDS)('a watch scan apart swapped in, on %s', (kind) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore(kind);
  });
  afterEach(async () => t.dispose());

  it("takes the scan index's rows in place of the shared index's, in one transaction, and drops both mempools", async () => {
    const shared = indexStore(t.store, 'litecoin', { watch: true });
    const scan = indexStore(t.store, 'litecoin~scan', { watch: true });
    // The shared index knew A from block 2 on; the scan read A and B from block 1.
    await shared.applyBlocks([block(2, [coinbase(2, A, 7n)])], new Set());
    await shared.applyMempoolTx({ txid: txid(20), inputs: [], outputs: [{ vout: 0, script: A, amount: 1n }] }, 1_700_000_100);
    const spend: IndexedTx = { txid: txid(3), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, script: B, amount: 40n }] };
    await scan.applyBlocks([block(1, [coinbase(1, A, 50n)]), block(2, [coinbase(2, A, 7n), spend])], new Set());
    await scan.applyMempoolTx({ txid: txid(21), inputs: [], outputs: [{ vout: 0, script: B, amount: 2n }] }, 1_700_000_100);
    expect(await shared.balances([A, B])).toEqual([bal(7n, 1n), bal(0n)]);

    let inside = false;
    await shared.takeRowsOf(scan, async () => {
      inside = true;
    });
    expect(inside).toBe(true);
    expect(await shared.tip()).toEqual({ height: 2, hash: block(2, []).hash });
    expect(await shared.balances([A, B])).toEqual([bal(7n), bal(40n)]);
    expect((await shared.history([A], 10, 0)).total).toBe(3);
    expect(await shared.mempoolCount()).toBe(0);
    expect(await scan.tip()).toBeNull();
    expect(await scan.balances([A, B])).toEqual([bal(0n), bal(0n)]);
    // The shared index goes on from the scan's tip, spending what the scan wrote.
    await shared.applyBlocks([block(3, [{ txid: txid(4), inputs: [{ txid: txid(3), vout: 0 }], outputs: [{ vout: 0, script: A, amount: 39n }] }])], new Set());
    expect(await shared.balances([A, B])).toEqual([bal(46n), bal(0n)]);
    // A scan starting over drops what it held.
    await scan.applyBlocks([block(1, [coinbase(1, A, 50n)])], new Set());
    await scan.clear();
    expect(await scan.tip()).toBeNull();
  });
});
