// What both demos do once started: mine a block every few seconds so confirmations move (and one at
// once on SIGUSR1, for a treasurer or a test that wants a confirmation now), and on Ctrl-C (or
// SIGTERM) stop mining, take everything down and exit.
import type { RegtestNode } from './chains/litecoind.ts';

/** litecoind arguments of both demos: replacements relayed, so a fee bump goes through (Litecoin Core 0.21 defaults to off). */
export const DEMO_NODE_ARGS = ['-mempoolreplacement=1'] as const;

export function mineUntilStopped(node: RegtestNode, everySeconds: number, dispose: () => Promise<void>): void {
  const miner = setInterval(() => void node.mine(1).catch(() => undefined), everySeconds * 1000);
  process.on('SIGUSR1', () => void node.mine(1).catch(() => undefined));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(miner);
    process.stdout.write('\nStopping...\n');
    await dispose().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
