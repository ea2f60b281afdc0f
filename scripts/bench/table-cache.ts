// `npm run bench -- --table-cache [--txs 2000000] [--file-kb 1024] [--block-kb 4] [--bound 74] [--unbounded 1000] [--block-cache-mb 16] [--gets 20000] [--rounds 2] [--keep <dir>]`:
// what LevelDB's open tables cost and what bounding them (maxOpenFiles) costs queries. Builds a
// folder of many small tables of synthetic rows in the full index's shape (table-cache-child.ts),
// then, turn about, opens it with classic-level's default of 1,000 open files (every table stays
// open) and with the bound, each in a process of its own: the process's memory once every table
// was read, per open table, against the estimate cache-budget.ts budgets with; and the time of a
// get of a present key, of an absent one and of a probe (a script's funding rows), bounded against
// unbounded in the same run. `--keep <dir>` keeps the folder there and reads it again when run again.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runChild } from './child.ts';
import { machineLine } from './machine.ts';
import { DEFAULT_INDEX_CACHES, TABLE_FILTER_INDEX_PER_BYTE } from '../../service/index/cache-budget.ts';
import type { BuildResult, ReadResult, TableCacheInput } from './table-cache-child.ts';

const CHILD = './table-cache-child.ts';

function options(argv: readonly string[]) {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--table-cache'),
    options: { txs: { type: 'string' }, 'file-kb': { type: 'string' }, 'block-kb': { type: 'string' }, bound: { type: 'string' }, unbounded: { type: 'string' }, gets: { type: 'string' }, rounds: { type: 'string' }, 'block-cache-mb': { type: 'string' }, keep: { type: 'string' } },
    strict: true,
  });
  const whole = (text: string | undefined, fallback: number, name: string) => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a whole number > 0, not ${JSON.stringify(text)}`);
    return n;
  };
  return {
    txs: whole(values.txs, 2_000_000, 'txs'),
    fileBytes: whole(values['file-kb'], 1024, 'file-kb') << 10,
    blockBytes: whole(values['block-kb'], 4, 'block-kb') << 10,
    bound: whole(values.bound, 74, 'bound'),
    unbounded: whole(values.unbounded, 1000, 'unbounded'),
    gets: whole(values.gets, 20_000, 'gets'),
    rounds: whole(values.rounds, 2, 'rounds'),
    // 0: none (LevelDB then caches no block), to see the tables' own cost alone
    blockCacheBytes: values['block-cache-mb'] === '0' ? 0 : whole(values['block-cache-mb'], DEFAULT_INDEX_CACHES.levelBlockCacheBytes >> 20, 'block-cache-mb') << 20,
    keep: values.keep === undefined ? undefined : resolve(values.keep),
  };
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function runTableCacheBench(argv: readonly string[]): Promise<number> {
  const o = options(argv);
  const work = o.keep ?? (await mkdtemp(join(tmpdir(), 'countersign-bench-tables-')));
  const folder = join(work, 'index');
  const samplesFile = join(work, 'samples');
  // the deploy unit's malloc arenas: LevelDB's reads run on libuv's threads, each else with an arena of its own
  process.env.MALLOC_ARENA_MAX ??= '2';
  try {
    console.log(machineLine({ MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX }));
    if (!existsSync(samplesFile)) {
      await mkdir(work, { recursive: true });
      const input: TableCacheInput = { mode: 'build', folder, txs: o.txs, fileBytes: o.fileBytes, blockBytes: o.blockBytes, samplesFile, samples: 200_000 };
      await runChild<BuildResult>(CHILD, input);
    } else console.log(`reading the folder kept in ${work}, as it was built:`);
    const built = JSON.parse(readFileSync(`${samplesFile}.json`, 'utf8')) as BuildResult & { txs: number; fileBytes: number; blockBytes: number };
    console.log(`${built.tables} tables, written ${built.fileBytes >> 10} KiB at a time, ${built.blockBytes >> 10} KiB blocks: ${built.txs.toLocaleString('en')} synthetic txs, ${built.rows.toLocaleString('en')} rows, ${(built.bytes / built.txs).toFixed(0)} bytes of rows a tx (built in ${(built.ms / 1000).toFixed(0)} s)`);
    const runs: ReadResult[] = [];
    const readWith = async (maxOpenFiles: number) => {
      const input: TableCacheInput = { mode: 'read', folder, samplesFile, maxOpenFiles, blockCacheBytes: o.blockCacheBytes, gets: o.gets };
      const r = (await runChild<ReadResult>(CHILD, input, ['--expose-gc'])).result;
      runs.push(r);
      console.log(
        `maxOpenFiles ${String(maxOpenFiles).padStart(5)}: ${r.mappedTables}/${r.tables} tables mapped, ${r.openTables} held by a descriptor; own memory ${(r.anonOpenKb / 1024).toFixed(1)} MB opened, ${(r.anonReadKb / 1024).toFixed(1)} MB once all were read; mapped files ${(r.fileOpenKb / 1024).toFixed(1)} -> ${(r.fileReadKb / 1024).toFixed(1)} MB; ` +
          `get ${r.hitUs.toFixed(1)} us (${r.hitCpuUs.toFixed(1)} us CPU), absent ${r.missUs.toFixed(1)} us (${r.missCpuUs.toFixed(1)} us CPU), probe ${r.probeUs.toFixed(1)} us (${r.probeCpuUs.toFixed(1)} us CPU)`,
      );
    };
    for (let round = 0; round < o.rounds; round++) {
      // turn about: the shared host's load falls on both
      if (round % 2 === 0) {
        await readWith(o.unbounded);
        await readWith(o.bound);
      } else {
        await readWith(o.bound);
        await readWith(o.unbounded);
      }
    }
    const of = (n: number) => runs.filter((r) => r.maxOpenFiles === n);
    const [all, few] = [of(o.unbounded), of(o.bound)];
    // a table is held mapped, or (past LevelDB's 1,000 maps a process) by a descriptor
    const held = (r: ReadResult) => r.mappedTables + r.openTables;
    const opened = mean(all.map(held)) - mean(few.map(held));
    // own memory: what reading every table added since the open (the runs' different starts fall
    // out), more held against fewer; mapped pages: those of the tables held at the end, each read
    // whole since it was opened when every table stays open (a table reopened maps afresh)
    const grew = (r: ReadResult) => r.anonReadKb - r.anonOpenKb;
    const ownPerTable = ((mean(all.map(grew)) - mean(few.map(grew))) * 1024) / opened;
    const mappedPerTable = (mean(all.map((r) => r.fileReadKb - r.fileOpenKb)) * 1024) / mean(all.map((r) => r.mappedTables));
    // the filter (10 bits a key, classic-level's) and the index block (~25 bytes a block) of a table of these rows
    const tableBytes = all[0]!.tableBytes;
    const keysATable = built.rows / all[0]!.tables;
    const estimate = (keysATable * 10) / 8 + (tableBytes / built.blockBytes) * 25;
    console.log(
      `per table held (${opened.toFixed(0)} more): own memory ${opened > 0 ? `${(ownPerTable / 1024).toFixed(1)} KiB` : 'n/a (the bound held every table: a folder of more tables than it tells)'}; mapped ${(mappedPerTable / 1024).toFixed(1)} KiB a table with ${o.unbounded} files; ` +
        `a table of ${(tableBytes / 2 ** 20).toFixed(2)} MiB and ${Math.round(keysATable).toLocaleString('en')} keys holds ${(estimate / 1024).toFixed(1)} KiB of filter and index (cache-budget.ts, for the index's rows: ${((TABLE_FILTER_INDEX_PER_BYTE * tableBytes) / 1024).toFixed(1)} KiB)`,
    );
    const ratio = (field: 'hitUs' | 'missUs' | 'hitCpuUs' | 'missCpuUs' | 'probeUs' | 'probeCpuUs') => mean(few.map((r) => r[field])) / mean(all.map((r) => r[field]));
    console.log(`bounded (${o.bound} files, ${o.bound - 10} tables) / unbounded, ${o.gets.toLocaleString('en')} gets a run over ${all[0]!.tables} tables, ${o.rounds} rounds: get ${ratio('hitUs').toFixed(2)}x (CPU ${ratio('hitCpuUs').toFixed(2)}x), absent key ${ratio('missUs').toFixed(2)}x (CPU ${ratio('missCpuUs').toFixed(2)}x), probe ${ratio('probeUs').toFixed(2)}x (CPU ${ratio('probeCpuUs').toFixed(2)}x)`);
    return 0;
  } finally {
    if (o.keep === undefined) await rm(work, { recursive: true, force: true });
  }
}
