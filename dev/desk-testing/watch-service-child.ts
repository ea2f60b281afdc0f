// The service in watch mode in a process of its own, as the desk embeds it on a treasurer's node:
// the watch-versus-full bench (watch-diff.ts) stops it, kills it with SIGKILL and starts it again
// over the same SQLite file. Input as JSON in an environment variable (keeps RPC credentials off the
// process list); prints "URL <base url>" once listening; closes on SIGTERM, and exits when its
// parent goes (stdin closes), so a killed bench leaves no service behind.
import { RpcClient, type RpcClientConfig } from '../../service/chains/utxo/rpc-client.ts';
import { startDevService } from '../dev-service.ts';

export const WATCH_CHILD_ENV = 'COUNTERSIGN_WATCH_SERVICE';
export const URL_PREFIX = 'URL ';

export interface WatchServiceInput {
  rpc: RpcClientConfig;
  relaysReplacements: boolean;
  /** The service's folder: its SQLite file lives there across restarts. */
  dir: string;
  pollIntervalMs: number;
}

async function main(): Promise<void> {
  const text = process.env[WATCH_CHILD_ENV];
  if (!text) throw new Error(`${WATCH_CHILD_ENV} is not set: this file is started by dev/desk-testing/watch-diff.ts`);
  const input = JSON.parse(text) as WatchServiceInput;
  const rpc = new RpcClient(input.rpc);
  const dev = await startDevService({ rpc, rpcConfig: input.rpc, relaysReplacements: input.relaysReplacements }, input.dir, { pollIntervalMs: input.pollIntervalMs, index: 'watch' });
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= dev.service.close().finally(() => {
      rpc.close();
      process.exit(0);
    });
  };
  process.on('SIGTERM', close);
  process.stdin.on('end', close);
  process.stdin.resume();
  process.stdout.write(`${URL_PREFIX}${dev.url}\n`);
}

if (process.env[WATCH_CHILD_ENV]) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  });
}
