// Command-line options of `npm run bench`.
import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Payment transactions to put on the chain (fan-outs and coinbases come on top). */
  txs: number;
  /** Seconds of load per HTTP target. */
  durationS: number;
  connections: number;
  /** Directory for V8 CPU profiles of the indexing children, when asked for. */
  cpuProfDir: string | undefined;
}

const USAGE = 'usage: npm run bench -- [--txs 20000] [--duration 10] [--connections 10] [--cpu-prof <dir>]';

function positiveInt(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a whole number > 0, not ${JSON.stringify(text)}\n${USAGE}`);
  return n;
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      txs: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      'cpu-prof': { type: 'string' },
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
  };
}
