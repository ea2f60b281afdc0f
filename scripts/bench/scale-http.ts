// The scale bench's query figures: the service over an index built to the full chain answers
// balance, history (first page) and unspent outputs for a 10-entry and a 10,000-entry address,
// one request at a time (latency), and balances under load against a bare fastify route.
import Fastify from 'fastify';
import pino from 'pino';
import type { RegtestNode } from '../../dev/chains/litecoind.ts';
import { createService, type Service } from '../../service/service.ts';
import type { ServiceConfigInput } from '../../service/config.ts';
import { createApiKey } from '../../service/store/api-keys.ts';
import { runChild } from './child.ts';
import { untilServing } from './service-ready.ts';
import type { LatencyInput, LatencyResult } from './latency-child.ts';
import type { LoadInput, LoadResult } from './load-child.ts';

export interface Probe {
  address: string;
  entries: number;
  /** Confirmed balance in litoshi, as decimal text. */
  balance: string;
  unspent: number;
}

export interface QueryLatency {
  query: 'balance' | 'history' | 'utxos';
  /** p50 and p90 in ms for the small and the large probe, and the large answer's size. */
  small: { p50Ms: number; p90Ms: number; bytes: number };
  large: { p50Ms: number; p90Ms: number; bytes: number };
}

export interface ScaleHttpResult {
  bareLatency: { p50Ms: number; p90Ms: number };
  queries: QueryLatency[];
  /** Throughput of the large probe's balance against the bare route, best of the rounds each. */
  balanceReqPerSec: number;
  bareReqPerSec: number;
}

const CONSTANT = { usd_balance: 0, balance: '400000000', unconfirmed_balance: '0', human_balance: 4, human_unconfirmed_balance: 0 };
const QUERIES = ['balance', 'history', 'utxos'] as const;

export async function benchScaleHttp(
  input: { node: RegtestNode; database: ServiceConfigInput['database']; logPath: string; small: Probe; large: Probe; rounds: number; loadRounds: number; loadSeconds: number },
  onCleanup: (fn: () => Promise<void>) => void,
): Promise<ScaleHttpResult> {
  const bare = Fastify({ logger: false });
  bare.get('/constant', async () => CONSTANT);
  onCleanup(() => bare.close());
  const bareUrl = `${await bare.listen({ host: '127.0.0.1', port: 0 })}/constant`;

  const { node } = input;
  const service: Service = await createService(
    {
      listen: { host: '127.0.0.1', port: 0 },
      database: input.database,
      coins: { litecoin: { network: 'regtest', backend: { type: 'node-rpc', url: node.rpcConfig.url, username: node.rpcConfig.username, password: node.rpcConfig.password } } },
    },
    { logger: pino({ level: 'info' }, pino.destination({ dest: input.logPath, sync: true })) },
  );
  onCleanup(() => service.close());
  try {
    return await measure(input, service, bareUrl);
  } finally {
    await service.close();
    await bare.close();
  }
}

async function measure(input: Parameters<typeof benchScaleHttp>[0], service: Service, bareUrl: string): Promise<ScaleHttpResult> {
  const serviceUrl = await service.listen();
  const headers = { 'x-api-key': (await createApiKey(service.store, 'bench')).key };
  const url = (query: (typeof QUERIES)[number], probe: Probe): string => `${serviceUrl}/address/${query}/litecoin/${probe.address}`;

  await untilServing(url('balance', input.small), headers);
  const ask = async (target: string): Promise<Record<string, unknown>> => {
    const answer = await fetch(target, { headers });
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(`${target.replace(serviceUrl, '')}: HTTP ${answer.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  for (const probe of [input.small, input.large]) {
    const balance = await ask(url('balance', probe));
    const history = await ask(url('history', probe));
    const utxos = await ask(url('utxos', probe));
    const got = { balance: String(balance.balance), entries: Number(history.total_txs), unspent: Array.isArray(utxos.utxos) ? utxos.utxos.length : null };
    const want = { balance: probe.balance, entries: probe.entries, unspent: probe.unspent };
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`the service's answers for ${probe.address} are ${JSON.stringify(got)}, the chain says ${JSON.stringify(want)}`);
  }

  const targets = [bareUrl, ...QUERIES.flatMap((q) => [url(q, input.small), url(q, input.large)])];
  const latency: LatencyInput = { urls: targets, headers, rounds: input.rounds, warmupRounds: 20 };
  const { result } = await runChild<LatencyResult>('./latency-child.ts', latency);
  const at = (i: number) => ({ p50Ms: result.p50Ms[i]!, p90Ms: result.p90Ms[i]!, bytes: result.bytes[i]! });
  const queries = QUERIES.map((query, q) => ({ query, small: at(1 + 2 * q), large: at(2 + 2 * q) }));

  const load = async (target: string, h: Record<string, string>): Promise<number> => {
    const loadInput: LoadInput = { url: target, headers: h, connections: 10, durationS: input.loadSeconds, warmupS: 1 };
    const run = await runChild<LoadResult>('./load-child.ts', loadInput);
    if (run.result.non2xx > 0 || run.result.errors > 0) throw new Error(`${target}: ${run.result.non2xx} non-2xx answers and ${run.result.errors} errors under load`);
    return run.result.reqPerSec;
  };
  let balanceReqPerSec = 0;
  let bareReqPerSec = 0;
  for (let i = 0; i < input.loadRounds; i++) {
    bareReqPerSec = Math.max(bareReqPerSec, await load(bareUrl, {}));
    balanceReqPerSec = Math.max(balanceReqPerSec, await load(url('balance', input.large), headers));
  }
  return { bareLatency: { p50Ms: result.p50Ms[0]!, p90Ms: result.p90Ms[0]! }, queries, balanceReqPerSec, bareReqPerSec };
}
