// Builds a small mainnet-shaped chain against a real litecoind and checks the manifest against what
// the node holds: block and transaction counts, output types, fan-in/fan-out, the probes' exact
// histories, unspent sets and balances, and that a second call reuses the cache.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegtestNode } from '../../dev/chains/litecoind.ts';
import { coinsToUnits } from '../../service/chains/utxo/rpc-client.ts';
import { scaleChain, startScaleNode, type ScaleManifest } from './scale-chain.ts';

const TXS = 3_000;

interface VerboseBlock {
  tx: Array<{
    txid: string;
    vin: Array<{ txid?: string; vout?: number; coinbase?: string }>;
    vout: Array<{ n: number; value: number; scriptPubKey: { type: string; address?: string; addresses?: string[] } }>;
  }>;
}

let cacheDir: string;
let manifest: ScaleManifest;
let datadir: string;
let node: RegtestNode;
const blocks: VerboseBlock[] = [];

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'countersign-scale-'));
  ({ manifest, datadir } = await scaleChain({ txs: TXS, cacheDir, seed: 'test', progress: () => {} }));
  node = await startScaleNode(datadir);
  for (let h = 0; h <= manifest.tipHeight; h += 50) {
    const heights = Array.from({ length: Math.min(50, manifest.tipHeight - h + 1) }, (_, i) => h + i);
    const hashes = await Promise.all(heights.map((height) => node.rpc.call<string>('getblockhash', [height])));
    blocks.push(...(await Promise.all(hashes.map((hash) => node.rpc.call<VerboseBlock>('getblock', [hash, 2])))));
  }
}, 240_000);

afterAll(async () => {
  await node?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

const addressOf = (out: VerboseBlock['tx'][number]['vout'][number]): string | undefined => out.scriptPubKey.address ?? out.scriptPubKey.addresses?.[0];

describe('the scale chain', () => {
  it('holds the transactions the manifest counts, per height', async () => {
    expect(await node.rpc.call<number>('getblockcount')).toBe(manifest.tipHeight);
    expect(manifest.txs).toBe(TXS);
    expect(manifest.txsPerHeight.reduce((a, b) => a + b, 0)).toBe(TXS);
    expect(blocks.map((b) => b.tx.length)).toEqual(manifest.txsPerHeight);
  });

  it('pays all four script types, with consolidations and fan-outs among the transactions', () => {
    const types = new Set<string>();
    let fanIn = 0;
    let fanOut = 0;
    const addresses = new Set<string>();
    for (const block of blocks) {
      for (const tx of block.tx.slice(1)) {
        if (tx.vin.length >= 20) fanIn++;
        if (tx.vout.length >= 20) fanOut++;
        for (const out of tx.vout) {
          types.add(out.scriptPubKey.type);
          const a = addressOf(out);
          if (a) addresses.add(a);
        }
      }
    }
    expect([...types].sort()).toEqual(['pubkeyhash', 'scripthash', 'witness_v0_keyhash', 'witness_v0_scripthash']);
    expect(fanIn).toBe(manifest.consolidations);
    expect(fanIn).toBeGreaterThan(10);
    expect(fanOut).toBeGreaterThan(10);
    for (const [type, count] of Object.entries(manifest.outputsByType)) expect(count, type).toBeGreaterThan(0);
    // Every builder output pays an address; the miner's coinbases add one more script.
    expect(addresses.size + 1).toBe(manifest.distinctScripts);
  });

  it.each(['small', 'large'] as const)('gives the %s probe exactly its history, unspent set and balance', async (name) => {
    const probe = manifest.probes[name];
    expect(probe.entries).toBe(name === 'small' ? 10 : TXS / 100);
    // Walk the chain: a transaction touches the probe when it pays it or spends one of its coins.
    const coins = new Set<string>();
    let touching = 0;
    for (const block of blocks) {
      for (const tx of block.tx) {
        // Every input looked at (not some(): a spend may take several of the probe's coins).
        let touches = tx.vin.filter((i) => i.txid !== undefined && coins.delete(`${i.txid}:${i.vout}`)).length > 0;
        for (const out of tx.vout) {
          if (addressOf(out) === probe.address) {
            coins.add(`${tx.txid}:${out.n}`);
            touches = true;
          }
        }
        if (touches) touching++;
      }
    }
    expect(touching).toBe(probe.entries);
    expect(coins.size).toBe(probe.unspent);
    const scan = await node.rpc.call<{ success: boolean; unspents: unknown[]; total_amount: number }>('scantxoutset', ['start', [`addr(${probe.address})`]]);
    expect(scan.success).toBe(true);
    expect(scan.unspents.length).toBe(probe.unspent);
    expect(coinsToUnits(scan.total_amount)).toBe(BigInt(probe.balance));
    expect(probe.unspent).toBeGreaterThan(0);
  });

  it('reuses the cached chain on the next call', async () => {
    const again = await scaleChain({ txs: TXS, cacheDir, seed: 'test', progress: () => {} });
    expect(again.fromCache).toBe(true);
    expect(again.datadir).toBe(datadir);
    expect(again.manifest).toEqual(manifest);
  });
});
