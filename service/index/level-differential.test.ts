// The LevelDB full index against the SQLite one, each the other's oracle: the same seeded random
// chain (spends within and across batches, several scripts, batches of random sizes), mempool
// transactions that blocks later confirm or that a reorganisation forgets, reorganisations undone
// from the blocks' content and replaced by a longer branch, and a restart of both stores midway.
// After every step, balances, unspent outputs, history pages, outputs by outpoint (the LevelDB
// index reads their scripts from the chain's blocks) and the tip must be the same.
// A failure names its seed; replay it with COUNTERSIGN_INDEX_SEED=<seed> (several: 1,2,3).
import { afterEach, describe, expect, it } from 'vitest';
import { allUnspent } from '../test/all-unspent.ts';
import { openTestStore, type TestStore } from '../store/test-stores.ts';
import { type IndexedBlock, type IndexedTx, UtxoIndexStore } from './utxo-index.ts';
import { handMadeNode } from '../test/hand-made-node.ts';

const SEEDS = (process.env.COUNTERSIGN_INDEX_SEED ?? '1,2,3').split(',').map((s) => Number(s.trim()));
const ROUNDS = 8;

/** mulberry32: a small PRNG, the same sequence for a seed on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const SCRIPTS = Array.from({ length: 6 }, (_, i) => Uint8Array.from([0xa9, 0x14, ...new Array<number>(20).fill(0x10 + i), 0x87]));
type Coins = Map<string, { script: Uint8Array; amount: bigint }>;

/** The random chain and mempool of one seed. */
class Model {
  readonly random: () => number;
  private nextTx = 1;
  /** The active chain, by height from 1. */
  chain: IndexedBlock[] = [];
  /** Every block ever made, by hash: what a rollback asks for. */
  readonly known = new Map<string, IndexedBlock>();
  mempool: IndexedTx[] = [];

  constructor(seed: number) {
    this.random = prng(seed);
  }

  int(below: number): number {
    return Math.floor(this.random() * below);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  private txid(branch: number): string {
    return (this.nextTx++).toString(16).padStart(56, '0') + branch.toString(16).padStart(8, '0');
  }

  /** Unspent outputs after the active chain, and after the mempool too. */
  coins(withMempool: boolean): Coins {
    const coins: Coins = new Map();
    const take = (t: IndexedTx) => {
      for (const i of t.inputs) coins.delete(`${i.txid}:${i.vout}`);
      for (const o of t.outputs) coins.set(`${t.txid}:${o.vout}`, { script: o.script, amount: o.amount });
    };
    for (const b of this.chain) for (const t of b.txs) take(t);
    if (withMempool) for (const t of this.mempool) take(t);
    return coins;
  }

  /** A tx spending 1 to 3 of `coins` (taken out of it) to 1 to 3 scripts; null when none is left. */
  spend(coins: Coins, branch: number): IndexedTx | null {
    const keys = [...coins.keys()];
    if (keys.length === 0) return null;
    const ins = [...new Set(Array.from({ length: 1 + this.int(3) }, () => this.pick(keys)))];
    const total = ins.reduce((s, k) => s + coins.get(k)!.amount, 0n);
    for (const k of ins) coins.delete(k);
    const txid = this.txid(branch);
    const outputs = Array.from({ length: 1 + this.int(3) }, (_, vout) => ({ vout, script: this.pick(SCRIPTS), amount: total / 4n }));
    for (const o of outputs) coins.set(`${txid}:${o.vout}`, { script: o.script, amount: o.amount });
    return { txid, inputs: ins.map((k) => ({ txid: k.split(':')[0]!, vout: Number(k.split(':')[1]) })), outputs };
  }

  /** `n` blocks on the active chain's tip; the first takes the mempool (its txs then confirmed). */
  grow(n: number, branch: number): IndexedBlock[] {
    const coins = this.coins(false);
    const blocks: IndexedBlock[] = [];
    for (let i = 0; i < n; i++) {
      const height = this.chain.length + 1;
      const coinbase: IndexedTx = { txid: this.txid(branch), inputs: [], outputs: [{ vout: 0, script: this.pick(SCRIPTS), amount: 5_000n }] };
      const txs = [coinbase];
      if (i === 0 && this.mempool.length > 0) {
        for (const t of this.mempool) {
          for (const inp of t.inputs) coins.delete(`${inp.txid}:${inp.vout}`);
          for (const o of t.outputs) coins.set(`${t.txid}:${o.vout}`, { script: o.script, amount: o.amount });
        }
        txs.push(...this.mempool);
        this.mempool = [];
      }
      for (let t = 0; t < 1 + this.int(4); t++) {
        const tx = this.spend(coins, branch);
        if (tx) txs.push(tx);
      }
      for (const o of coinbase.outputs) coins.set(`${coinbase.txid}:${o.vout}`, { script: o.script, amount: o.amount });
      const block = { height, hash: `${branch.toString(16).padStart(8, '0')}${height.toString(16).padStart(56, '0')}`, time: 1_700_000_000 + height, txs };
      this.chain.push(block);
      this.known.set(block.hash, block);
      blocks.push(block);
    }
    return blocks;
  }
}

const fmt = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));

