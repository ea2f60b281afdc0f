import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, STORE_KINDS, type TestStore } from './test-stores.ts';
import { type IndexedBlock, type IndexedTx, UtxoIndexStore } from './utxo-index.ts';

const txid = (n: number) => n.toString(16).padStart(64, '0');
const A = 'addrA';
const B = 'addrB';

function coinbase(id: number, to: string, amount: bigint): IndexedTx {
  return { txid: txid(id), inputs: [], outputs: [{ vout: 0, address: to, scriptHex: '00', amount }] };
}

function block(height: number, txs: IndexedTx[]): IndexedBlock {
  return { height, hash: `h${height}`.padEnd(64, '0'), time: 1_700_000_000 + height, txs };
}

describe.each(STORE_KINDS)('UTXO index store on %s', (kind) => {
  let t: TestStore;
  let index: UtxoIndexStore;
  beforeEach(async () => {
    t = await openTestStore(kind);
    index = new UtxoIndexStore(t.store, 'litecoin');
  });
  afterEach(async () => t.dispose());

  it('indexes outputs, spends and history, and answers balance, history and unspent', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 5_000_000_000n)]), new Set());
    const pay: IndexedTx = {
      txid: txid(2),
      inputs: [{ txid: txid(1), vout: 0 }],
      outputs: [
        { vout: 0, address: B, scriptHex: '01', amount: 1_000_000_000n },
        { vout: 1, address: A, scriptHex: '00', amount: 3_999_990_000n },
      ],
    };
    await index.applyBlock(block(2, [coinbase(3, B, 1n), pay]), new Set());

    expect(await index.tip()).toEqual({ height: 2, hash: block(2, []).hash });
    expect(await index.balances([A, B, 'nobody'])).toEqual([
      { address: A, confirmed: 3_999_990_000n, unconfirmed: 0n },
      { address: B, confirmed: 1_000_000_001n, unconfirmed: 0n },
      { address: 'nobody', confirmed: 0n, unconfirmed: 0n },
    ]);
    const h = await index.history([A], 10, 0);
    expect(h.total).toBe(2);
    expect(h.rows.map((r) => [r.txid, r.height, r.delta])).toEqual([
      [txid(2), 2, -1_000_010_000n],
      [txid(1), 1, 5_000_000_000n],
    ]);
    const u = await index.unspent([A, B]);
    expect(u.map((r) => [r.txid, r.vout, r.amount])).toEqual([
      [txid(3), 0, 1n],
      [txid(2), 0, 1_000_000_000n],
      [txid(2), 1, 3_999_990_000n],
    ]);
  });

  it('keeps amounts above 2^53 exact', async () => {
    const big = 2n ** 60n + 1n;
    await index.applyBlock(block(1, [coinbase(1, A, big)]), new Set());
    expect((await index.balances([A]))[0]?.confirmed).toBe(big);
    expect((await index.unspent([A]))[0]?.amount).toBe(big);
  });

  it('tracks mempool transactions as unconfirmed, then confirms them', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 100_000n)]), new Set());
    const spend: IndexedTx = {
      txid: txid(9),
      inputs: [{ txid: txid(1), vout: 0 }],
      outputs: [{ vout: 0, address: B, scriptHex: '01', amount: 90_000n }],
    };
    await index.applyMempoolTx(spend, 1_800_000_000);
    expect(await index.balances([A, B])).toEqual([
      { address: A, confirmed: 100_000n, unconfirmed: -100_000n },
      { address: B, confirmed: 0n, unconfirmed: 90_000n },
    ]);
    expect(await index.unspent([A])).toEqual([]);
    const hist = await index.history([A, B], 10, 0);
    expect(hist.rows[0]?.height).toBeNull();
    expect(hist.rows[0]?.time).toBe(1_800_000_000);
    expect(await index.mempoolCount()).toBe(1);

    await index.applyBlock(block(2, [coinbase(2, A, 1n), spend]), await index.mempoolTxids());
    expect(await index.balances([A, B])).toEqual([
      { address: A, confirmed: 1n, unconfirmed: 0n },
      { address: B, confirmed: 90_000n, unconfirmed: 0n },
    ]);
    expect(await index.mempoolCount()).toBe(0);
  });

  it('drops evicted mempool transactions and rolls back reorganised blocks', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 100_000n)]), new Set());
    const spend: IndexedTx = { txid: txid(9), inputs: [{ txid: txid(1), vout: 0 }], outputs: [{ vout: 0, address: B, scriptHex: '01', amount: 90_000n }] };
    await index.applyMempoolTx(spend, 1);
    await index.removeMempoolTxs([txid(9)]);
    expect(await index.balances([A, B])).toEqual([
      { address: A, confirmed: 100_000n, unconfirmed: 0n },
      { address: B, confirmed: 0n, unconfirmed: 0n },
    ]);

    await index.applyBlock(block(2, [coinbase(2, B, 7n), spend]), new Set());
    await index.rollbackTo(1);
    expect(await index.tip()).toEqual({ height: 1, hash: block(1, []).hash });
    expect(await index.balances([A, B])).toEqual([
      { address: A, confirmed: 100_000n, unconfirmed: 0n },
      { address: B, confirmed: 0n, unconfirmed: 0n },
    ]);
    expect((await index.unspent([A])).length).toBe(1);
  });

  it('survives a restart: a reopened store resumes at the same tip', async () => {
    await index.applyBlock(block(1, [coinbase(1, A, 5n)]), new Set());
    const again = new UtxoIndexStore(await t.reopen(), 'litecoin');
    expect(await again.tip()).toEqual({ height: 1, hash: block(1, []).hash });
    expect((await again.balances([A]))[0]?.confirmed).toBe(5n);
  });

  it('pages history', async () => {
    const blocks = Array.from({ length: 7 }, (_, i) => block(i + 1, [coinbase(i + 1, A, BigInt(i + 1))]));
    for (const b of blocks) await index.applyBlock(b, new Set());
    const page = await index.history([A], 3, 3);
    expect(page.total).toBe(7);
    expect(page.rows.map((r) => r.height)).toEqual([4, 3, 2]);
  });
});
