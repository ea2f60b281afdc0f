// Section 2: balance queries per second through the whole service vs. a bare fastify route, both
// listening on loopback in this process and loaded from a child process: in turns, best of a few
// runs each, so a busy spell of the machine slows both sides alike rather than one.
import Fastify from 'fastify';
import pino from 'pino';
import type { RegtestNode } from '../../dev/chains/litecoind.ts';
import { createService, type Service } from '../../service/service.ts';
import { createApiKey } from '../../service/store/api-keys.ts';
import { runChild } from './child.ts';
import { untilServing } from './service-ready.ts';
import type { LoadInput, LoadResult } from './load-child.ts';
import { addressToScript, encodeAddress } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { scriptKeyOf } from '../../service/index/script-keys.ts';

export interface HttpBenchInput {
  node: RegtestNode;
  sqlitePath: string;
  /** The service's log file: it logs at its default level (info), as deployed. */
  logPath: string;
  address: string;
  expectedBalance: bigint;
  /** An address without history: separates the per-request cost from the per-history-row cost. */
  emptyAddress: string;
  connections: number;
  /** Seconds of load per target, split over its runs. */
  durationS: number;
  /** Runs per target, in turns with the bare route; the best of each counts. */
  rounds: number;
}

/** The best of a target's runs, with every run's rate. */
export interface BestLoad extends LoadResult {
  runs: number[];
}

export interface HttpBenchResult {
  /** The bare route in turns with `balance` and `emptyBalance`, and in turns with `balanceFullCaches`. */
  bare: BestLoad;
  bareFullCaches: BestLoad;
  balance: BestLoad;
  emptyBalance: BestLoad;
  /** The hot address again once the service's caches hold CACHE_FILL other addresses. */
  balanceFullCaches: BestLoad;
  historyRows: number;
}


/** Other addresses asked for before the last run: a busy service's address and balance caches are full. */
export const CACHE_FILL = 20_000;

async function askManyAddresses(serviceUrl: string, headers: Record<string, string>): Promise<void> {
  const params = chainParams('litecoin', 'regtest');
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < CACHE_FILL; i = next++) {
      const hash = new Uint8Array(20);
      new DataView(hash.buffer).setUint32(0, i + 1);
      const address = encodeAddress(params, { type: 'p2pkh', hash });
      const answer = await fetch(`${serviceUrl}/address/balance/litecoin/${address}`, { headers });
      if (answer.status !== 200) throw new Error(`filling the caches: HTTP ${answer.status} for ${address}`);
      await answer.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
}

const WARMUP_S = 1;

// The same shape as a balance answer, so serialisation costs are alike.
const CONSTANT = { usd_balance: 0, balance: '400000000', unconfirmed_balance: '0', human_balance: 4, human_unconfirmed_balance: 0 };

export async function benchHttp(input: HttpBenchInput, onCleanup: (fn: () => Promise<void>) => void): Promise<HttpBenchResult> {
  const { node, connections, durationS, rounds } = input;

  const bare = Fastify({ logger: false });
  bare.get('/constant', async () => CONSTANT);
  onCleanup(() => bare.close());
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  const service: Service = await createService(
    {
      listen: { host: '127.0.0.1', port: 0 },
      database: { sqlite: input.sqlitePath },
      coins: {
        litecoin: {
          network: 'regtest',
          backend: { type: 'node-rpc', url: node.rpcConfig.url, username: node.rpcConfig.username, password: node.rpcConfig.password },
        },
      },
    },
    { logger: pino({ level: 'info' }, pino.destination({ dest: input.logPath, sync: true })) },
  );
  onCleanup(() => service.close());
  const serviceUrl = await service.listen();
  const { key } = await createApiKey(service.store, 'bench');

  const rows = await service.store.db
    .selectFrom('chain_history')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('chain', '=', 'litecoin')
    .where('skey', '=', scriptKeyOf(addressToScript(chainParams('litecoin', 'regtest'), input.address)))
    .executeTakeFirstOrThrow();

  const balanceUrl = `${serviceUrl}/address/balance/litecoin/${input.address}`;
  const emptyUrl = `${serviceUrl}/address/balance/litecoin/${input.emptyAddress}`;
  const headers = { 'x-api-key': key };
  await untilServing(balanceUrl, headers);
  // One real answer first: a bench of 401s or of a wrong balance would measure nothing.
  for (const [url, expected] of [[balanceUrl, input.expectedBalance], [emptyUrl, 0n]] as const) {
    const check = await fetch(url, { headers });
    const body = (await check.json()) as { balance?: unknown };
    if (check.status !== 200 || String(body.balance) !== expected.toString()) {
      throw new Error(`balance check failed for ${url}: HTTP ${check.status} ${JSON.stringify(body)}, expected balance ${expected}`);
    }
  }

  const load = async (url: string, h: Record<string, string>): Promise<LoadResult> => {
    const loadInput: LoadInput = { url, headers: h, connections, durationS: Math.max(1, Math.round(durationS / rounds)), warmupS: WARMUP_S };
    const { result } = await runChild<LoadResult>('./load-child.ts', loadInput);
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
    }
    return result;
  };
  const best = (runs: LoadResult[]): BestLoad => ({ ...runs.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a)), runs: runs.map((r) => r.reqPerSec) });
  /** The bare route and then each target, round after round: the best of each. */
  const inTurns = async (urls: readonly string[]): Promise<{ bare: BestLoad; targets: BestLoad[] }> => {
    const bareRuns: LoadResult[] = [];
    const runs: LoadResult[][] = urls.map(() => []);
    for (let i = 0; i < rounds; i++) {
      bareRuns.push(await load(`${bareUrl}/constant`, {}));
      for (const [j, url] of urls.entries()) runs[j]!.push(await load(url, headers));
    }
    return { bare: best(bareRuns), targets: runs.map(best) };
  };
  const first = await inTurns([balanceUrl, emptyUrl]);
  await askManyAddresses(serviceUrl, headers);
  const full = await inTurns([balanceUrl]);
  return {
    bare: first.bare,
    bareFullCaches: full.bare,
    balance: first.targets[0]!,
    emptyBalance: first.targets[1]!,
    balanceFullCaches: full.targets[0]!,
    historyRows: Number(rows.n),
  };
}
