// A real `litecoind -regtest` node for tests, the demo and benchmarks: own datadir, free ports,
// random RPC credentials, one wallet. Litecoin Core keeps Bitcoin's script rules, so the bitcoin,
// testnet3 and litecoin coins all run against it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { RpcClient, RpcError, UpstreamError, type RpcClientConfig } from '../../service/chains/utxo/rpc-client.ts';

export interface StartLitecoindOptions {
  /** Use this datadir (created if missing, never deleted) instead of a fresh temp one. */
  datadir?: string;
  /** Keep the temp datadir after stop() (debugging). */
  keepDatadir?: boolean;
  /** Appended after our arguments, so they win on conflicts. */
  extraArgs?: string[];
  /** Receives litecoind's stdout/stderr lines and our start/stop notes. */
  log?: (line: string) => void;
  /**
   * Let MWEB activate as litecoind's regtest does by default (BIP9, active at height 432). Off by
   * default: MWEB blocks carry a HogEx transaction and an extension block that plain Bitcoin
   * parsers reject, and the first MWEB block needs a peg-in (mine() then makes one).
   */
  mweb?: boolean;
  /**
   * 'testnet': a litecoind -testnet with no peers (nothing but its block 0), to show the service a
   * node of another chain on the port its regtest node had. Default 'regtest'.
   */
  chain?: 'regtest' | 'testnet';
  /** Default 60000: parallel test files share 2 cores. */
  startupTimeoutMs?: number;
  /** Default 'countersign'. */
  walletName?: string;
  /**
   * Restarting a node (with `datadir`) where its clients expect it: the RPC port and credentials of
   * the earlier run (RegtestNode.rpcPort, .rpcConfig). Default: a free port, new credentials.
   */
  rpc?: { port: number; username: string; password: string };
  /**
   * Let litecoind write its `.cookie` file (regtest/.cookie under the datadir), as a node set up
   * without rpcpassword does: the harness's own user then logs in through -rpcauth instead.
   */
  cookie?: boolean;
}

export type AddressType = 'legacy' | 'bech32';

export interface RegtestNode {
  /** Node-level RPC (root URL). */
  rpc: RpcClient;
  /** Wallet RPC (/wallet/<walletName>), unambiguous even when tests load more wallets. */
  walletRpc: RpcClient;
  rpcConfig: RpcClientConfig;
  walletName: string;
  datadir: string;
  rpcPort: number;
  /** Reserved for -port; P2P is not listening (-listen=0) unless extraArgs turn it on. */
  p2pPort: number;
  pid: number;
  /** Started with -mempoolreplacement=1: Litecoin Core 0.21 relays BIP125 replacements only then. */
  relaysReplacements: boolean;
  /** Mines to `address` (default: a new wallet address); returns the block hashes in order. */
  mine(blocks: number, address?: string): Promise<string[]>;
  newAddress(type?: AddressType): Promise<string>;
  /** Pays `amount` (smallest unit) to any scriptPubKey from the wallet and broadcasts; returns the txid. */
  fundScript(scriptPubKey: Uint8Array, amount: bigint): Promise<string>;
  stop(): Promise<void>;
}

const NOT_FOUND =
  'litecoind not found on PATH: install it with `apt-get install litecoind`; the UTXO tests run against litecoind -regtest';
const START_ATTEMPTS = 4;
const STOP_TIMEOUT_MS = 30_000;
const MINE_CHUNK = 1000; // blocks per generatetoaddress: keeps each call far inside the RPC timeout

// Every node this process started and has not stopped: killed if the process exits without stop().
const liveNodes = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of liveNodes) {
      try {
        child.kill('SIGTERM'); // the watchdog then waits for it and removes the temp datadir
      } catch {
        // already gone
      }
    }
  });
}

