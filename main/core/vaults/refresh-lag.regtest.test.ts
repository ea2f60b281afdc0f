// Issue 31, finding 6: while the service's index lags the node by a few blocks, the wallet page's
// refresh warning (vaultCoinsNow) and the recovery-path spend check (vaultPathRefusal) name the
// same opening block, the coin's own block + the path's blocks (BIP68). Before, the page counted
// the coin's block back from the node's tip with confirmations counted at the index's tip, so it
// said the path opened `lag` blocks later than it does. litecoind -regtest, the service's block
// reads held by a proxy (dev/chains/slow-rpc.ts) so that the index stays 3 blocks behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLitecoind, type RegtestNode } from '../../../dev/chains/litecoind.ts';
import { startSlowRpc, type SlowRpc } from '../../../dev/chains/slow-rpc.ts';
import { startDevService, type DevService } from '../../../dev/dev-service.ts';
import { treasuryVault } from '../../../dev/desk-testing/keys.ts';
import { addressToScript, chainParams } from '../../../shared/coins/index.ts';
import { vaultPathRefusal } from '../payments/vault-paths.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { vaultCoinsNow } from './refresh.ts';
import { createVault } from './vaults.ts';
import type { CoreDeps } from '../wallets/wallets.ts';

const PATH_BLOCKS = 144; // treasuryVault: 1 of dave, erin after 144 blocks
const LAG = 3;

let node: RegtestNode;
let proxy: SlowRpc;
let service: DevService;
let dir: string;
let store: CoordinatorStore;
let deps: CoreDeps;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-refresh-lag-'));
  node = await startLitecoind();
  await node.mine(150);
  proxy = await startSlowRpc(node.rpcConfig.url, 0);
  service = await startDevService(node, dir, { pollIntervalMs: 100, nodeRpcUrl: proxy.url });
  await service.synced();
  store = openStore(join(dir, 'desk.sqlite'));
  deps = { store, api: service.api, actor: 'treasurer' };
}, 120_000);

afterAll(async () => {
  proxy?.release();
  store?.close();
  await service?.service.close();
  await proxy?.close();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the refresh warning while the index lags the node', () => {
  it('names the same opening block as the spend check: the coin’s own block + the path', async () => {
    const vault = await createVault(deps, treasuryVault('Lagging vault'));
    const address = store.addresses(vault.id).find((a) => !a.change && a.index === 0)!;
    const txid = await node.fundScript(addressToScript(chainParams('litecoin', 'regtest'), address.address), 100_000_000n);
    await node.mine(1);
    const coinHeight = await node.rpc.call<number>('getblockcount');
    await node.mine(100);
    await service.synced();
    // The index stops where it is; the node moves LAG blocks on, and the service has seen its tip.
    proxy.hold();
    await node.mine(LAG);
    const nodeTip = await node.rpc.call<number>('getblockcount');
    for (;;) {
      const s = (await service.api.status()).coins.find((c) => c.coin === 'litecoin')!;
      if (s.tip_height === nodeTip) {
        expect(s.indexed_height).toBe(nodeTip - LAG);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const opensAt = coinHeight + PATH_BLOCKS;
    const now = await vaultCoinsNow(deps, vault.id, Date.now());
    expect(now.openings.map((o) => [o.txid, o.opensAtBlock, o.blocksLeft])).toEqual([[txid, opensAt, opensAt - (nodeTip + 1)]]);
    const utxo = (await service.api.utxos('litecoin', [address.address])).utxos[0]!;
    const refusal = await vaultPathRefusal(deps, vault, PATH_BLOCKS, [{ txid, vout: utxo.vout }], store.addresses(vault.id), new Date());
    expect(refusal).toContain(`confirmed in block ${coinHeight}, so this path opens at block ${opensAt}`);
    proxy.release();
  });
});
