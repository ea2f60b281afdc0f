// `npm run bench`: indexer throughput against a bare block fetch, the indexer's memory, and balance
// queries per second against a bare fastify route, on a freshly built litecoind regtest chain.
// `npm run bench -- --scale`: the cost curve on a mainnet-shaped chain instead (scale.ts).
// `npm run bench -- --hostile [--full] [--kinds ...]`: the hostile-service bench of issue 31 instead (hostile.ts).
// `npm run bench -- --relay [--stores sqlite,postgres] [--rooms 100] [--messages 1000]`: the relay under load (relay.ts).
// `npm run bench -- --utxo-pages [--outputs 400000] [--requests 1000] [--stores ...]`: issue 33's address of
// 400,000 unspent outputs, the service under its heap cap (utxo-pages.ts).
// `npm run bench -- --table-cache [--txs 2000000] [--file-kb 1024] [--bound 74] ...`: LevelDB's open tables, their
// memory and what bounding them costs a get (table-cache.ts).
// Prints figures with their workload and machine; exits 0 even when a target is missed.
import type { FetchForm } from './fetch-blocks.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startLitecoind, type RegtestNode } from '../../dev/chains/litecoind.ts';
import type { StoreConfig } from '../../service/store/database.ts';
import { buildChain, heightAtShare, params as chainParamsOfBench, type BenchChain } from './chain.ts';
import { killChildren, runChild, type ChildRun } from './child.ts';
import { benchHttp, CACHE_FILL } from './http.ts';
import type { ChildInput, ChildResult, WindowCpu } from './index-child.ts';
import { machineLine, mb } from './machine.ts';
import { cpuProfArgs, parseOptions, type BenchOptions } from './options.ts';
import { SERVICE_NODE_FLAGS } from '../../service/node-flags.ts';
import { miniscriptPaymentSizes, vaultPaymentSizes } from './vault-size.ts';
import { runScaleBench } from './scale.ts';

const PG_URL = process.env.COUNTERSIGN_BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const INDEXER_RATIO_TARGET = 0.5;
const RSS_TARGET_MB = 300;
const HTTP_RATIO_TARGET = 0.5;
// Five, not three: on a shared two-core host a busy spell can outlast three runs of one side.
const ROUNDS = 5;
const VAULT_FEE_RATE = 10n;