// Survives its parent (even SIGKILL, which fires no 'exit' event): when our end of its stdin closes
// without "disarm", it stops litecoind ($1) and removes the temp datadir ($2, may be empty).
const WATCHDOG_SCRIPT = `
read -r line
[ "$line" = disarm ] && exit 0
kill -TERM "$1" 2>/dev/null
i=0
while kill -0 "$1" 2>/dev/null; do
  i=$((i + 1))
  if [ "$i" -ge 150 ]; then kill -KILL "$1" 2>/dev/null; break; fi
  sleep 0.2
done
[ -n "$2" ] && rm -rf -- "$2"
exit 0
`;

export async function startLitecoind(options: StartLitecoindOptions = {}): Promise<RegtestNode> {
  const binary = await findOnPath('litecoind');
  if (!binary) throw new Error(NOT_FOUND);
  const log = options.log ?? (() => {});
  const walletName = options.walletName ?? 'countersign';
  const tempDatadir = options.datadir === undefined;
  const datadir = options.datadir ?? (await mkdtemp(join(tmpdir(), 'countersign-litecoind-')));
  if (!tempDatadir) await mkdir(datadir, { recursive: true });
  const username = options.rpc?.username ?? `countersign-${randomBytes(4).toString('hex')}`;
  const password = options.rpc?.password ?? randomBytes(24).toString('hex');

  let started: Started | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      const [freePort, p2pPort] = await freePortPair();
      const rpcPort = options.rpc?.port ?? freePort;
      const outcome = await launch({ binary, datadir, rpcPort, p2pPort, username, password, options, log, tempDatadir });
      if (outcome.ok) {
        started = outcome.started;
        break;
      }
      // Another process may grab a port between our probe and litecoind's bind: try new ports.
      if (!outcome.portClash || attempt >= START_ATTEMPTS) throw new Error(outcome.message);
      log(`litecoind: port clash on attempt ${attempt}, retrying with new ports`);
    }
  } catch (err) {
    if (tempDatadir && !options.keepDatadir) await rm(datadir, { recursive: true, force: true });
    throw err;
  }

  const { child, watchdog, rpcPort, p2pPort, rpcConfig } = started;
  const rpc = new RpcClient(rpcConfig);
  const walletRpc = new RpcClient({ ...rpcConfig, url: `${rpcConfig.url}wallet/${encodeURIComponent(walletName)}` });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      try {
        await rpc.call('stop');
      } catch {
        // already down or not answering: the kill below covers it
      }
      // litecoind 0.21 finishes shutting down only once kept-alive RPC connections are gone.
      rpc.close();
      walletRpc.close();
      if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
        log('litecoind: no exit after the stop RPC, killing it');
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
      liveNodes.delete(child);
      disarm(watchdog);
      if (tempDatadir && !options.keepDatadir) await rm(datadir, { recursive: true, force: true, maxRetries: 3 });
      log('litecoind: stopped');
    })();
    return stopping;
  };

  try {
    await openWallet(rpc, walletName);
  } catch (err) {
    await stop();
    throw err;
  }

  const newAddress = async (type: AddressType = 'bech32'): Promise<string> => walletRpc.call<string>('getnewaddress', ['', type]);

  const pegIn = async (): Promise<void> => {
    // The first MWEB block must carry a peg-in, or block assembly fails with bad-txns-vin-empty.
    const mwebAddress = await walletRpc.call<string>('getnewaddress', ['', 'mweb']);
    await walletRpc.call('sendtoaddress', [mwebAddress, '1']);
  };

  const mine = async (blocks: number, address?: string): Promise<string[]> => {
    if (!Number.isSafeInteger(blocks) || blocks < 0) throw new RangeError(`blocks must be a whole number >= 0, not ${blocks}`);
    const to = address ?? (await newAddress());
    const hashes: string[] = [];
    let peggedIn = false;
    while (hashes.length < blocks) {
      const count = Math.min(MINE_CHUNK, blocks - hashes.length);
      const heightBefore = options.mweb ? await rpc.call<number>('getblockcount') : 0;
      try {
        hashes.push(...(await rpc.call<string[]>('generatetoaddress', [count, to])));
      } catch (err) {
        if (!options.mweb || peggedIn || !(err instanceof RpcError) || !err.message.includes('bad-txns-vin-empty')) throw err;
        // Blocks before the stall were mined: collect their hashes, peg in, carry on.
        const heightNow = await rpc.call<number>('getblockcount');
        for (let h = heightBefore + 1; h <= heightNow; h++) hashes.push(await rpc.call<string>('getblockhash', [h]));
        await pegIn();
        peggedIn = true;
      }
    }
    return hashes;
  };

  let fundQueue: Promise<unknown> = Promise.resolve();
  const fundScript = async (scriptPubKey: Uint8Array, amount: bigint): Promise<string> => {
    if (!(scriptPubKey instanceof Uint8Array) || scriptPubKey.length === 0) throw new TypeError('scriptPubKey must be non-empty bytes');
    if (typeof amount !== 'bigint' || amount <= 0n || amount >= 2n ** 63n) throw new RangeError(`amount must be a positive bigint, not ${amount}`);
    const unfunded = zeroInputTxHex(scriptPubKey, amount);
    // One at a time: concurrent fundrawtransaction calls would pick the same coins.
    const run = fundQueue.then(async () => {
      const funded = await walletRpc.call<{ hex: string }>('fundrawtransaction', [unfunded, {}, false]);
      const signed = await walletRpc.call<{ hex: string; complete: boolean; errors?: unknown }>('signrawtransactionwithwallet', [funded.hex]);
      if (!signed.complete) throw new Error(`the wallet could not sign the funding transaction: ${JSON.stringify(signed.errors ?? [])}`);
      return walletRpc.call<string>('sendrawtransaction', [signed.hex]);
    });
    fundQueue = run.catch(() => undefined);
    return run;
  };

  log(`litecoind: ready, rpc 127.0.0.1:${rpcPort}, datadir ${datadir}`);
  return {
    rpc,
    walletRpc,
    rpcConfig,
    walletName,
    datadir,
    rpcPort,
    p2pPort,
    pid: child.pid ?? -1,
    relaysReplacements: relaysReplacementsWith(options.extraArgs ?? []),
    mine,
    newAddress,
    fundScript,
    stop,
  };
}

