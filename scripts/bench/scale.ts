// `npm run bench -- --scale`: the index's cost curve on a mainnet-shaped chain (scale-chain.ts).
// For SQLite and PostgreSQL: the indexer's rate against a bare block fetch over equal windows of
// the chain ending at 100k, 300k and 1M transactions (and at its end on a longer chain), its peak
// RSS and the store's size per transaction there, projected to Bitcoin and Litecoin mainnet; then
// the service's answers for a 10-entry and a 10,000-entry address; then watch mode: the time to a
// vault's first correct balance from two birthdays (scale-watch.ts).
// Prints figures with their workload and machine; exits 0 even when a target is missed.
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import type { StoreConfig } from '../../service/store/database.ts';
import type { ServiceConfigInput } from '../../service/config.ts';
import { SERVICE_NODE_FLAGS } from '../../service/node-flags.ts';
import { runChild } from './child.ts';
import { machineLine, mb } from './machine.ts';
import { cpuProfArgs, type BenchOptions, type ScaleStore } from './options.ts';
import { scaleChain, startScaleNode, type ScaleManifest } from './scale-chain.ts';
import type { ScaleChildInput, ScaleChildResult, StageResult } from './scale-child.ts';
import type { FetchForm } from './fetch-blocks.ts';
import { benchScaleHttp, type Probe, type ScaleHttpResult } from './scale-http.ts';
import { CHECKPOINTS_AT_1M, checkpoints, stopHeights, type Checkpoint } from './scale-stages.ts';
import { BIRTHDAY_EARLY, BIRTHDAY_LATE, runWatchBench } from './scale-watch.ts';
import { benchFilterMatch } from './filter-match.ts';
import { projectionLines } from './mainnet-projection.ts';

export interface ScaleBenchContext {
  work: string;
  pgUrl: string;
  /** null when PostgreSQL answers; otherwise why not. */
  pgProblem: string | null;
  onCleanup: (fn: () => Promise<void>) => void;
  dropSchema: (schema: string) => Promise<void>;
}

