// A real `hardhat node` (hardhat 2) on 127.0.0.1 with its own port and temp dir, and the ERC20
// contracts the Ether/ERC20 tests and the demo use. Nothing is downloaded: hardhat, OpenZeppelin's
// build artifacts and solc-js (wasm) all come from node_modules. The service's tests, the
// coordinator's tests and `npm run demo` all start their EVM chain here.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ContractFactory, JsonRpcProvider, NonceManager, type BaseContract } from 'ethers';

const require = createRequire(import.meta.url);

/** hardhat's default chain id, kept explicit: the coordinator's dev accounts expect it. */
export const HARDHAT_CHAIN_ID = 31337;

export interface HardhatNode {
  url: string;
  provider: JsonRpcProvider;
  /** Funded account 0, nonce-managed. */
  funder: NonceManager;
  /** The node's tip, read fresh (ethers' provider caches reads for a moment). */
  blockNumber(): Promise<number>;
  stop(): Promise<void>;
}

export interface StartHardhatOptions {
  /** Also mine an empty block every this many ms (the demo), besides one per transaction. */
  intervalMs?: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startHardhat(options: StartHardhatOptions = {}): Promise<HardhatNode> {
  let cli: string;
  try {
    cli = require.resolve('hardhat/internal/cli/cli.js');
  } catch {
    throw new Error('hardhat 2 is not installed (npm install -D hardhat@2): the Ether/ERC20 tests need `hardhat node`');
  }
  const dir = mkdtempSync(join(tmpdir(), 'countersign-hardhat-'));
  const mining = options.intervalMs ? `, mining: { auto: true, interval: ${Math.max(1, Math.floor(options.intervalMs))} }` : '';
  writeFileSync(join(dir, 'hardhat.config.cjs'), `module.exports = { networks: { hardhat: { chainId: ${HARDHAT_CHAIN_ID}${mining} } } };\n`);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [cli, '--config', join(dir, 'hardhat.config.cjs'), 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
    cwd: process.cwd(),
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', HARDHAT_TELEMETRY_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`hardhat node exited with code ${child.exitCode} before serving: ${output}`);
    }
    const ok = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`hardhat node did not answer on ${url} within 60 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 50 });
  return {
    url,
    provider,
    // hardhat's own accounts are unlocked: the node signs for them
    funder: new NonceManager(await provider.getSigner(0)),
    blockNumber: async () => Number(BigInt((await provider.send('eth_blockNumber', [])) as string)),
    stop: async () => {
      provider.destroy();
      await stop();
    },
  };
}

interface Artifact {
  abi: unknown[];
  bytecode: string;
}

/** OpenZeppelin 4.9's ERC20PresetMinterPauser (18 decimals), from its published build artifact. */
export function presetMinterPauser(): Artifact {
  const json = JSON.parse(readFileSync(require.resolve('@openzeppelin/contracts/build/contracts/ERC20PresetMinterPauser.json'), 'utf8')) as Artifact;
  return { abi: json.abi, bytecode: json.bytecode };
}

const SIX_DECIMALS_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract SixDecimals is ERC20 {
  constructor(uint256 supply) ERC20("Six", "SIX") { _mint(msg.sender, supply); }
  function decimals() public pure override returns (uint8) { return 6; }
}
`;

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}
interface Solc {
  version(): string;
  compile(input: string, callbacks: { import: (path: string) => { contents: string } | { error: string } }): string;
}

/** OZ 4.9's ERC20 with decimals() = 6, compiled by solc-js once and cached by source hash. */
export function sixDecimalsToken(): Artifact {
  return compileContracts('SixDecimals.sol', SIX_DECIMALS_SOURCE)['SixDecimals']!;
}

/**
 * Every contract of one Solidity source (OpenZeppelin 4.9 importable), by name: compiled by solc-js
 * (wasm, from node_modules) once and cached by source hash, so test runs do not pay for it again.
 */
export function compileContracts(fileName: string, source: string): Record<string, Artifact> {
  const solc = require('solc') as Solc;
  const key = createHash('sha256').update(source).update(solc.version()).digest('hex').slice(0, 16);
  const cache = join(tmpdir(), 'countersign-solc-cache', `${fileName.replace(/\.sol$/, '')}-${key}.contracts.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as Record<string, Artifact>;
  const input = {
    language: 'Solidity',
    sources: { [fileName]: { content: source } },
    settings: { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const ozRoot = dirname(dirname(dirname(require.resolve('@openzeppelin/contracts/package.json'))));
  const out = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (path) => {
        try {
          return { contents: readFileSync(join(ozRoot, path), 'utf8') };
        } catch {
          return { error: `not found: ${path}` };
        }
      },
    }),
  ) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`solc failed: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contracts = out.contracts?.[fileName];
  if (!contracts || Object.keys(contracts).length === 0) throw new Error(`solc produced no contract from ${fileName}`);
  const artifacts = Object.fromEntries(Object.entries(contracts).map(([name, c]) => [name, { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }]));
  mkdirSync(dirname(cache), { recursive: true });
  writeFileSync(cache, JSON.stringify(artifacts));
  return artifacts;
}

export async function deploy(node: HardhatNode, artifact: Artifact, args: unknown[]): Promise<BaseContract & { address: string }> {
  const factory = new ContractFactory(artifact.abi as never[], artifact.bytecode, node.funder);
  const contract = await factory.deploy(...args);
  await contract.waitForDeployment();
  return Object.assign(contract, { address: (await contract.getAddress()).toLowerCase() });
}

/** The service's ethereum backend for this node, indexing from block 0. */
export function evmRpcBackendConfig(node: Pick<HardhatNode, 'url'>, pollIntervalMs: number) {
  return { type: 'evm-rpc' as const, url: node.url, startHeight: 0, pollIntervalMs };
}

/** Sends `wei` from the funder to `to` and waits for it to be mined. */
export async function fundEther(node: HardhatNode, to: string, wei: bigint): Promise<void> {
  await (await node.funder.sendTransaction({ to, value: wei })).wait();
}

/** A fresh ERC20PresetMinterPauser (18 decimals) with `raw` units minted to `to`; its address, lower case. */
export async function mintedToken(node: HardhatNode, name: string, symbol: string, to: string, raw: bigint): Promise<string> {
  const token = await deploy(node, presetMinterPauser(), [name, symbol]);
  await (await token.getFunction('mint')(to, raw)).wait();
  return token.address;
}