/** Mines 101 blocks to a wallet address: the first coinbase (50 coins) becomes spendable. */
export async function mineToMaturity(node: RegtestNode): Promise<string[]> {
  return node.mine(101, await node.newAddress());
}

/** startLitecoind + mineToMaturity. */
export async function fundedNode(options: StartLitecoindOptions = {}): Promise<RegtestNode> {
  const node = await startLitecoind(options);
  try {
    await mineToMaturity(node);
  } catch (err) {
    await node.stop();
    throw err;
  }
  return node;
}

// ---------------------------------------------------------------------------------------------

interface Started {
  child: ChildProcess;
  watchdog: ChildProcess;
  rpcPort: number;
  p2pPort: number;
  rpcConfig: RpcClientConfig;
}

type LaunchOutcome = { ok: true; started: Started } | { ok: false; portClash: boolean; message: string };

interface LaunchInput {
  binary: string;
  datadir: string;
  rpcPort: number;
  p2pPort: number;
  username: string;
  password: string;
  options: StartLitecoindOptions;
  log: (line: string) => void;
  tempDatadir: boolean;
}

async function launch(input: LaunchInput): Promise<LaunchOutcome> {
  const { binary, datadir, rpcPort, p2pPort, username, password, options, log } = input;
  const args = [
    `-datadir=${datadir}`,
    ...(options.chain === 'testnet' ? ['-testnet', '-connect=0'] : ['-regtest']),
    '-server',
    '-listen=0',
    '-dnsseed=0',
    '-discover=0',
    '-listenonion=0',
    '-rpcbind=127.0.0.1',
    '-rpcallowip=127.0.0.1',
    `-rpcport=${rpcPort}`,
    `-port=${p2pPort}`,
    // A node writes its cookie only when no -rpcpassword is set; -rpcauth keeps our user working.
    ...(options.cookie ? [`-rpcauth=${rpcAuth(username, password)}`] : [`-rpcuser=${username}`, `-rpcpassword=${password}`]),
    '-rpcworkqueue=64', // parallel block fetches would otherwise hit "Work queue depth exceeded"
    // Idle kept-alive connections (any client's) hold up shutdown until this many seconds pass.
    '-rpcservertimeout=5',
    '-keypool=20', // createwallet: 40 ms instead of 1.3 s for the default 1000 keys; refilled on use
    '-fallbackfee=0.0001',
    '-txindex=1',
    '-printtoconsole=0',
    // NEVER_ACTIVE. All five fields: litecoind leaves omitted start/timeout heights uninitialised.
    ...(options.mweb || options.chain === 'testnet' ? [] : ['-vbparams=mweb:-2:0:0:0']),
    ...(options.extraArgs ?? []),
  ];

  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const onLine = (line: string): void => {
    output.push(line);
    if (output.length > 50) output.shift();
    log(`litecoind: ${line}`);
  };
  pipeLines(child.stdout, onLine);
  pipeLines(child.stderr, onLine);
  let spawnError: Error | undefined;
  child.on('error', (err) => {
    spawnError = err;
  });
  // Do not hold the event loop open: if the process ends without stop(), the exit hook and the
  // watchdog stop litecoind.
  child.unref();
  unrefStream(child.stdout);
  unrefStream(child.stderr);
  if (child.pid === undefined) {
    await new Promise((resolve) => setImmediate(resolve));
    return { ok: false, portClash: false, message: `cannot start ${binary}: ${spawnError?.message ?? 'spawn failed'}` };
  }
  liveNodes.add(child);
  installExitHook();
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'litecoind-watchdog', String(child.pid), input.tempDatadir && !options.keepDatadir ? datadir : ''], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => {}); // best effort: the exit hook still covers a normal exit
  watchdog.stdin?.on('error', () => {});
  watchdog.unref();
  unrefStream(watchdog.stdin);

  const rpcConfig: RpcClientConfig = { url: `http://127.0.0.1:${rpcPort}/`, username, password, timeoutMs: 30_000 };
  const probe = new RpcClient({ ...rpcConfig, timeoutMs: 5_000 });
  const timeoutMs = options.startupTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let lastProblem: string | undefined;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null || spawnError) {
        liveNodes.delete(child);
        disarm(watchdog);
        const tail = await debugLogTail(datadir);
        const text = [...output, ...tail].join('\n');
        const status = spawnError ? spawnError.message : child.exitCode !== null ? `exit code ${child.exitCode}` : `signal ${child.signalCode}`;
        return {
          ok: false,
          portClash: /unable to bind|address already in use|unable to start http server/i.test(text),
          message: `litecoind exited during startup (${status}).\n${formatTail(output, tail)}`,
        };
      }
      try {
        await probe.call('getblockchaininfo');
        return { ok: true, started: { child, watchdog, rpcPort, p2pPort, rpcConfig } };
      } catch (err) {
        if (err instanceof RpcError && err.code === -28) {
          lastProblem = `warming up: ${err.message}`; // "Loading block index..." and friends
        } else if (err instanceof UpstreamError) {
          // 'auth' too: if another node won our port it answers with other credentials until ours exits.
          lastProblem = err.message;
        } else {
          throw err;
        }
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
        liveNodes.delete(child);
        disarm(watchdog);
        const tail = await debugLogTail(datadir);
        return {
          ok: false,
          portClash: false,
          message: `litecoind did not answer RPC within ${timeoutMs} ms (last: ${lastProblem ?? 'no answer'}).\n${formatTail(output, tail)}`,
        };
      }
      await sleep(100);
    }
  } finally {
    probe.close();
  }
}

