// Command-line options of `npm run bench`.
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Payment transactions to put on the chain (fan-outs and coinbases come on top). */
  txs: number;
  /** Seconds of load per HTTP target. */
  durationS: number;
  connections: number;
  /** Directory for V8 CPU profiles of the indexing children, when asked for. */
  cpuProfDir: string | undefined;
  /** `--scale`: the cost curve on a mainnet-shaped chain of `scaleTxs` transactions instead. */
  scale: boolean;
  scaleTxs: number;
  /** Where the scale chain is kept between runs (default: $COUNTERSIGN_BENCH_CACHE or ~/.cache/countersign-bench). */
  cacheDir: string | undefined;
  /** Stores the scale bench indexes into. */
  stores: ScaleStore[];
  /** `--index-blocks verbose`: the indexer reads verbose JSON instead of the coin's raw blocks (to compare). */
  indexBlocks: 'raw' | 'verbose' | undefined;
  /** `--cache-mb`: the index's memory budget (config.ts database.cacheMb); absent: the defaults. */
  cacheMb: number | undefined;
  /** `--no-watch`: the scale bench ends after the index and its queries (watch mode is issue 25's, minutes more). */
  noWatch: boolean;
}

/** `level`: the full index in LevelDB beside a SQLite file (StoreConfig.indexDir). */
export type ScaleStore = 'sqlite' | 'postgres' | 'level';
const SCALE_STORES: readonly ScaleStore[] = ['sqlite', 'postgres', 'level'];

const USAGE =
  'usage: npm run bench -- [--txs 20000] [--duration 10] [--connections 10] [--cpu-prof <dir>]\n' +
  '       npm run bench -- --scale [--scale-txs 1000000] [--cache-dir <dir>] [--stores sqlite,postgres,level] [--index-blocks raw|verbose] [--cache-mb <MiB>] [--no-watch] [--cpu-prof <dir>]';

function positiveInt(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a whole number > 0, not ${JSON.stringify(text)}\n${USAGE}`);
  return n;
}

function parseStores(text: string | undefined): ScaleStore[] {
  if (text === undefined) return [...SCALE_STORES];
  const names = text.split(',').map((s) => s.trim());
  const bad = names.find((n) => !(SCALE_STORES as readonly string[]).includes(n));
  if (bad !== undefined || names.length === 0) throw new Error(`--stores takes ${SCALE_STORES.join(', ')}, comma-separated, not ${JSON.stringify(text)}\n${USAGE}`);
  return [...new Set(names as ScaleStore[])];
}

function parseBlockForm(text: string | undefined): 'raw' | 'verbose' | undefined {
  if (text === undefined || text === 'raw' || text === 'verbose') return text;
  throw new Error(`--index-blocks takes raw or verbose, not ${JSON.stringify(text)}\n${USAGE}`);
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      txs: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      'cpu-prof': { type: 'string' },
      scale: { type: 'boolean' },
      'scale-txs': { type: 'string' },
      'cache-dir': { type: 'string' },
      stores: { type: 'string' },
      'index-blocks': { type: 'string' },
      'cache-mb': { type: 'string' },
      'no-watch': { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  return {
    txs: positiveInt(values.txs, 20_000, 'txs'),
    durationS: positiveInt(values.duration, 10, 'duration'),
    connections: positiveInt(values.connections, 10, 'connections'),
    cpuProfDir: values['cpu-prof'],
    scale: values.scale ?? false,
    scaleTxs: positiveInt(values['scale-txs'], 1_000_000, 'scale-txs'),
    cacheDir: values['cache-dir'],
    stores: parseStores(values.stores),
    indexBlocks: parseBlockForm(values['index-blocks']),
    cacheMb: values['cache-mb'] === undefined ? undefined : positiveInt(values['cache-mb'], 0, 'cache-mb'),
    noWatch: values['no-watch'] ?? false,
  };
}

/**
 * Node flags that profile a bench child when `--cpu-prof` was given: one folder per child, with
 * Node's own file names, so each thread (the SQLite writer is a worker) keeps its own profile
 * instead of all of them writing one named file over each other.
 */
export function cpuProfArgs(dir: string | undefined, name: string): string[] {
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(dir, name)}`];
}
