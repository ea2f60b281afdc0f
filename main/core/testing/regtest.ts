// Test support: a real litecoind -regtest node, the service embedded as in the app (createService
// on 127.0.0.1 port 0, litecoin on regtest unless another Bitcoin-rules coin is asked for), and an
// ApiClient pointed at it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../../shared/api/client.ts';
import type { CoordinatorApi } from '../api.ts';
import { addressToScript } from '../../../shared/coins/index.ts';
import { createWallet, nextReceiveAddress, requireWallet, walletParams, type CoreDeps } from '../wallets.ts';
import { openStore, type CoordinatorStore } from '../store/store.ts';
import { testCosigner } from './keys.ts';
import type { UtxoCoinName } from '../../../shared/coins/index.ts';
import { fundedNode, type RegtestNode, type StartLitecoindOptions } from '../../../dev/chains/litecoind.ts';
import { startDevService } from '../../../dev/dev-service.ts';

export interface RegtestDesk {
  node: RegtestNode;
  api: ApiClient;
  /** The service's base URL (for a ServiceConnection, as the app makes one). */
  url: string;
  dir: string;
  /** Waits until the service's index has the node's tip and mempool. */
  synced(): Promise<void>;
  mine(blocks?: number): Promise<void>;
  dispose(): Promise<void>;
}

/** `utxoCoin`: the coin the node is served as (its prefixes); default litecoin. `node`: how litecoind starts (e.g. -mempoolreplacement=1). */
export async function startRegtestDesk(options: { utxoCoin?: UtxoCoinName; node?: StartLitecoindOptions } = {}): Promise<RegtestDesk> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-core-'));
  const { node: nodeOptions, ...serviceOptions } = options;
  const node = await fundedNode(nodeOptions);
  try {
    const { service, api, url, synced } = await startDevService(node, dir, { pollIntervalMs: 100, ...serviceOptions });
    // The index starts behind the node's first 101 blocks: address queries answer 503 until it catches up.
    await synced();
    return {
      node,
      api,
      url,
      dir,
      synced,
      mine: async (blocks = 1) => {
        await node.mine(blocks);
        await synced();
      },
      dispose: async () => {
        await service.close();
        await node.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The real client with some of its methods replaced: a service that lies, refuses or forges, for one call. */
export function apiWith(real: CoordinatorApi, replaced: Partial<CoordinatorApi>): CoordinatorApi {
  const bound: CoordinatorApi = {
    toNetworkAddresses: (k) => real.toNetworkAddresses(k),
    history: (c, a, p) => real.history(c, a, p),
    utxos: (c, a) => real.utxos(c, a),
    createMultisig: (c, b) => real.createMultisig(c, b),
    signAndSendMultisig: (c, b) => real.signAndSendMultisig(c, b),
    rawTransaction: (c, t) => real.rawTransaction(c, t),
    tokenInfo: (c) => real.tokenInfo(c),
    feeEstimates: (c) => real.feeEstimates(c),
    status: () => real.status(),
  };
  return { ...bound, ...replaced };
}

/** Pays `amount` to the wallet's next receive address and confirms it in a block the service has indexed; the funding txid. */
export async function fundWallet(desk: RegtestDesk, deps: CoreDeps, walletId: string, amount: bigint): Promise<string> {
  const address = (await nextReceiveAddress(deps, walletId)).address;
  const txid = await desk.node.fundScript(addressToScript(walletParams(requireWallet(deps, walletId)), address), amount);
  await desk.mine(1);
  return txid;
}

export interface WalletDesk {
  desk: RegtestDesk;
  store: CoordinatorStore;
  deps: CoreDeps;
  walletId: string;
  dispose(): Promise<void>;
}

/** A regtest desk with a coordinator store of its own and one empty 2-of-3 wallet of alice, bob and carol. */
export async function startWalletDesk(name: string): Promise<WalletDesk> {
  const desk = await startRegtestDesk();
  const store = openStore(join(desk.dir, 'desk.sqlite'));
  const deps: CoreDeps = { store, api: desk.api, actor: 'treasurer' };
  const cosigners = ['alice', 'bob', 'carol'].map((n) => testCosigner(n));
  const walletId = (await createWallet(deps, { coin: 'litecoin', network: 'regtest', name, m: 2, cosigners })).id;
  return {
    desk,
    store,
    deps,
    walletId,
    dispose: async () => {
      store.close();
      await desk.dispose();
    },
  };
}