// watchOverFull: issue 25's bound on the watch's time to a first correct balance against the full
// index of the chain; watchGrowth: how much slower the later birthday (3x the chain before it, the
// same blocks after it) may be before that counts as growing with the chain, noise allowed.
const TARGET = { sqliteRatio: 0.7, sqliteKeep: 0.85, pgRatio: 0.5, rssMb: 300, balanceRatio: 0.7, largeOverSmall: 5, watchOverFull: 0.05, watchGrowth: 1.2 } as const;
// Issue 36's targets for the LevelDB full index, the one aimed at mainnet: index / raw fetch, the
// last window's rate against the first's, bytes per tx after a full compaction, the indexer's RSS.
const LEVEL_TARGET = { ratio: 0.4, keep: 0.85, bytesPerTx: 150, rssMb: 400 } as const;

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ratioText = (ratio: number): string => (Math.floor(ratio * 100) / 100).toFixed(2);
const verdict = (ok: boolean): string => (ok ? 'ok' : 'MISSED');
const kTxs = (n: number): string => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(n % 1_000_000 === 0 ? 0 : 2)}M` : `${Math.round(n / 1000)}k`);

const STORE_NAME: Record<ScaleStore, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', level: 'LevelDB' };
const STORE_FRESH: Record<ScaleStore, string> = { sqlite: 'a fresh SQLite file', postgres: 'a fresh PostgreSQL schema', level: 'a fresh LevelDB folder (beside a SQLite file)' };
const RATIO_TARGET: Record<ScaleStore, number> = { sqlite: TARGET.sqliteRatio, postgres: TARGET.pgRatio, level: LEVEL_TARGET.ratio };

interface StoreCurve {
  store: ScaleStore;
  points: Array<{ checkpoint: Checkpoint; stage: StageResult; rate: number; ratio: number }>;
  totalMs: number;
  http: ScaleHttpResult;
}

function workloadLine(m: ScaleManifest): string {
  const outputs = m.outputs;
  const mix = Object.entries(m.outputsByType)
    .map(([type, n]) => `${type} ${((100 * n) / outputs).toFixed(0)}%`)
    .join(', ');
  return (
    `litecoind -regtest, mainnet-shaped: ${fmt(m.txs)} txs in ${m.tipHeight + 1} blocks, ${fmt(m.inputs)} inputs and ${fmt(outputs)} outputs ` +
    `(${(m.inputs / m.builtTxs).toFixed(2)} in / ${(outputs / m.builtTxs).toFixed(2)} out per built tx), ${fmt(m.distinctScripts)} distinct scripts (${mix}); ` +
    `${(100 * m.reuse.outputs).toFixed(0)}% of outputs pay a script seen before (payments ${(100 * m.reuse.payments).toFixed(0)}%, change ${(100 * m.reuse.change).toFixed(0)}%); ${fmt(m.consolidations)} consolidations, ${fmt(m.fanouts)} fan-outs; seed ${m.seed}`
  );
}

export async function runScaleBench(options: BenchOptions, ctx: ScaleBenchContext): Promise<void> {
  const started = Date.now();
  // The indexer's memory as deployed: the unit (deploy/countersign.service) caps glibc's arenas,
  // which the parse thread would otherwise multiply.
  process.env.MALLOC_ARENA_MAX ??= '2';
  console.log(`indexer environment: MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX} (the deploy unit's)`);
  console.log('Countersign scale benchmark: the index at mainnet shape');
  const { manifest, datadir, fromCache } = await scaleChain({ txs: options.scaleTxs, cacheDir: options.cacheDir, progress: (line) => console.log(line) });
  console.log(fromCache ? `chain: from the cache in ${datadir} (built in ${(manifest.buildMs / 1000).toFixed(0)} s)` : `chain: built in ${(manifest.buildMs / 1000).toFixed(0)} s into ${datadir}`);
  // The harness's 5 s -rpcservertimeout resets a connection whose answer takes longer, which a
  // verbose block of ~2,500 txs can on a loaded machine: the bench measures, it must not fail.
  const node = await startScaleNode(datadir, undefined, ['-rpcservertimeout=300']);
  ctx.onCleanup(() => node.stop());
  const netInfo = await node.rpc.call<{ subversion: string }>('getnetworkinfo');
  console.log(`machine: ${machineLine({ litecoind: netInfo.subversion.replace(/\//g, '') })}`);
  console.log(`workload: ${workloadLine(manifest)}`);

  const points = checkpoints(manifest.txsPerHeight);
  const stops = stopHeights(points);
  // Minutes, not the service's 30 s: on a busy shared host one verbose 2,500-tx block can take longer.
  const rpc = { ...node.rpcConfig, timeoutMs: 600_000 };
  const profArgs = (name: string): string[] => cpuProfArgs(options.cpuProfDir, name);
  const child = (input: ScaleChildInput, prof: string) => runChild<ScaleChildResult>('./scale-child.ts', input, [...SERVICE_NODE_FLAGS, ...profArgs(prof)]);

  // One uncounted fetch of the whole chain reads the block files into the page cache; then each
  // window is fetched once before every store's run and once after, in both forms (raw blocks
  // decoded by the codec, verbose JSON parsed): the best of each counts, and the faster form is
  // the baseline, so a faster block reader in the indexer cannot flatter its ratio.
  console.log('\nwarming the page cache with one fetch of the whole chain...');
  await child({ mode: 'fetch', form: 'raw', rpc, nodePid: node.pid, windows: [{ fromHeight: -1, toHeight: manifest.tipHeight }] }, 'fetch-warm-up');
  const forms: FetchForm[] = ['raw', 'verbose'];
  const fetchBest: Record<FetchForm, number[]> = { raw: points.map(() => Infinity), verbose: points.map(() => Infinity) };
  const fetchRound = async (i: number): Promise<void> => {
    for (const form of forms) {
      const { result } = await child({ mode: 'fetch', form, rpc, nodePid: node.pid, windows: points.map((p) => ({ fromHeight: p.fromHeight, toHeight: p.toHeight })) }, `fetch-${form}-${i}`);
      result.stages.forEach((s, k) => (fetchBest[form][k] = Math.min(fetchBest[form][k]!, s.ms)));
    }
  };
  const indexBlocks = options.indexBlocks === undefined ? {} : { blocks: options.indexBlocks };

  const curves: StoreCurve[] = [];
  let round = 0;
  for (const store of options.stores) {
    if (store === 'postgres' && ctx.pgProblem !== null) {
      console.log(`\nPostgreSQL: not measured, ${ctx.pgUrl} is not reachable (${ctx.pgProblem})`);
      continue;
    }
    await fetchRound(++round);
    const schema = `cs_scale_${randomBytes(6).toString('hex')}`;
    const sqlitePath = join(ctx.work, `scale-${store}.sqlite`);
    const indexDir = join(ctx.work, 'scale-index');
    const config: StoreConfig =
      store === 'postgres'
        ? { kind: 'postgres', url: ctx.pgUrl, schema }
        : { kind: 'sqlite', path: sqlitePath, ...(store === 'level' ? { indexDir } : {}), ...(options.cacheMb === undefined ? {} : { cacheMb: options.cacheMb }) };
    if (store === 'postgres') ctx.onCleanup(() => ctx.dropSchema(schema));
    const budget = store !== 'postgres' && options.cacheMb !== undefined ? ` with an index cache budget of ${options.cacheMb} MiB` : '';
    console.log(`\nindexing the chain into ${STORE_FRESH[store]}${budget}, stopping at heights ${stops.join(', ')}...`);
    const run = await child({ mode: 'index', rpc, nodePid: node.pid, stops, store: config, ...indexBlocks }, `index-${store}`);
    const stages = run.result.stages;
    for (const st of stages) console.log(`  to height ${st.toHeight}: ${(st.ms / 1000).toFixed(2)} s, peak RSS ${mb(st.peakRssKb)} (own memory ${mb(st.peakAnonKb)}), store ${fmt(st.storeBytes / 2 ** 20)} MiB`);
    const cacheMb = options.cacheMb === undefined ? {} : { cacheMb: options.cacheMb };
    const database: ServiceConfigInput['database'] = store === 'postgres' ? { postgres: ctx.pgUrl, schema } : store === 'level' ? { sqlite: sqlitePath, index: indexDir, ...cacheMb } : { sqlite: sqlitePath, ...cacheMb };
    const http = await benchScaleHttp(
      { node, database, logPath: join(ctx.work, `service-${store}.log`), small: manifest.probes.small, large: manifest.probes.large, rounds: 200, loadRounds: 3, loadSeconds: 3 },
      ctx.onCleanup,
    );
    curves.push({
      store,
      totalMs: stages.reduce((a, s) => a + s.ms, 0),
      http,
      points: points.map((checkpoint) => {
        const stage = stages.find((s) => s.toHeight === checkpoint.toHeight)!;
        return { checkpoint, stage, rate: (checkpoint.windowTxs * 1000) / stage.ms, ratio: 0 };
      }),
    });
  }
  if (curves.length === 0) throw new Error('no store was measured');
  await fetchRound(++round);

  const formRates = (form: FetchForm): number[] => points.map((p, k) => (p.windowTxs * 1000) / fetchBest[form][k]!);
  const rawRates = formRates('raw');
  const verboseRates = formRates('verbose');
  const fetchRates = points.map((_, k) => Math.max(rawRates[k]!, verboseRates[k]!));
  for (const curve of curves) curve.points.forEach((pt, k) => (pt.ratio = pt.rate / fetchRates[k]!));

  // ---- the curve --------------------------------------------------------------------------------
  console.log(
    `\n== Cost curve (rates over the ${fmt(points[0]!.windowTxs)}-ish transactions before each size; fetch: best of ${round} rounds of each form, ` +
      `the faster is the baseline; the indexer read ${options.indexBlocks ?? 'the coin table\'s form (raw)'} blocks) ==`,
  );
  // peak RSS counts the file pages a store maps (LevelDB maps its tables); own: RssAnon, sampled
  const header = ['index holds', 'fetch raw tx/s', 'fetch verbose tx/s', 'baseline tx/s', ...curves.flatMap((c) => [`${c.store} tx/s`, 'ratio', 'peak RSS', 'own', 'bytes/tx'])];
  const rows = points.map((p, k) => [
    `${kTxs(p.txs)} (h ${p.toHeight})`,
    fmt(rawRates[k]!),
    fmt(verboseRates[k]!),
    fmt(fetchRates[k]!),
    ...curves.flatMap((c) => {
      const pt = c.points[k]!;
      return [fmt(pt.rate), ratioText(pt.ratio), mb(pt.stage.peakRssKb), mb(pt.stage.peakAnonKb), fmt(pt.stage.storeBytes / p.txs)];
    }),
  ]);
  printTable(header, rows);
  for (const c of curves) {
    const cpu = c.points.map((pt) => `${kTxs(pt.checkpoint.txs)}: ${((pt.stage.cpuOwnMs + pt.stage.cpuNodeMs) / pt.stage.ms).toFixed(1)} of ${cpus().length} cores`).join(', ');
    console.log(`${c.store}: whole chain in ${(c.totalMs / 1000).toFixed(1)} s (${fmt((manifest.txs * 1000) / c.totalMs)} tx/s); cores busy in each window (indexer + litecoind): ${cpu}`);
    const last = c.points[c.points.length - 1];
    const compacted = last?.stage.compacted;
    if (last && compacted) {
      console.log(`${c.store}: after a full compaction at ${kTxs(last.checkpoint.txs)} (${(compacted.ms / 1000).toFixed(1)} s): ${fmt(compacted.bytes / last.checkpoint.txs)} bytes/tx (${mb(compacted.bytes / 1024)} on disk; ${fmt(last.stage.storeBytes / last.checkpoint.txs)} before)`);
    }
  }
  console.log('\n== Projected full index of a mainnet, from the curve above (mainnet-projection.ts) ==');
  for (const c of curves) {
    const measured = c.points.map((pt) => ({ txs: pt.checkpoint.txs, rate: pt.rate, bytesPerTx: pt.stage.storeBytes / pt.checkpoint.txs }));
    for (const line of projectionLines(c.store, measured, c.totalMs / 1000)) console.log(line);
  }

  // ---- queries ----------------------------------------------------------------------------------
  const probes = `the ${manifest.probes.small.entries}-entry address (${manifest.probes.small.unspent} unspent) and the ${fmt(manifest.probes.large.entries)}-entry one (${manifest.probes.large.unspent} unspent)`;
  console.log(`\n== Address queries over the full index: ${probes}; one request at a time, p50 (p90) in ms, 200 rounds in turns ==`);
  const [few, many] = [manifest.probes.small.entries, manifest.probes.large.entries].map((n) => (n >= 1000 ? kTxs(n) : String(n)));
  const qHeader = ['store', 'bare route', ...['balance', 'history', 'utxos'].flatMap((q) => [`${q} ${few}`, `${q} ${many}`, 'x'])];
  const qRows = curves.map((c) => [
    c.store,
    `${c.http.bareLatency.p50Ms.toFixed(2)} (${c.http.bareLatency.p90Ms.toFixed(2)})`,
    ...c.http.queries.flatMap((q) => [`${q.small.p50Ms.toFixed(2)} (${q.small.p90Ms.toFixed(2)})`, `${q.large.p50Ms.toFixed(2)} (${q.large.p90Ms.toFixed(2)})`, (q.large.p50Ms / q.small.p50Ms).toFixed(1)]),
  ]);
  printTable(qHeader, qRows);
  for (const c of curves) {
    console.log(`${c.store}: balance of the large address under load ${fmt(c.http.balanceReqPerSec)} req/s vs bare fastify ${fmt(c.http.bareReqPerSec)} req/s (10 connections, best of 3 runs of 3 s each)`);
  }

  // ---- watch mode -------------------------------------------------------------------------------
  const watchRows = options.noWatch ? [] : await watchMode();
  async function watchMode(): Promise<string[][]> {
    // The cached datadir is copied for the watch forks: its node must be down while the files are read.
    await node.stop();
    console.log('\n== Watch mode: registration to the first correct balance of a 2-of-3 vault with 50 transactions, through BIP158 filters ==');
    const watch = await runWatchBench({ datadir, manifest, work: ctx.work, onCleanup: ctx.onCleanup, progress: (line) => console.log(line), nodeArgs: profArgs });
    const full = curves.find((c) => c.store === 'sqlite') ?? curves[0]!;
    console.log(`filter index of the ${fmt(manifest.txs)}-tx chain built by litecoind in ${(watch.filterIndexMs / 1000).toFixed(1)} s (once per node, not counted below)`);
    console.log(`workload: ${watch.segment}`);
    const wHeader = ['birthday', 'chain before it', 'first correct balance', 'CPU (service + litecoind)', 'blocks checked / fetched', `/ full index (${full.store})`, 'balance'];
    const wRows = watch.scenarios.map((sc) => [
      `h ${sc.birthday} (${(sc.share * 100).toFixed(0)}%)`,
      `${fmt(sc.txsBefore)} txs`,
      `${(sc.result.ms / 1000).toFixed(2)} s (rounds ${sc.rounds.map((ms) => (ms / 1000).toFixed(2)).join(', ')})`,
      `${((sc.result.cpuOwnMs + sc.result.cpuNodeMs) / 1000).toFixed(2)} s`,
      `${sc.result.status.blocks_checked} / ${sc.result.status.blocks_fetched}`,
      (sc.result.ms / full.totalMs).toFixed(4),
      `${sc.correct ? 'equals' : 'DIFFERS from'} scantxoutset (${sc.result.balance} litoshi)`,
    ]);
    printTable(wHeader, wRows);
    const [late, early] = [watch.scenarios.find((sc) => sc.share === BIRTHDAY_LATE)!, watch.scenarios.find((sc) => sc.share === BIRTHDAY_EARLY)!];
    const growth = late.result.ms / early.result.ms;
    const cpuGrowth = (late.result.cpuOwnMs + late.result.cpuNodeMs) / (early.result.cpuOwnMs + early.result.cpuNodeMs);
    console.log(
      `full index of the chain (${full.store}): ${(full.totalMs / 1000).toFixed(1)} s; later / earlier birthday: ${growth.toFixed(2)} in time, ${cpuGrowth.toFixed(2)} in CPU; ` +
        `load average while measured ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`,
    );
    const match = benchFilterMatch();
    console.log(
      `BIP158 matcher: ${fmt(match.currentPerSec)} filters/s vs ${fmt(match.bigintPerSec)} for the first (BigInt SipHash) one, ${(match.currentPerSec / match.bigintPerSec).toFixed(1)}x ` +
        `(${match.filters} filters of ${fmt(match.elements)} elements, a wallet of ${match.scripts} scripts, best of 5 rounds in turns)`,
    );

    const rows: string[][] = [];
    for (const sc of watch.scenarios) {
      const over = sc.result.ms / full.totalMs;
      rows.push([`watch: first correct balance / full index, birthday at ${(sc.share * 100).toFixed(0)}%`, over.toFixed(4), `< ${TARGET.watchOverFull}`, verdict(over < TARGET.watchOverFull && sc.correct)]);
    }
    // Judged by CPU (service + litecoind): the two birthdays are timed minutes apart on one node, and
    // on a shared host the load between them moves wall time more than the chain before them does.
    rows.push([
      `watch: birthday at ${BIRTHDAY_LATE * 100}% / at ${BIRTHDAY_EARLY * 100}% (same blocks after), in CPU (wall time ${growth.toFixed(2)})`,
      cpuGrowth.toFixed(2),
      `<= ${TARGET.watchGrowth}`,
      verdict(cpuGrowth <= TARGET.watchGrowth),
    ]);
    return rows;
  }

  // ---- summary ----------------------------------------------------------------------------------
  const summary: string[][] = [];
  for (const c of curves) {
    const first = c.points[0]!;
    const last = c.points.at(-1)!;
    const name = STORE_NAME[c.store];
    const goal = RATIO_TARGET[c.store];
    summary.push([`${name} index / fetch at ${kTxs(last.checkpoint.txs)}`, ratioText(last.ratio), `>= ${goal}`, verdict(last.ratio >= goal)]);
    if (c.store === 'sqlite') {
      const keep = last.ratio / first.ratio;
      summary.push([`${name} ratio at ${kTxs(last.checkpoint.txs)} / at ${kTxs(first.checkpoint.txs)}`, ratioText(keep), `>= ${TARGET.sqliteKeep}`, verdict(keep >= TARGET.sqliteKeep)]);
    }
    if (c.store === 'level') {
      // Issue 36 judges the curve by the index's own rate (the fetch's rate moves with the chain's
      // blocks, not with the index): the 1M window against the 100k one, and a longer chain's end
      // against the 1M window.
      const at1M = c.points.find((p) => p.checkpoint.txs >= CHECKPOINTS_AT_1M[2] * 0.9) ?? last;
      const keep = at1M.rate / first.rate;
      summary.push([`${name} rate at ${kTxs(at1M.checkpoint.txs)} / at ${kTxs(first.checkpoint.txs)}`, ratioText(keep), `>= ${LEVEL_TARGET.keep}`, verdict(keep >= LEVEL_TARGET.keep)]);
      if (last !== at1M) {
        const further = last.rate / at1M.rate;
        summary.push([`${name} rate at ${kTxs(last.checkpoint.txs)} / at ${kTxs(at1M.checkpoint.txs)}`, ratioText(further), `>= ${LEVEL_TARGET.keep}`, verdict(further >= LEVEL_TARGET.keep)]);
      }
    }
    const peak = Math.max(...c.points.map((p) => p.stage.peakRssKb));
    const own = Math.max(...c.points.map((p) => p.stage.peakAnonKb));
    const rssGoal = c.store === 'level' ? LEVEL_TARGET.rssMb : TARGET.rssMb;
    summary.push([`${name} indexer peak RSS (own memory ${mb(own)}, the rest mapped store files)`, mb(peak), `< ${rssGoal} MB`, verdict(peak / 1024 < rssGoal)]);
    const compacted = last.stage.compacted;
    if (c.store === 'level' && compacted) {
      const perTx = compacted.bytes / last.checkpoint.txs;
      summary.push([`${name} bytes/tx after a full compaction at ${kTxs(last.checkpoint.txs)}`, fmt(perTx), `<= ${LEVEL_TARGET.bytesPerTx}`, verdict(perTx <= LEVEL_TARGET.bytesPerTx)]);
    }
    const balance = c.http.balanceReqPerSec / c.http.bareReqPerSec;
    summary.push([`${name} balance / bare route req/s`, ratioText(balance), `>= ${TARGET.balanceRatio}`, verdict(balance >= TARGET.balanceRatio)]);
    for (const q of c.http.queries.filter((x) => x.query !== 'balance')) {
      const x = q.large.p50Ms / q.small.p50Ms;
      summary.push([`${name} ${q.query}: ${many}-entry / ${few}-entry`, `${x.toFixed(1)}x`, `<= ${TARGET.largeOverSmall}x`, verdict(x <= TARGET.largeOverSmall)]);
    }
  }
  summary.push(...watchRows);
  console.log('\n== Summary ==');
  printTable(['figure', 'value', 'target', ''], summary);
  console.log(`(${fmt(manifest.txs)} txs; whole scale bench ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (r: readonly string[]): string => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

export type { Probe };
