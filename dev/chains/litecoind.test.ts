import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { RpcError, UpstreamError, coinsToUnits } from '../../service/chains/utxo/rpc-client.ts';
import { fundedNode, startLitecoind, type RegtestNode } from './litecoind.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

function p2pkh(): Uint8Array {
  return new Uint8Array([0x76, 0xa9, 0x14, ...randomBytes(20), 0x88, 0xac]);
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

type DecodedTx = { vout: Array<{ value: string; n: number; scriptPubKey: { hex: string } }> };

describe('litecoind -regtest dev chain', () => {
  let node: RegtestNode;

  beforeAll(async () => {
    node = await fundedNode();
  });

  afterAll(async () => {
    await node?.stop();
  });

  it('starts a funded regtest node without MWEB', async () => {
    const info = await node.rpc.call<{ chain: string; blocks: number; softforks: Record<string, unknown> }>('getblockchaininfo');
    expect(info.chain).toBe('regtest');
    expect(info.blocks).toBe(101);
    expect(info.softforks.mweb).toBeUndefined(); // -vbparams=mweb:-2:... = never active
    expect(await node.walletRpc.call('getbalance')).toBe(50);
    expect(node.datadir.startsWith(tmpdir())).toBe(true);
    expect(node.p2pPort).toBeGreaterThan(0);
    expect(node.rpcPort).not.toBe(node.p2pPort);
  });

  it('mine() moves the tip and returns the hashes in order', async () => {
    const before = await node.rpc.call<number>('getblockcount');
    const hashes = await node.mine(3);
    expect(hashes).toHaveLength(3);
    expect(await node.rpc.call<number>('getblockcount')).toBe(before + 3);
    expect(await node.rpc.call<string>('getbestblockhash')).toBe(hashes[2]);
    expect(await node.rpc.call<string>('getblockhash', [before + 1])).toBe(hashes[0]);
    expect(await node.mine(0)).toEqual([]);
    await expect(node.mine(-1)).rejects.toThrow(RangeError);
  });

  it('newAddress() gives regtest bech32 and legacy addresses', async () => {
    expect(await node.newAddress()).toMatch(/^rltc1q/);
    expect(await node.newAddress('bech32')).toMatch(/^rltc1q/);
    expect(await node.newAddress('legacy')).toMatch(/^[mn]/);
  });

  it('fundScript() pays a bare P2PKH scriptPubKey', async () => {
    const script = p2pkh();
    const amount = 123_456_789n;
    const txid = await node.fundScript(script, amount);
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    const tx = await node.rpc.call<DecodedTx>('getrawtransaction', [txid, true], { exactNumbers: true });
    const out = tx.vout.find((o) => o.scriptPubKey.hex === hex(script));
    expect(out).toBeDefined();
    expect(coinsToUnits(out?.value ?? '')).toBe(amount);
    const utxo = await node.rpc.call<{ value: string; confirmations: number; scriptPubKey: { hex: string; type: string } }>('gettxout', [txid, out?.n], {
      exactNumbers: true,
    });
    expect(utxo.scriptPubKey).toMatchObject({ hex: hex(script), type: 'pubkeyhash' });
    expect(coinsToUnits(utxo.value)).toBe(amount);
    expect(utxo.confirmations).toBe(0);
    await node.mine(1);
    expect((await node.rpc.call<{ confirmations: number }>('gettxout', [txid, out?.n])).confirmations).toBe(1);
  });

  it('fundScript() calls made at once all succeed, on distinct coins', async () => {
    const scripts = [p2pkh(), p2pkh(), p2pkh(), new Uint8Array([0x00, 0x14, ...randomBytes(20)])];
    const txids = await Promise.all(scripts.map((s, i) => node.fundScript(s, 100_000n * BigInt(i + 1))));
    expect(new Set(txids).size).toBe(4);
    const mempool = await node.rpc.call<string[]>('getrawmempool');
    for (const txid of txids) expect(mempool).toContain(txid);
    await node.mine(1);
  });

  it('fundScript() surfaces the node refusing dust (P2PKH dust is 5460 litoshis on litecoind 0.21)', async () => {
    const err = await node.fundScript(p2pkh(), 5_459n).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -4, message: 'Transaction amount too small' });
    await expect(node.fundScript(p2pkh(), 5_460n)).resolves.toMatch(/^[0-9a-f]{64}$/);
    await expect(node.fundScript(new Uint8Array(), 1n)).rejects.toThrow(TypeError);
    await expect(node.fundScript(p2pkh(), 0n)).rejects.toThrow(RangeError);
  });
});

