// Child process that drives HTTP load with autocannon. Apart from the servers so the load generator
// does not share their event loop (which would flatter a slow server relative to a fast one).
import autocannon from 'autocannon';
import { childMain } from './child.ts';

export interface LoadInput {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationS: number;
  warmupS: number;
}

export interface LoadResult {
  reqPerSec: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

async function work(raw: unknown): Promise<LoadResult> {
  const input = raw as LoadInput;
  const base = { url: input.url, headers: input.headers, connections: input.connections };
  // JIT, caches and kept-alive sockets settle first; this pass is not counted.
  if (input.warmupS > 0) await autocannon({ ...base, duration: input.warmupS });
  const r = await autocannon({ ...base, duration: input.durationS });
  return {
    reqPerSec: r.requests.average,
    total: r.requests.total,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

childMain(work);
