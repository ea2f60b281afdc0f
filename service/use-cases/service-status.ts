// What /status, /readyz and the metrics report of each configured coin's backend, and when the
// service's answers are not current enough to be ready.
import type { Status } from '../../shared/api/schemas.ts';
import type { BackendStatus } from '../chains/backend.ts';
import { nodeRelaysReplacements } from './replacement.ts';
import type { ServiceContext } from './service-context.ts';

export type CoinStatus = Status['coins'][number];

/** Every configured coin's backend, as /status shows it. */
export async function coinStatuses(ctx: ServiceContext): Promise<CoinStatus[]> {
  const backends: { coin: string; network: string; replacements?: boolean; status(): Promise<BackendStatus> }[] = [
    ...[...ctx.utxo.values()].map((b) => ({ coin: b.params.coin, network: b.params.network, replacements: nodeRelaysReplacements(b), status: () => b.status() })),
    ...(ctx.evm ? [{ coin: 'ethereum', network: ctx.evm.network, status: () => ctx.evm!.status() }] : []),
  ];
  return Promise.all(
    backends.map(async ({ coin, network, replacements, status }) => {
      const s = await status();
      return {
        coin,
        network,
        backend: s.backend,
        tip_height: s.tipHeight,
        indexed_height: s.indexedHeight,
        // A failing backend's last tip may be long gone (a restarted node): its lag is unknown.
        lag: s.error === null && s.tipHeight !== null && s.indexedHeight !== null ? Math.max(0, s.tipHeight - s.indexedHeight) : null,
        mempool_txs: s.mempoolTxs,
        error: s.error,
        ...(s.role ? { role: s.role } : {}),
        ...(replacements !== undefined ? { replacements } : {}),
        ...(s.index ? { index: s.index } : {}),
        ...(s.watchScans !== undefined ? { watch_scans: s.watchScans } : {}),
      };
    }),
  );
}

/** Why each coin is not ready (empty: ready). Pure. */
export function readinessProblems(coins: readonly CoinStatus[], maxLagBlocks: number): string[] {
  const problems: string[] = [];
  for (const c of coins) {
    // A refusal that names its coin is a sentence of its own (a node of another chain: chain-guard.ts).
    if (c.error !== null) problems.push(c.error.startsWith(`${c.coin}: `) ? c.error : `${c.coin}: the backend is failing (${c.error})`);
    else if (c.tip_height === null) problems.push(`${c.coin}: the node's tip is not known yet`);
    else if (c.indexed_height === null) problems.push(`${c.coin}: nothing indexed yet (the node's tip is ${c.tip_height})`);
    else if (c.lag !== null && c.lag > maxLagBlocks) {
      problems.push(`${c.coin}: the index lags the node's tip by ${c.lag} blocks (${c.indexed_height} of ${c.tip_height}; at most ${maxLagBlocks} allowed)`);
    }
  }
  return problems;
}