const cleanups: Array<() => Promise<void>> = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    // Last registered first: servers before the node they read from, the node before its files.
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  })();
  return cleaning;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // `on`, not `once`: Ctrl-C reaches us twice (from the terminal and relayed by tsx), and a second
  // default-handled signal would kill us before the temp files are gone.
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping children and litecoind, removing temp files`);
    killChildren();
    void cleanup().finally(() => process.exit(130));
  });
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const rate = (txs: number, ms: number): number => (txs * 1000) / ms;
const verdict = (ok: boolean): string => (ok ? 'ok' : 'MISSED');
// Rounded down, so a ratio shown at its target has met it.
const ratioText = (ratio: number): string => (Math.floor(ratio * 100) / 100).toFixed(2);

interface IndexRun {
  label: string;
  txs: number;
  blocks: number;
  ms: number;
  peakKb: number;
  startKb: number;
  writerStartMs: number;
  cpu: WindowCpu;
}

// Both sides share the machine's cores with litecoind, so what each process used while timed tells
// a slower machine (as many cores busy, for longer) from more work (more CPU time).
const cpuText = (cpu: WindowCpu, ms: number): string =>
  `CPU while timed: this process ${fmt(cpu.ownMs)} ms, litecoind ${fmt(cpu.nodeMs)} ms (${((cpu.ownMs + cpu.nodeMs) / ms).toFixed(1)} of ${cpus().length} cores busy)`;

async function postgresReachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

async function main(options: BenchOptions): Promise<void> {
  const benchStart = Date.now();
  const work = await mkdtemp(join(tmpdir(), 'countersign-bench-'));
  cleanups.push(() => rm(work, { recursive: true, force: true }));

  console.log('Countersign benchmarks');
  const node: RegtestNode = await startLitecoind({ walletName: 'bench' });
  cleanups.push(() => node.stop());
  const netInfo = await node.rpc.call<{ subversion: string }>('getnetworkinfo');
  console.log(`machine: ${machineLine({ litecoind: netInfo.subversion.replace(/\//g, '') })}`);

  // ---- chain ------------------------------------------------------------------------------------
  console.log(`\nbuilding the chain (${fmt(options.txs)} payment transactions)...`);
  const chain: BenchChain = await buildChain(node, options.txs, (line) => console.log(line));
  const workload =
    `litecoind -regtest chain: ${fmt(chain.totalTxs)} txs in ${chain.tipHeight + 1} blocks (heights 0..${chain.tipHeight}): ` +
    `${fmt(chain.paymentTxs)} P2PKH payments (1 in, 2 out) in ${chain.blocksWithPayments} blocks of <= 2,000, ` +
    `${chain.fanoutTxs} fan-outs of 500 outputs, ${chain.tipHeight + 1} coinbases; ${chain.addresses} addresses; ` +
    `built in ${(chain.buildMs / 1000).toFixed(1)} s`;

  // ---- 1. indexer -------------------------------------------------------------------------------
  console.log('\n== 1. Indexer throughput ==');
  console.log(`workload: ${workload}`);
  const rpc = node.rpcConfig;
  const profArgs = (name: string): string[] => cpuProfArgs(options.cpuProfDir, name);
  const child = (input: ChildInput, prof: string): Promise<ChildRun<ChildResult>> => runChild<ChildResult>('./index-child.ts', input, [...SERVICE_NODE_FLAGS, ...profArgs(prof)]);

  const indexRun = async (label: string, store: StoreConfig, toHeight: number, txs: number, prof: string): Promise<IndexRun> => {
    const run = await child({ mode: 'index', rpc, toHeight, store, nodePid: node.pid }, prof);
    if (run.result.blocks !== toHeight + 1) throw new Error(`${label}: indexed ${run.result.blocks} blocks, expected ${toHeight + 1}`);
    return {
      label,
      txs,
      blocks: run.result.blocks,
      ms: run.result.ms,
      peakKb: Math.max(run.result.peakRssKb, run.sampledPeakKb),
      startKb: run.result.startRssKb,
      writerStartMs: run.result.writerStartMs ?? 0,
      cpu: run.result.cpu,
    };
  };
  const describeRun = (r: IndexRun): string =>
    `${fmt(rate(r.txs, r.ms))} tx/s (${fmt(r.txs)} txs, ${r.blocks} blocks in ${(r.ms / 1000).toFixed(2)} s); ` +
    `peak RSS ${mb(r.peakKb)} (${mb(r.startKb)} before the first block); ${cpuText(r.cpu, r.ms)}` +
    (r.label.startsWith('SQLite') ? `; the store's writer thread started in ${fmt(r.writerStartMs)} ms, before the timer` : '');

  // One uncounted fetch first: it reads the block files into the page cache for every run after
  // it. Then fetch and index take turns, best of ROUNDS each, so a busy spell of the machine
  // slows both sides alike rather than one.
  // Both block forms are fetched (raw decoded by the codec, verbose parsed); the faster is the
  // baseline, so a faster block reader in the indexer cannot flatter the ratio.
  const fetch = (form: FetchForm, prof: string) => child({ mode: 'fetch', form, rpc, toHeight: chain.tipHeight, nodePid: node.pid }, prof);
  await fetch('raw', 'fetch-warm-up');
  const fetches: Record<FetchForm, ChildResult[]> = { raw: [], verbose: [] };
  const sqliteRuns: IndexRun[] = [];
  for (let i = 1; i <= ROUNDS; i++) {
    for (const form of ['raw', 'verbose'] as const) fetches[form].push((await fetch(form, `fetch-${form}-${i}`)).result);
    sqliteRuns.push(await indexRun('SQLite, full chain', { kind: 'sqlite', path: join(work, `full-${i}.sqlite`) }, chain.tipHeight, chain.totalTxs, `index-sqlite-full-${i}`));
  }
  const bestOf = (runs: ChildResult[]): ChildResult => runs.reduce((best, r) => (r.ms < best.ms ? r : best));
  const [bestRaw, bestVerbose] = [bestOf(fetches.raw), bestOf(fetches.verbose)];
  const baselineForm: FetchForm = bestRaw.ms <= bestVerbose.ms ? 'raw' : 'verbose';
  const baseline = baselineForm === 'raw' ? bestRaw : bestVerbose;
  if (baseline.txs !== chain.totalTxs) throw new Error(`the baseline fetched ${baseline.txs} txs, the chain has ${chain.totalTxs}`);
  const baselineRate = rate(baseline.txs, baseline.ms);
  console.log(
    `(a) baseline, fetch only (getblockhash batches of 200, 8 getblock in flight: raw <hash> 0 decoded by the codec ${fmt(rate(bestRaw.txs, bestRaw.ms))} tx/s, ` +
      `verbose <hash> 2 JSON.parse ${fmt(rate(bestVerbose.txs, bestVerbose.ms))} tx/s; the faster, ${baselineForm}, is the baseline), child process, best of ${ROUNDS} after a warm-up: ` +
      `${fmt(baselineRate)} tx/s (${fmt(baseline.txs)} txs, ${baseline.blocks} blocks in ${fetches[baselineForm].map((r) => (r.ms / 1000).toFixed(2)).join(' / ')} s; ` +
      `peak RSS ${mb(baseline.peakRssKb)}; ${cpuText(baseline.cpu, baseline.ms)})`,
  );
  const half = heightAtShare(chain, 0.5);
  const sqliteHalf = await indexRun('SQLite, half chain', { kind: 'sqlite', path: join(work, 'half.sqlite') }, half.height, half.txs, 'index-sqlite-half');
  const sqliteFull = sqliteRuns.reduce((best, r) => (r.ms < best.ms ? r : best));
  const sqlitePath = join(work, 'full-1.sqlite');
  // Memory is judged on the worse run.
  const fullPeakKb = Math.max(...sqliteRuns.map((r) => r.peakKb));
  const sqliteRatio = rate(sqliteFull.txs, sqliteFull.ms) / baselineRate;
  console.log(
    `(b) indexer from height 0 into a fresh SQLite store, child process, best of ${ROUNDS} (each into a fresh store, in turn with (a)): ${describeRun(sqliteFull)}; ` +
      `all runs ${sqliteRuns.map((r) => (r.ms / 1000).toFixed(2)).join(' / ')} s, peak RSS ${sqliteRuns.map((r) => mb(r.peakKb)).join(' / ')}`,
  );
  console.log(`    ratio b/a = ${ratioText(sqliteRatio)} (target >= ${INDEXER_RATIO_TARGET}) ${verdict(sqliteRatio >= INDEXER_RATIO_TARGET)}`);
  console.log(`    half the chain (heights 0..${half.height}) into another fresh SQLite store: ${describeRun(sqliteHalf)}`);
  // The indexer keeps 6 blocks in flight, so how many big blocks a run contains matters as much as its length.
  const bigBlocks = (toHeight: number): number => chain.txsPerHeight.slice(0, toHeight + 1).filter((n) => n > 1).length;
  console.log(
    `    peak RSS: ${mb(sqliteHalf.peakKb)} for ${fmt(sqliteHalf.txs)} txs (${bigBlocks(half.height)} blocks with payments), ` +
      `${mb(fullPeakKb)} for ${fmt(sqliteFull.txs)} txs (${bigBlocks(chain.tipHeight)} blocks with payments; largest ${fmt(Math.max(...chain.txsPerHeight))} txs) ` +
      `(target < ${RSS_TARGET_MB} MB, flat in chain length) ${verdict(fullPeakKb / 1024 < RSS_TARGET_MB)}`,
  );

  let pgLine: string;
  let pgRatio: number | undefined;
  const pgProblem = await postgresReachable();
  if (pgProblem === null) {
    const schema = `cs_bench_${randomBytes(6).toString('hex')}`;
    cleanups.push(() => dropSchema(schema));
    const pgFull = await indexRun('PostgreSQL, full chain', { kind: 'postgres', url: PG_URL, schema }, chain.tipHeight, chain.totalTxs, 'index-postgres-full');
    pgRatio = rate(pgFull.txs, pgFull.ms) / baselineRate;
    pgLine = `(b) indexer into a fresh PostgreSQL schema (${PG_URL.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')}): ${describeRun(pgFull)}; ratio b/a = ${ratioText(pgRatio)}`;
  } else {
    pgLine = `(b) PostgreSQL: not measured, ${PG_URL} is not reachable (${pgProblem})`;
  }
  console.log(pgLine);

  // ---- 2. HTTP ----------------------------------------------------------------------------------
  console.log('\n== 2. Balance queries ==');
  console.log(
    `workload: GET /address/balance/litecoin/${chain.hot.address} with X-API-KEY, service on the SQLite store of (b) (${fmt(chain.totalTxs)} txs), logging at its default level (info) to a file; ` +
      `vs. GET of a constant JSON object from a bare fastify route; both on 127.0.0.1 in this process; autocannon in a child process, ` +
      `${options.connections} connections, ${options.durationS} s per target in ${ROUNDS} runs taken in turns with the bare route (best of each), each after a 1 s warm-up`,
  );
  const http = await benchHttp(
    {
      node,
      sqlitePath,
      logPath: join(work, 'service.log'),
      address: chain.hot.address,
      expectedBalance: chain.hot.balance,
      emptyAddress: chain.emptyAddress,
      connections: options.connections,
      durationS: options.durationS,
      rounds: ROUNDS,
    },
    (fn) => cleanups.push(fn),
  );
  const httpRatio = http.balance.reqPerSec / http.bare.reqPerSec;
  const loadLine = (r: typeof http.bare): string =>
    `${fmt(r.reqPerSec)} req/s (${fmt(r.total)} requests), p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms` + (r.runs.length > 1 ? `; runs ${r.runs.map(fmt).join(' / ')} req/s` : '');
  console.log(`bare fastify, constant JSON: ${loadLine(http.bare)}`);
  console.log(`balance of an address with ${fmt(http.historyRows)} history rows: ${loadLine(http.balance)}`);
  console.log(`ratio = ${ratioText(httpRatio)} (target >= ${HTTP_RATIO_TARGET}) ${verdict(httpRatio >= HTTP_RATIO_TARGET)}`);
  console.log(
    `for reference, balance of an address with no history (fixed cost per request): ${loadLine(http.emptyBalance)}; ` +
      `ratio ${ratioText(http.emptyBalance.reqPerSec / http.bare.reqPerSec)} (in the same turns as the balance above)`,
  );
  const fullRatio = http.balanceFullCaches.reqPerSec / http.bareFullCaches.reqPerSec;
  console.log(
    `the same address once ${fmt(CACHE_FILL)} other addresses were asked for (the service's caches full, as on a busy service): ` +
      `${loadLine(http.balanceFullCaches)}; bare fastify in turns with it: ${loadLine(http.bareFullCaches)}; ` +
      `ratio ${ratioText(fullRatio)} (target >= ${HTTP_RATIO_TARGET}) ${verdict(fullRatio >= HTTP_RATIO_TARGET)}`,
  );

  // ---- 3. vault payment size ----------------------------------------------------------------------
  console.log('\n== 3. Vault payment size ==');
  console.log(`workload: one 2-of-3 payment (1 input, 2 outputs: recipient and change), signed, per script type; fee at ${VAULT_FEE_RATE} litoshi/vbyte`);
  const sizes = vaultPaymentSizes(chainParamsOfBench, await node.newAddress('bech32'), VAULT_FEE_RATE);
  for (const s of sizes) {
    // The node decodes the same bytes: its vsize is the one miners charge for.
    const decoded = await node.rpc.call<{ vsize: number }>('decoderawtransaction', [s.hex]);
    if (decoded.vsize !== s.vsize) throw new Error(`${s.scriptType}: the node says vsize ${decoded.vsize}, we say ${s.vsize}`);
    console.log(`${s.scriptType.padEnd(10)} vsize ${s.vsize} (weight ${s.weight}), fee ${fmt(Number(s.fee))} litoshi`);
  }
  const legacy = sizes.find((s) => s.scriptType === 'p2sh')!;
  const native = sizes.find((s) => s.scriptType === 'p2wsh')!;
  console.log(`native segwit pays ${ratioText(native.vsize / legacy.vsize)} of the legacy P2SH fee`);
  console.log('the same payment from a wsh miniscript vault: the 2-of-3, or after 144 blocks 1 of 2 recovery keys (its witness as the service finalizes it)');
  const recoverySizes = miniscriptPaymentSizes(chainParamsOfBench, await node.newAddress('bech32'), VAULT_FEE_RATE);
  for (const s of recoverySizes) {
    const decoded = await node.rpc.call<{ vsize: number }>('decoderawtransaction', [s.hex]);
    if (decoded.vsize !== s.vsize) throw new Error(`miniscript ${s.path} path: the node says vsize ${decoded.vsize}, we say ${s.vsize}`);
    console.log(
      `miniscript ${s.path.padEnd(8)} path: vsize ${s.vsize} (weight ${s.weight}), fee ${fmt(Number(s.fee))} litoshi; ${ratioText(s.vsize / native.vsize)} of the plain P2WSH 2-of-3`,
    );
  }

  // ---- summary ----------------------------------------------------------------------------------
  const rows: Array<[string, string, string, string]> = [
    ['indexer / fetch, SQLite', ratioText(sqliteRatio), `>= ${INDEXER_RATIO_TARGET}`, verdict(sqliteRatio >= INDEXER_RATIO_TARGET)],
    [
      'indexer / fetch, PostgreSQL',
      pgRatio === undefined ? 'n/a' : ratioText(pgRatio),
      '(extra)',
      pgRatio === undefined ? 'not measured' : '',
    ],
    ['indexer peak RSS, full chain', mb(fullPeakKb), `< ${RSS_TARGET_MB} MB`, verdict(fullPeakKb / 1024 < RSS_TARGET_MB)],
    ['indexer peak RSS, half chain', mb(sqliteHalf.peakKb), '(flat)', ''],
    ['balance / bare fastify req/s', ratioText(httpRatio), `>= ${HTTP_RATIO_TARGET}`, verdict(httpRatio >= HTTP_RATIO_TARGET)],
    ['  the same, caches full', ratioText(fullRatio), `>= ${HTTP_RATIO_TARGET}`, verdict(fullRatio >= HTTP_RATIO_TARGET)],
    ...sizes.map((v): [string, string, string, string] => [`2-of-3 payment vsize, ${v.scriptType}`, `${v.vsize} vB`, '(extra)', '']),
    ...recoverySizes.map((v): [string, string, string, string] => [`miniscript vault payment vsize, ${v.path} path`, `${v.vsize} vB`, '(extra)', '']),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['figure', 'value', 'target'][i]!.length));
  const line = (r: readonly string[]): string => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ').trimEnd();
  console.log('\n== Summary ==');
  console.log(line(['figure', 'value', 'target', '']));
  for (const r of rows) console.log(line(r));
  console.log(`(${fmt(chain.totalTxs)} txs, ${options.connections} connections x ${options.durationS} s; whole bench ${((Date.now() - benchStart) / 1000).toFixed(0)} s)`);
}

async function scaleMain(options: BenchOptions): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'countersign-bench-'));
  // COUNTERSIGN_BENCH_KEEP=1 keeps the stores and the services' logs, to look into a run
  if (process.env.COUNTERSIGN_BENCH_KEEP === '1') console.log(`keeping the work folder ${work}`);
  else cleanups.push(() => rm(work, { recursive: true, force: true }));
  await runScaleBench(options, { work, pgUrl: PG_URL, pgProblem: await postgresReachable(), onCleanup: (fn) => cleanups.push(fn), dropSchema });
}

