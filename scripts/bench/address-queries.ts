// `npx tsx scripts/bench/address-queries.ts [--rounds 300]`: how the address queries' cost grows
// with an address's history. Fills a store (SQLite, then PostgreSQL when reachable) with one
// address of 10 history entries and one of 10,000, both with 2 unspent outputs at the end, among
// background addresses, then times balance (the store read, its cache off), the first history
// page and the unspent outputs of each through UtxoIndexStore: median of many calls, and the
// 10,000/10 ratios. A measurement, not a test: it asserts only that the answers are the expected
// ones.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openStore, type StoreConfig } from '../../service/store/database.ts';
import { type IndexedBlock, type IndexedTx, UtxoIndexStore } from '../../service/index/utxo-index.ts';
import { UNSPENT_PAGE_MAX } from '../../service/chains/backend.ts';
import { machineLine } from './machine.ts';

const PG_URL = process.env.COUNTERSIGN_BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const PAGE = 25;
const UNSPENT_LEFT = 2;
const BACKGROUND = 40;
const BATCH = 250;

const p2pkh = (tag: number): Uint8Array => Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(16).fill(0x11), (tag >>> 24) & 255, (tag >>> 16) & 255, (tag >>> 8) & 255, tag & 255, 0x88, 0xac]);
const SMALL = p2pkh(1);
const BIG = p2pkh(2);
const background = Array.from({ length: BACKGROUND }, (_, i) => p2pkh(100 + i));
const txid = (n: number): string => n.toString(16).padStart(64, '0');

/** An address and how many history entries it gets. */
interface Plan {
  script: Uint8Array;
  entries: number;
}

/**
 * Each planned address receives (a coinbase output) and spends its oldest receive in turn, the
 * last UNSPENT_LEFT receives kept; its entries are spread evenly over the chain's heights.
 */
function buildChain(plans: readonly Plan[], heights: number): IndexedBlock[] {
  let id = 1;
  const events = plans.map((p) => {
    const receives = (p.entries + UNSPENT_LEFT) / 2;
    const spends = receives - UNSPENT_LEFT;
    if (!Number.isInteger(receives)) throw new Error(`${p.entries} entries cannot leave ${UNSPENT_LEFT} unspent`);
    // receive i at event 2i, its spend at event 2i+1 (while spends remain); the rest receives
    const kinds: Array<'receive' | 'spend'> = [];
    for (let i = 0; i < receives; i++) {
      kinds.push('receive');
      if (i < spends) kinds.push('spend');
    }
    return { ...p, kinds, every: heights / kinds.length, next: 0, unspent: [] as string[] };
  });
  const blocks: IndexedBlock[] = [];
  for (let h = 1; h <= heights; h++) {
    const txs: IndexedTx[] = [{ txid: txid(id++), inputs: [], outputs: [{ vout: 0, script: background[h % BACKGROUND]!, amount: 50_000n }] }];
    // background traffic: a payment among other addresses in every block
    txs.push({ txid: txid(id++), inputs: [], outputs: [{ vout: 0, script: background[(h * 7) % BACKGROUND]!, amount: 1_000n }, { vout: 1, script: background[(h * 13) % BACKGROUND]!, amount: 2_000n }] });
    for (const e of events) {
      while (e.next < e.kinds.length && Math.floor(e.next * e.every) + 1 === h) {
        if (e.kinds[e.next] === 'receive') {
          const received = txid(id++);
          txs.push({ txid: received, inputs: [], outputs: [{ vout: 0, script: e.script, amount: 10_000n }] });
          e.unspent.push(received);
        } else {
          const spent = e.unspent.shift()!;
          txs.push({ txid: txid(id++), inputs: [{ txid: spent, vout: 0 }], outputs: [{ vout: 0, script: background[h % BACKGROUND]!, amount: 9_000n }] });
        }
        e.next++;
      }
    }
    blocks.push({ height: h, hash: `${h.toString(16)}`.padStart(64, 'f'), time: 1_700_000_000 + h, txs });
  }
  for (const e of events) if (e.next !== e.kinds.length) throw new Error(`planned ${e.kinds.length} entries, placed ${e.next}`);
  return blocks;
}

async function median(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, rounds); i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function measure(label: string, config: StoreConfig, blocks: readonly IndexedBlock[], rounds: number): Promise<void> {
  const store = await openStore(config);
  try {
    const index = new UtxoIndexStore(store, 'litecoin');
    index.cacheBalances = false; // time the store's read, not the process's cache
    await index.prepareForBatches();
    const fillStart = performance.now();
    for (let i = 0; i < blocks.length; i += BATCH) await index.applyBlocks(blocks.slice(i, i + BATCH), new Set());
    const fillMs = performance.now() - fillStart;
    const rows: Record<string, { balance: number; history: number; unspent: number; total: number }> = {};
    for (const [name, script, entries] of [['10', SMALL, 10], ['10,000', BIG, 10_000]] as const) {
      const page = await index.history([script], PAGE, 0);
      const unspent = (await index.unspent([script], { limit: UNSPENT_PAGE_MAX })).rows;
      if (page.total !== entries || unspent.length !== UNSPENT_LEFT || page.rows.length !== Math.min(PAGE, entries)) {
        throw new Error(`${label}: address of ${name} entries answers total ${page.total}, ${page.rows.length} rows, ${unspent.length} unspent`);
      }
      rows[name] = {
        balance: await median(rounds, () => index.balances([script])),
        history: await median(rounds, () => index.history([script], PAGE, 0)),
        unspent: await median(rounds, () => index.unspent([script], { limit: UNSPENT_PAGE_MAX })),
        total: page.total,
      };
    }
    const small = rows['10']!;
    const big = rows['10,000']!;
    const ms = (n: number): string => `${(n * 1000).toFixed(0)} µs`;
    console.log(`\n${label}: ${blocks.length} blocks, ${blocks.reduce((n, b) => n + b.txs.length, 0)} txs written in ${(fillMs / 1000).toFixed(1)} s; median of ${rounds} calls each`);
    for (const [query, key] of [['balance (store read)', 'balance'], [`history, first page of ${PAGE}`, 'history'], [`unspent (${UNSPENT_LEFT} outputs)`, 'unspent']] as const) {
      console.log(`  ${query.padEnd(28)} 10 entries ${ms(small[key]).padStart(8)}   10,000 entries ${ms(big[key]).padStart(8)}   ratio 10k/10 = ${(big[key] / small[key]).toFixed(2)}`);
    }
  } finally {
    await store.close();
  }
}

async function postgresProblem(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const { values } = parseArgs({ options: { rounds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 300);
if (!Number.isSafeInteger(rounds) || rounds <= 0) throw new Error('--rounds must be a whole number > 0');

console.log(`address query cost against history length; machine: ${machineLine()}`);
const blocks = buildChain([{ script: SMALL, entries: 10 }, { script: BIG, entries: 10_000 }], 5_000);
const dir = await mkdtemp(join(tmpdir(), 'countersign-address-queries-'));
try {
  await measure('SQLite (file, writer thread)', { kind: 'sqlite', path: join(dir, 'index.sqlite') }, blocks, rounds);
} finally {
  await rm(dir, { recursive: true, force: true });
}
const problem = await postgresProblem();
if (problem !== null) {
  console.log(`\nPostgreSQL: not measured, ${PG_URL} is not reachable (${problem})`);
} else {
  const schema = `cs_addrq_${randomBytes(6).toString('hex')}`;
  try {
    await measure(`PostgreSQL (${PG_URL})`, { kind: 'postgres', url: PG_URL, schema, poolSize: 4 }, blocks, rounds);
  } finally {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
}
