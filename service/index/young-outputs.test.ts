import { describe, expect, it } from 'vitest';
import { encodedOf, type IndexedBlock } from './blocks.ts';
import { addFound, type FoundOutputs, planRows, spentLookup } from './row-plan.ts';
import { txNumOf } from './txnum.ts';
import { YoungOutputs } from './young-outputs.ts';

const A = Uint8Array.from([0x00, 0x14, ...new Array<number>(20).fill(0xaa)]);
const txid = (n: number) => n.toString(16).padStart(64, '0');
const block = (height: number, txs: IndexedBlock['txs']): IndexedBlock => ({ height, hash: `b${height}`.padEnd(64, '0'), time: height, txs });

/** Plans `blocks` as a writer does: the young outputs first, the rest from `stored`. */
function plan(young: YoungOutputs, blocks: IndexedBlock[], stored: FoundOutputs = new Map()) {
  const encoded = blocks.map(encodedOf);
  const lookup = spentLookup(encoded);
  const found: FoundOutputs = new Map();
  const rest = young.take(lookup, found);
  for (const o of rest) {
    const s = stored.get(o.txKey)?.[o.vout];
    if (s) addFound(found, o.txKey, o.vout, s);
  }
  return { rows: planRows(encoded, lookup, found), rest };
}

describe('the young outputs of the SQLite writer', () => {
  it('answers spends of outputs it saw committed, forgets spent ones, and holds at most its limit', () => {
    const young = new YoungOutputs(3);
    const b1 = block(1, [{ txid: txid(1), inputs: [], outputs: [0, 1, 2].map((vout) => ({ vout, script: A, amount: 10n + BigInt(vout) })) }]);
    const p1 = plan(young, [b1]);
    young.committed(p1.rows, 2);
    const b2 = block(2, [{ txid: txid(2), inputs: [{ txid: txid(1), vout: 1 }], outputs: [{ vout: 0, script: A, amount: 5n }] }]);
    young.follow(2);
    const p2 = plan(young, [b2]);
    expect(p2.rest).toEqual([]); // from memory: nothing for the store to look up
    expect(p2.rows.spends).toEqual([{ txKey: expect.any(String), txnum: txNumOf(1, 0), vout: 1, spentTxnum: txNumOf(2, 0) }]);
    young.committed(p2.rows, 3);
    // the spent output is a miss now (the store says it is spent)
    const b3 = block(3, [{ txid: txid(3), inputs: [{ txid: txid(1), vout: 1 }, { txid: txid(2), vout: 0 }], outputs: [] }]);
    young.follow(3);
    expect(plan(young, [b3]).rest.map((o) => o.vout)).toEqual([1]);
    const spendOf = (n: number, vout: number) => spentLookup([encodedOf(block(9, [{ txid: txid(99), inputs: [{ txid: txid(n), vout }], outputs: [] }]))]);
    expect(young.take(spendOf(1, 0), new Map())).toHaveLength(0);
    // two more outputs: the oldest tx goes, the limit (3) holds
    const b4 = block(3, [{ txid: txid(4), inputs: [], outputs: [0, 1].map((vout) => ({ vout, script: A, amount: 1n })) }]);
    young.committed(plan(young, [b4]).rows, 4);
    expect(young.take(spendOf(1, 0), new Map())).toHaveLength(1);
    expect(young.take(spendOf(2, 0), new Map())).toHaveLength(0);
    expect(young.take(spendOf(4, 1), new Map())).toHaveLength(0);
  });

  it('forgets everything when a batch does not follow the last one (a rollback ran elsewhere)', () => {
    const young = new YoungOutputs(100);
    const b1 = block(1, [{ txid: txid(1), inputs: [], outputs: [{ vout: 0, script: A, amount: 1n }] }]);
    young.committed(plan(young, [b1]).rows, 2);
    const spend = block(2, [{ txid: txid(2), inputs: [{ txid: txid(1), vout: 0 }], outputs: [] }]);
    young.follow(2);
    expect(plan(young, [spend]).rest).toEqual([]);
    young.follow(1); // the index was rolled back to height 0 and block 1 comes again
    expect(plan(young, [spend]).rest).toHaveLength(1);
  });
});