// `--relay`: the relay under load instead (relay.ts), its own options.
if (process.argv.includes('--relay')) {
  const { runRelayBench } = await import('./relay.ts');
  process.exit(await runRelayBench(process.argv.slice(2)));
}
// `--utxo-pages`: issue 33's address of 400,000 unspent outputs under the heap cap (utxo-pages.ts), its own options.
if (process.argv.includes('--utxo-pages')) {
  const { runUtxoPagesBench } = await import('./utxo-pages.ts');
  process.exit(await runUtxoPagesBench(process.argv.slice(2)));
}

// `--table-cache`: LevelDB's open tables, bounded against classic-level's default (table-cache.ts), its own options.
if (process.argv.includes('--table-cache')) {
  const { runTableCacheBench } = await import('./table-cache.ts');
  process.exit(await runTableCacheBench(process.argv.slice(2)));
}

// `--hostile`: the hostile-service bench instead (hostile.ts), its own options.
if (process.argv.includes('--hostile')) {
  const { runHostileBench } = await import('./hostile.ts');
  process.exit(await runHostileBench(process.argv.slice(2)));
}

let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2));
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
try {
  await (options.scale ? scaleMain(options) : main(options));
} catch (err) {
  // After a signal, the failures are only the node going away under us.
  if (!interrupted) console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = interrupted ? 130 : 1;
} finally {
  await cleanup();
}