/** An -rpcauth entry (user:salt$hmac), as share/rpcauth/rpcauth.py writes it. */
function rpcAuth(username: string, password: string): string {
  const salt = randomBytes(16).toString('hex');
  return `${username}:${salt}$${createHmac('sha256', salt).update(password).digest('hex')}`;
}

async function openWallet(rpc: RpcClient, name: string): Promise<void> {
  const dir = await rpc.call<{ wallets: Array<{ name: string }> }>('listwalletdir');
  if (!dir.wallets.some((w) => w.name === name)) {
    await rpc.call('createwallet', [name]);
    return;
  }
  try {
    await rpc.call('loadwallet', [name]);
  } catch (err) {
    if (!(err instanceof RpcError && err.code === -35)) throw err; // -35: already loaded
  }
}

/** version 2, zero inputs, one output, locktime 0: the form fundrawtransaction completes. */
function zeroInputTxHex(scriptPubKey: Uint8Array, amount: bigint): string {
  const value = Buffer.alloc(8);
  value.writeBigUInt64LE(amount);
  return ['02000000', '00', '01', value.toString('hex'), compactSize(scriptPubKey.length), Buffer.from(scriptPubKey).toString('hex'), '00000000'].join('');
}

function compactSize(n: number): string {
  if (n < 0xfd) return n.toString(16).padStart(2, '0');
  const le = (bytes: number): string => {
    const b = Buffer.alloc(bytes);
    b.writeUIntLE(n, 0, bytes);
    return b.toString('hex');
  };
  return n <= 0xffff ? `fd${le(2)}` : `fe${le(4)}`;
}