describe('litecoind lifecycle', () => {
  it('stop() stops the process and removes the temp datadir', async () => {
    const node = await startLitecoind();
    expect(existsSync(node.datadir)).toBe(true);
    expect(alive(node.pid)).toBe(true);
    await node.stop();
    expect(alive(node.pid)).toBe(false);
    expect(existsSync(node.datadir)).toBe(false);
    await node.stop(); // idempotent
    const err = await node.rpc.call('getblockcount').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ kind: 'unreachable' });
  });

  it('keepDatadir keeps the chain and the wallet for a restart on that datadir', async () => {
    const first = await startLitecoind({ keepDatadir: true });
    const datadir = first.datadir;
    try {
      const hashes = await first.mine(2);
      await first.stop();
      expect(existsSync(datadir)).toBe(true);
      const second = await startLitecoind({ datadir });
      try {
        expect(await second.rpc.call<string>('getbestblockhash')).toBe(hashes[1]);
        expect(await second.rpc.call('listwallets')).toEqual([second.walletName]);
      } finally {
        await second.stop();
      }
      expect(existsSync(datadir)).toBe(true); // a datadir we were given is never deleted
    } finally {
      await rm(datadir, { recursive: true, force: true });
    }
  });

  it('fails clearly when litecoind is not on PATH', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent-countersign';
    try {
      await expect(startLitecoind()).rejects.toThrow(
        'litecoind not found on PATH: install it with `apt-get install litecoind`; the UTXO tests run against litecoind -regtest',
      );
    } finally {
      process.env.PATH = path;
    }
  });

  it('reports the output and debug.log tail when litecoind exits during startup', async () => {
    const err = await startLitecoind({ extraArgs: ['-vbparams=nosuchdeployment:0:1'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/litecoind exited during startup/);
    expect((err as Error).message).toMatch(/Invalid deployment \(nosuchdeployment\)/);
  });

  it('with mweb: true, mines through MWEB activation (peg-in at height 432)', async () => {
    const node = await fundedNode({ mweb: true });
    try {
      const hashes = await node.mine(340); // 101 -> 441
      expect(hashes).toHaveLength(340);
      expect(await node.rpc.call<number>('getblockcount')).toBe(441);
      expect(await node.rpc.call<string>('getbestblockhash')).toBe(hashes[339]);
      const info = await node.rpc.call<{ softforks: { mweb?: { active: boolean } } }>('getblockchaininfo');
      expect(info.softforks.mweb?.active).toBe(true);
      const block = await node.rpc.call<{ mweb?: unknown; tx: Array<{ vout: Array<{ scriptPubKey: { type: string } }> }> }>('getblock', [hashes[330], 2]);
      expect(block.mweb).toBeDefined();
      expect(block.tx.at(-1)?.vout[0]?.scriptPubKey.type).toBe('witness_mweb_hogaddr'); // the HogEx transaction
    } finally {
      await node.stop();
    }
  });

  it('a watchdog stops litecoind and removes its datadir when the owning process is killed', async () => {
    const module = fileURLToPath(new URL('./litecoind.ts', import.meta.url));
    const code = `const m = await import(${JSON.stringify(module)}); const n = await m.startLitecoind(); console.log(JSON.stringify({ pid: n.pid, datadir: n.datadir })); setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      owner.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        if (buffered.includes('\n')) resolve(buffered.split('\n')[0] ?? '');
      });
      owner.on('exit', () => reject(new Error('the owner process exited early')));
    });
    const { pid, datadir } = JSON.parse(line) as { pid: number; datadir: string };
    try {
      expect(alive(pid)).toBe(true);
      owner.kill('SIGKILL'); // no 'exit' handler runs: only the watchdog can clean up
      expect(await until(() => !alive(pid), 20_000)).toBe(true);
      expect(await until(() => !existsSync(datadir), 5_000)).toBe(true);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      await rm(datadir, { recursive: true, force: true });
    }
  });
});