describe('the LevelDB full index and the SQLite one, over seeded random chains', () => {
  const opened: TestStore[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.dispose();
  });

  it.each(SEEDS)('seed %i: agree after every step (replay: COUNTERSIGN_INDEX_SEED=<seed>)', async (seed) => {
    const model = new Model(seed);
    const level = await openTestStore('level');
    const sqlite = await openTestStore('sqlite');
    opened.push(level, sqlite);
    // the LevelDB index reads outputs by outpoint from the chain's node: here, every block ever made
    const nodeTxs = handMadeNode((hash) => model.known.get(hash));
    let stores = [new UtxoIndexStore(level.store, 'litecoin', { nodeTxs }), new UtxoIndexStore(sqlite.store, 'litecoin')] as const;
    const steps: string[] = [];

    const both = async (write: (index: UtxoIndexStore) => Promise<void>) => {
      for (const index of stores) await write(index);
    };
    const compare = async (step: string) => {
      steps.push(step);
      const offset = model.int(20);
      // outputs by outpoint (script and amount, spent or not): a few txs of the active chain and the mempool, and one unknown
      const txs = [...Array.from({ length: 4 }, () => model.pick(model.pick(model.chain).txs)), ...model.mempool];
      const outpoints = [...txs.flatMap((t) => t.outputs.map((o) => ({ txid: t.txid, vout: o.vout }))), { txid: 'ff'.repeat(32), vout: 0 }];
      const read = async (index: UtxoIndexStore) =>
        fmt({
          tip: await index.tip(),
          balances: await index.balances(SCRIPTS),
          unspent: await allUnspent(index, SCRIPTS),
          history: await index.history(SCRIPTS, 10_000, 0),
          page: await index.history(SCRIPTS.slice(0, 3), 7, offset),
          used: [...(await index.usedScripts(SCRIPTS))].sort(),
          mempool: await index.mempoolCount(),
          outputs: [...(await index.outputs(outpoints))].sort(([a], [b]) => a.localeCompare(b)),
        });
      const [fromLevel, fromSqlite] = [await read(stores[0]), await read(stores[1])];
      expect(JSON.parse(fromLevel), `seed ${seed}, after: ${steps.slice(-3).join('; ')} (replay: COUNTERSIGN_INDEX_SEED=${seed})`).toEqual(JSON.parse(fromSqlite));
    };
    /** Applies blocks in batches of random sizes, as the indexer does while catching up. */
    const apply = async (blocks: readonly IndexedBlock[]) => {
      for (let i = 0; i < blocks.length; ) {
        const part = blocks.slice(i, i + 1 + model.int(12));
        await both(async (index) => index.applyBlocks(part, await index.mempoolTxids()));
        i += part.length;
      }
    };
    const toMempool = async (n: number) => {
      const coins = model.coins(true);
      for (let i = 0; i < n; i++) {
        const tx = model.spend(coins, 0);
        if (!tx) return;
        model.mempool.push(tx);
        await both((index) => index.applyMempoolTx(tx, 1_800_000_000 + model.mempool.length));
      }
    };

    await apply(model.grow(40, 1));
    await compare('40 blocks');
    for (let round = 0; round < ROUNDS; round++) {
      await toMempool(1 + model.int(3));
      await compare(`round ${round}: mempool of ${model.mempool.length}`);
      if (model.random() < 0.5) {
        // the mempool is confirmed by the next block(s)
        const blocks = model.grow(1 + model.int(3), 1);
        await apply(blocks);
        await compare(`round ${round}: ${blocks.length} block(s) on the tip, the mempool confirmed`);
      }
      // a reorganisation of 1 to 12 blocks, undone from the blocks' content; the mempool is forgotten
      const tip = model.chain.length;
      const fork = tip - 1 - model.int(Math.min(12, tip - 1));
      await both((index) => index.rollbackTo(fork, async (hash) => model.known.get(hash) ?? null));
      model.chain = model.chain.slice(0, fork);
      model.mempool = [];
      await compare(`round ${round}: rolled back from ${tip} to ${fork}`);
      const branch = model.grow(tip - fork + 1 + model.int(4), 2 + round);
      await apply(branch);
      await compare(`round ${round}: branch ${2 + round} to ${model.chain.length}`);
      if (round === Math.floor(ROUNDS / 2)) {
        stores = [new UtxoIndexStore(await level.reopen(), 'litecoin', { nodeTxs }), new UtxoIndexStore(await sqlite.reopen(), 'litecoin')];
        await compare(`round ${round}: both stores restarted`);
      }
    }
  }, 120_000);
});