async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Two free ports on 127.0.0.1, held open together so they differ. */
async function freePortPair(): Promise<[number, number]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < 2; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      ports.push((server.address() as AddressInfo).port);
    }
    return [ports[0] ?? 0, ports[1] ?? 0];
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

function disarm(watchdog: ChildProcess): void {
  if (watchdog.stdin && !watchdog.stdin.destroyed) watchdog.stdin.end('disarm\n');
}

function pipeLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  });
  stream.on('end', () => {
    if (pending.trim()) onLine(pending);
  });
}

function unrefStream(stream: unknown): void {
  if (typeof stream === 'object' && stream !== null && 'unref' in stream && typeof stream.unref === 'function') stream.unref();
}

async function debugLogTail(datadir: string, lines = 20): Promise<string[]> {
  try {
    const text = await readFile(join(datadir, 'regtest', 'debug.log'), 'utf8');
    return text.split('\n').filter((l) => l.trim()).slice(-lines);
  } catch {
    return [];
  }
}

function formatTail(output: string[], debugLog: string[]): string {
  const parts: string[] = [];
  if (output.length) parts.push(`litecoind output:\n${output.join('\n')}`);
  parts.push(debugLog.length ? `debug.log (last ${debugLog.length} lines):\n${debugLog.join('\n')}` : 'debug.log: empty or missing');
  return parts.join('\n');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether litecoind relays replacements with these arguments: the last -mempoolreplacement wins, default 0. */
export function relaysReplacementsWith(args: readonly string[]): boolean {
  const last = args.filter((a) => /^-mempoolreplacement(=|$)/.test(a)).at(-1);
  return last !== undefined && (last === '-mempoolreplacement' || last === '-mempoolreplacement=1');
}

/** litecoind -regtest's block 0 (getblockhash 0). */
export const LITECOIND_REGTEST_GENESIS = '530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9';

/**
 * The service's `node-rpc` backend configuration for this node (regtest has no fee estimates); it
 * states whether the node relays replacements, as an operator would. The node as a coin's backend. Every Bitcoin-rules coin of the tests runs on this one litecoind
 * -regtest, so its block 0 is named (config.ts `genesis`): a coin's own regtest would have another.
 */
export function nodeRpcBackendConfig(node: Pick<RegtestNode, 'rpcConfig' | 'relaysReplacements'>, pollIntervalMs: number) {
  return {
    type: 'node-rpc' as const,
    genesis: LITECOIND_REGTEST_GENESIS,
    replacements: node.relaysReplacements,
    url: node.rpcConfig.url,
    username: node.rpcConfig.username,
    password: node.rpcConfig.password,
    pollIntervalMs,
    fallbackFeePerKb: 10_000,
  };
}
