// Crash safety measured from outside: an indexing process is killed with SIGKILL at random moments
// and started again until it finishes; its index must then equal one written without a kill,
// row for row (nothing lost, nothing doubled), on both stores, in full and watch mode (a vault paid
// at receive addresses 0, 12 and 30: the gap limit derives more scripts and reads blocks again),
// and for the full index in LevelDB.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedNode, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { chainParams } from '../../../shared/coins/index.ts';
import type { Store } from '../../store/database.ts';
import { openTestStore, STORE_KINDS, type StoreKind, type TestStore } from '../../store/test-stores.ts';
import { join } from 'node:path';
import { LevelIndex } from '../../index/level-index.ts';
import { levelIndexOf, UtxoIndexStore } from '../../index/utxo-index.ts';
import { INDEX_CHILD_ENV, type IndexChildInput } from '../../test/index-child-input.ts';
import { testVault } from '../../test/watch-vault.ts';
import { UtxoIndexer } from './indexer.ts';
import { RpcClient } from './rpc-client.ts';
import { WatchScan } from './watch-scan.ts';
import { WatchList } from './watch.ts';

const CHILD = fileURLToPath(new URL('../../test/index-sync-child.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const BLOCKS = 30;
const SENDS_PER_BLOCK = 8;
const KILLS = 12;

const vault = testVault('index kill');
const VAULT_PAID = [0, 12, 30];
const params = chainParams('litecoin', 'regtest');
let node: RegtestNode;
let birthday: number;

beforeAll(async () => {
  node = await fundedNode({ extraArgs: ['-blockfilterindex=1'] });
  birthday = 60;
  // Wallet payments spend earlier payments' change: spends cross block and batch boundaries.
  for (let b = 0; b < BLOCKS; b++) {
    for (let i = 0; i < SENDS_PER_BLOCK; i++) {
      const to = await node.newAddress(i % 2 === 0 ? 'bech32' : 'legacy');
      await node.rpc.call('sendtoaddress', [to, (10 + ((b * SENDS_PER_BLOCK + i) % 7)) / 100]);
    }
    if (b % 10 === 5) await node.rpc.call('sendtoaddress', [vault.address(false, VAULT_PAID[(b - 5) / 10]!).address, 1]);
    await node.mine(1);
  }
}, 180_000);

afterAll(async () => node?.stop());

/** Every confirmed row of the index, in key order, as text. */
async function dump(store: Store): Promise<string[]> {
  const level = levelIndexOf(store, 'litecoin');
  // LevelDB rows named as the SQL tables that hold the same rows, by their key's tag (level-index.ts)
  const TABLE_OF: Record<string, string> = { '56': 'layout_version', '42': 'chain_blocks', '46': 'funding', '53': 'spending', '54': 'txs', '4b': 'txid_keys' };
  if (level) return (await (await level).entries()).map(([k, v]) => `${TABLE_OF[k.slice(0, 2)] ?? 'unknown'} ${k} ${v}`);
  const tables = ['chain_blocks', 'chain_outputs', 'chain_history', 'chain_balances', 'chain_txids', 'chain_txid_keys'] as const;
  const out: string[] = [];
  for (const table of tables) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)} where chain = 'litecoin' order by 1, 2, 3`.execute(store.db);
    const text = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : String(v));
    for (const r of rows.rows) out.push(`${table} ${Object.keys(r).sort().map((k) => `${k}=${text(r[k])}`).join(' ')}`);
  }
  return out.sort();
}

/**
 * Runs the child once; unless it finishes first, kills it `kill.delayMs` after it announced its
 * `kill.batch`-th batch (so during that batch's pause or its write). True when it finished.
 */
function runChild(input: IndexChildInput, kill: { batch: number; delayMs: number } | null): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { cwd: repoRoot, env: { ...process.env, [INDEX_CHILD_ENV]: JSON.stringify(input) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let timer: NodeJS.Timeout | null = null;
    let batches = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      batches += chunk.toString().split('batch').length - 1;
      if (kill && timer === null && batches >= kill.batch) timer = setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === 'SIGKILL') return resolve(false);
      if (code === 0) return resolve(true);
      reject(new Error(`the indexing process failed (exit ${code}): ${stderr.slice(-2000)}`));
    });
  });
}

const MODES: (readonly [StoreKind, 'full' | 'watch'])[] = [...STORE_KINDS.flatMap((kind) => (['full', 'watch'] as const).map((mode) => [kind, mode] as const)), ['level', 'full']];

/**
 * The victim's tip between runs. A LevelDB folder is one process's: it is opened only while no
 * child runs, and closed again.
 */
async function tipBetweenRuns(t: TestStore): Promise<number | null> {
  if (t.config.kind === 'sqlite' && t.config.indexDir !== undefined) {
    const level = await LevelIndex.open(join(t.config.indexDir, 'litecoin'));
    try {
      return level.tip()?.height ?? null;
    } finally {
      await level.close();
    }
  }
  const watcher = new UtxoIndexStore(t.store, 'litecoin');
  watcher.cacheBalances = false;
  return (await watcher.tip())?.height ?? null;
}

/** Watch mode: the vault registered in the store, from `birthday` (the gap limit's default, 20). */
async function registerVault(store: Store): Promise<void> {
  await new WatchList(store.db, 'litecoin', params).register('', 'vault', { descriptors: [vault.descriptor()], birthdayHeight: birthday, gapLimit: 20 });
}

describe.each(MODES)('an index killed with SIGKILL at random moments, on %s, %s index', (kind, mode) => {
  let reference: TestStore;
  let victim: TestStore;

  beforeAll(async () => {
    reference = await openTestStore(kind);
    victim = await openTestStore(kind);
  });
  afterAll(async () => {
    await reference?.dispose();
    await victim?.dispose();
  });

  it('ends equal, row for row, to an index written without a kill', async () => {
    const rpc = new RpcClient(node.rpcConfig);
    const log = pino({ level: 'silent' });
    const index = new UtxoIndexStore(reference.store, 'litecoin', { watch: mode === 'watch' });
    if (mode === 'watch') {
      await registerVault(reference.store);
      await registerVault(victim.store);
    }
    const watch = mode === 'watch' ? new WatchScan(new WatchList(reference.store.db, 'litecoin', params), rpc, index, params, log) : undefined;
    const indexer = new UtxoIndexer({ rpc, index, params, log, pollIntervalMs: 1000, ...(watch ? { watch } : {}) });
    await indexer.sync();
    rpc.close();
    const expected = await dump(reference.store);
    const tip = await node.rpc.call<number>('getblockcount');
    expect(expected.filter((r) => r.startsWith('chain_blocks')).length).toBe(mode === 'full' ? tip + 1 : tip - birthday + 1);
    // watch mode: every payment to the vault found, the last one only after two rounds of the gap limit
    if (watch) expect((await watch.status('', 'vault'))!.state).toBe('ready');
    if (watch) expect(expected.filter((r) => r.startsWith('chain_outputs')).length).toBe(VAULT_PAID.length);

    const input: IndexChildInput = { rpc: node.rpcConfig, store: victim.config, batchTxs: 3, pauseMs: 100, watch: mode === 'watch' };
    // Deterministic kill points: after one to four batches of a run, at a moment of the pause
    // before a write (100 ms) or of the write itself.
    let seed = 20_261_125;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor(seed / 65_536) % n; // the high bits: an LCG's low bits repeat with a short period
    };
    const nextKill = () => ({ batch: 1 + next(4), delayMs: next(160) });
    let killed = 0;
    let finished = false;
    const tips: Array<number | null> = [];
    for (let i = 0; i < KILLS && !finished; i++) {
      finished = await runChild(input, nextKill());
      if (!finished) killed++;
      tips.push(await tipBetweenRuns(victim));
    }
    if (!finished) finished = await runChild(input, null);
    expect(finished).toBe(true);
    // The kills must have landed while blocks were being written, not only before or after.
    expect(killed).toBeGreaterThanOrEqual(5);
    expect(new Set(tips.filter((h) => h !== null)).size).toBeGreaterThanOrEqual(3);
    expect(await dump(victim.store)).toEqual(expected);
  }, 240_000);
});
