// Child process that asks each URL in turn, one request at a time over a kept-alive connection,
// and reports each URL's latency percentiles: the time one caller waits, not throughput. Taking
// the URLs round-robin makes a busy spell of the machine slow every target alike.
import http from 'node:http';
import { childMain } from './child.ts';

export interface LatencyInput {
  urls: string[];
  headers: Record<string, string>;
  rounds: number;
  warmupRounds: number;
}

export interface LatencyResult {
  /** Per URL, in input order, in milliseconds. */
  p50Ms: number[];
  p90Ms: number[];
  /** Bytes of each URL's answer (the last one). */
  bytes: number[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${url}: HTTP ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function work(raw: unknown): Promise<LatencyResult> {
  const input = raw as LatencyInput;
  const samples: number[][] = input.urls.map(() => []);
  const bytes: number[] = input.urls.map(() => 0);
  for (let round = 0; round < input.warmupRounds + input.rounds; round++) {
    for (const [i, url] of input.urls.entries()) {
      const started = performance.now();
      bytes[i] = await get(url, input.headers);
      if (round >= input.warmupRounds) samples[i]!.push(performance.now() - started);
    }
  }
  agent.destroy();
  const sorted = samples.map((s) => [...s].sort((a, b) => a - b));
  return { p50Ms: sorted.map((s) => percentile(s, 0.5)), p90Ms: sorted.map((s) => percentile(s, 0.9)), bytes };
}

childMain(work);
