// The service's command line: run it, and manage API keys (cli.ts, the entry point, checks the
// Node version first and hands over here).
//   npm run service -- --config FILE
//   npm run service -- --version
//   npm run service -- --config FILE keys create --label NAME
//   npm run service -- --config FILE keys revoke ID
//   npm run service -- --config FILE keys list
//   npm run countersign -- tx inspect --coin COIN [--network NET] [--amounts A,B] [--json] HEX|-
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TX_USAGE, txCommand } from './cli-inspect.ts';
import { loadConfigFile, parseConfig, type ServiceConfig } from './config.ts';

// The server and store load on demand: `tx inspect` runs offline without them.
const loadService = () => import('./service.ts');

const USAGE = `usage:
  countersign --config FILE                 run the service
  countersign --version                     print the version (and the Node running it)
  countersign --config FILE keys create --label NAME
                                            create an API key (printed once) in the database
                                            of FILE, the configuration the service runs with
  countersign --config FILE keys revoke ID  revoke a key by its id (or the key itself)
  countersign --config FILE keys list       list keys (ids and labels, never the keys)
${TX_USAGE}
options: --config FILE (default: ./countersign.config.json when present; keys needs one of them)`;

function fail(message: string): never {
  process.stderr.write(`countersign: ${message}\n`);
  process.exit(2);
}

const DEFAULT_CONFIG_FILE = 'countersign.config.json';

/**
 * The configuration the service runs with, and the file it came from: --config, else
 * ./countersign.config.json when there is one (refused in words when it is invalid, never replaced
 * by the defaults), else none: the defaults.
 */
function findConfig(path: string | undefined): { config: ServiceConfig; file: string | null } {
  if (path) return { config: loadConfigFile(path), file: resolve(path) };
  if (existsSync(DEFAULT_CONFIG_FILE)) return { config: loadConfigFile(DEFAULT_CONFIG_FILE), file: resolve(DEFAULT_CONFIG_FILE) };
  return { config: parseConfig({}), file: null };
}

async function keys(argv: string[], configPath: string | undefined): Promise<void> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({ args: rest, options: { label: { type: 'string' } }, allowPositionals: true });
  if (action !== 'create' && action !== 'revoke' && action !== 'list') fail(`unknown keys action "${action ?? ''}"\n${USAGE}`);
  // A key lives in the database of the configuration it was made with: made against any other
  // (a new file in the working folder, say) it is one the running service has never heard of.
  const { config, file } = findConfig(configPath);
  if (file === null) {
    fail(
      `keys ${action} needs the service's configuration, to reach the database the service reads: --config FILE (the file the service runs with, e.g. /etc/countersign/config.json), or run it in the folder of ${DEFAULT_CONFIG_FILE}`,
    );
  }
  const [{ storeConfigOf }, { openStore, describeStore }, { createApiKey, listApiKeys, revokeApiKey }] = await Promise.all([
    loadService(),
    import('./store/database.ts'),
    import('./store/api-keys.ts'),
  ]);
  const storeConfig = storeConfigOf(config);
  const where = `${describeStore(storeConfig)} (configuration ${file})`;
  const store = await openStore(storeConfig);
  try {
    if (action === 'create') {
      const label = values.label ?? positionals[0];
      if (!label) fail('keys create needs --label NAME (who or what the key is for)');
      const { id, key } = await createApiKey(store, label);
      process.stdout.write(`API key created in ${where} (id ${id}, label "${label}"). It is shown only now; store it safely:\n${key}\n`);
    } else if (action === 'revoke') {
      const id = positionals[0];
      if (!id) fail('keys revoke needs the key id');
      if (!(await revokeApiKey(store, id))) fail(`no live key with id ${id} in ${where}`);
      process.stdout.write(`API key ${id} revoked in ${where}\n`);
    } else {
      process.stderr.write(`keys in ${where}:\n`);
      for (const k of await listApiKeys(store)) {
        process.stdout.write(`${k.id}\t${k.label}\tcreated ${new Date(k.createdAt).toISOString()}${k.revokedAt ? `\trevoked ${new Date(k.revokedAt).toISOString()}` : ''}\n`);
      }
    }
  } finally {
    await store.close();
  }
}

async function serve(configPath: string | undefined, version: string): Promise<void> {
  const { createService } = await loadService();
  const { config, file } = findConfig(configPath);
  if (file === null) process.stderr.write(`countersign: no --config and no ./${DEFAULT_CONFIG_FILE}: running on the defaults (no coins)\n`);
  const service = await createService(config, { version });
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
