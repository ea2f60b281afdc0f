// The service's command line: run it, and manage API keys (cli.ts, the entry point, checks the
// Node version first and hands over here).
//   npm run service -- --config FILE
//   npm run service -- --version
//   npm run service -- keys create --label NAME [--config FILE]
//   npm run service -- keys revoke ID [--config FILE]
//   npm run service -- keys list [--config FILE]
//   npm run countersign -- tx inspect --coin COIN [--network NET] [--amounts A,B] [--json] HEX|-
import { parseArgs } from 'node:util';
import { TX_USAGE, txCommand } from './cli-inspect.ts';
import { loadConfigFile, parseConfig, type ServiceConfig } from './config.ts';

// The server and store load on demand: `tx inspect` runs offline without them.
const loadService = () => import('./service.ts');

const USAGE = `usage:
  countersign --config FILE                 run the service
  countersign --version                     print the version (and the Node running it)
  countersign keys create --label NAME      create an API key (printed once)
  countersign keys revoke ID                revoke a key by its id (or the key itself)
  countersign keys list                     list keys (ids and labels, never the keys)
${TX_USAGE}
options: --config FILE (default: ./countersign.config.json when present)`;

function fail(message: string): never {
  process.stderr.write(`countersign: ${message}\n`);
  process.exit(2);
}

function configFrom(path: string | undefined): ServiceConfig {
  if (path) return loadConfigFile(path);
  try {
    return loadConfigFile('countersign.config.json');
  } catch {
    return parseConfig({});
  }
}

async function keys(argv: string[], configPath: string | undefined): Promise<void> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({ args: rest, options: { label: { type: 'string' } }, allowPositionals: true });
  const [{ storeConfigOf }, { openStore }, { createApiKey, listApiKeys, revokeApiKey }] = await Promise.all([
    loadService(),
    import('./store/database.ts'),
    import('./store/api-keys.ts'),
  ]);
  const store = await openStore(storeConfigOf(configFrom(configPath)));
  try {
    if (action === 'create') {
      const label = values.label ?? positionals[0];
      if (!label) fail('keys create needs --label NAME (who or what the key is for)');
      const { id, key } = await createApiKey(store, label);
      process.stdout.write(`API key created (id ${id}, label "${label}"). It is shown only now; store it safely:\n${key}\n`);
    } else if (action === 'revoke') {
      const id = positionals[0];
      if (!id) fail('keys revoke needs the key id');
      if (!(await revokeApiKey(store, id))) fail(`no live key with id ${id}`);
      process.stdout.write(`API key ${id} revoked\n`);
    } else if (action === 'list') {
      for (const k of await listApiKeys(store)) {
        process.stdout.write(`${k.id}\t${k.label}\tcreated ${new Date(k.createdAt).toISOString()}${k.revokedAt ? `\trevoked ${new Date(k.revokedAt).toISOString()}` : ''}\n`);
      }
    } else {
      fail(`unknown keys action "${action ?? ''}"\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
}

async function serve(configPath: string | undefined, version: string): Promise<void> {
  const { createService } = await loadService();
  const service = await createService(configFrom(configPath), { version });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    service.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        service.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  await service.listen();
}

async function main(args: string[], version: string): Promise<void> {
  const configAt = args.indexOf('--config');
  const configPath = configAt >= 0 ? args[configAt + 1] : undefined;
  if (configAt >= 0 && !configPath) fail('--config needs a file path');
  const rest = configAt >= 0 ? [...args.slice(0, configAt), ...args.slice(configAt + 2)] : args;
  if (rest[0] === '--help' || rest[0] === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (rest[0] === '--version' || rest[0] === '-v') {
    process.stdout.write(`countersign ${version} (Node ${process.versions.node})\n`);
    return;
  }
  if (rest[0] === 'keys') return keys(rest.slice(1), configPath);
  if (rest[0] === 'tx') {
    process.stdout.write(await txCommand(rest.slice(1)));
    return;
  }
  if (rest.length > 0) fail(`unknown command "${rest.join(' ')}"\n${USAGE}`);
  return serve(configPath, version);
}

/** Runs one command line (the arguments after the script); `version` is package.json's. */
export function runCli(args: string[], version: string): Promise<void> {
  return main(args, version).catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
}
