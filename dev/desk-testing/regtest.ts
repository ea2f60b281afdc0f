// Test support: a real litecoind -regtest node, the service embedded as in the app (createService
// on 127.0.0.1 port 0, litecoin on regtest unless another Bitcoin-rules coin is asked for), and an
// ApiClient pointed at it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../shared/api/client.ts';
import type { CoordinatorApi } from '../../main/core/api.ts';
import { addressToScript } from '../../shared/coins/index.ts';
import { createWallet, nextReceiveAddress, requireWallet, walletParams, type CoreDeps } from '../../main/core/wallets/wallets.ts';
import { openStore, type CoordinatorStore, type PaymentRow, type WalletRow } from '../../main/core/store/store.ts';
import { createVault, type NewVault } from '../../main/core/vaults/vaults.ts';
import { progress } from '../../main/core/payments/payments.ts';
import { importSignatureFiles } from '../../main/core/payments/signature-import.ts';
import { writeSigningRequest } from '../../main/core/payments/signing-request.ts';
import { submitPayment } from '../../main/core/payments/submit.ts';
import { signRequest } from '../../main/core/software-signer.ts';
import { testCosigner, treasuryVault } from './keys.ts';
import type { UtxoCoinName } from '../../shared/coins/index.ts';
import { fundedNode, type RegtestNode, type StartLitecoindOptions } from '../chains/litecoind.ts';
import { startDevService } from '../dev-service.ts';
import type { OwnNode } from '../../main/core/chains/own-node.ts';
import { RpcError } from '../../service/chains/utxo/rpc-client.ts';

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

/** `utxoCoin`: the coin the node is served as (its prefixes); default litecoin. `usdRate`: the service's pinned USD rate. `node`: how litecoind starts (e.g. -mempoolreplacement=1). */
export async function startRegtestDesk(options: { utxoCoin?: UtxoCoinName; usdRate?: number; node?: StartLitecoindOptions } = {}): Promise<RegtestDesk> {
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
    utxos: (c, a, p) => real.utxos(c, a, p),
    createMultisig: (c, b) => real.createMultisig(c, b),
    signAndSendMultisig: (c, b) => real.signAndSendMultisig(c, b),
    rawTransaction: (c, t) => real.rawTransaction(c, t),
    tokenInfo: (c) => real.tokenInfo(c),
    feeEstimates: (c) => real.feeEstimates(c),
    status: () => real.status(),
    watchStatus: (c, id) => real.watchStatus(c, id),
    watchWindow: (c, id, shown) => real.watchWindow(c, id, shown),
    priceHistory: (c, at) => real.priceHistory(c, at),
  };
  return { ...bound, ...replaced };
}

/** The regtest node as the treasurer's own node of the desk (what ownNodesOf asks a node saved in Settings, here over the harness's RPC). */
export function ownNodeOver(node: RegtestNode): OwnNode {
  return {
    where: () => node.rpcConfig.url,
    inMempool: (_coin, txid) =>
      node.rpc.call('getmempoolentry', [txid]).then(
        () => true,
        (err: unknown) => {
          if (err instanceof RpcError && err.code === -5) return false;
          throw err;
        },
      ),
  };
}

/** Pays `amount` to the wallet's next receive address and confirms it in a block the service has indexed; the funding txid. */
export async function fundWallet(desk: RegtestDesk, deps: CoreDeps, walletId: string, amount: bigint): Promise<string> {
  const address = (await nextReceiveAddress(deps, walletId)).address;
  const txid = await desk.node.fundScript(addressToScript(walletParams(requireWallet(deps, walletId)), address), amount);
  await desk.mine(1);
  return txid;
}

/** Pays `amount` to the wallet's next receive address and confirms it: the coin, and the block that confirmed it. */
export async function fundWalletCoin(desk: RegtestDesk, deps: CoreDeps, walletId: string, amount: bigint): Promise<{ txid: string; vout: number; height: number }> {
  const txid = await fundWallet(desk, deps, walletId, amount);
  const w = requireWallet(deps, walletId);
  const coin = (await desk.api.utxos(w.coin, deps.store.addresses(walletId).map((a) => a.address))).utxos.find((u) => u.txid === txid);
  if (coin?.height == null) throw new Error(`the service lists no confirmed coin of ${txid} paying ${w.name}`);
  return { txid, vout: coin.vout, height: coin.height };
}

/**
 * The co-signers sign the payment's signing request in software (as they would on their own
 * machines), the desk imports their files and submits: the submitted payment, and each signer's
 * file. Throws, naming the file, when one is not imported or the signatures are not enough.
 */
export async function signAndSend(deps: CoreDeps, p: PaymentRow, signers: readonly { name: string; accountXprv: string }[]): Promise<{ payment: PaymentRow; files: { name: string; text: string }[] }> {
  const request = await writeSigningRequest(deps, p.id);
  const files = signers.map((c) => ({ name: `${c.name}.json`, text: signRequest(request, { xprv: c.accountXprv }).file }));
  importSignatureFiles(deps, files).forEach((r, i) => {
    if (r.status !== 'imported') throw new Error(`${files[i]!.name} was not imported (${r.status}): ${r.message}`);
  });
  if (!progress(deps, p.id).complete) throw new Error(`payment ${p.id} lacks signatures after ${files.map((f) => f.name).join(', ')}`);
  return { payment: await submitPayment(deps, p.id), files };
}

export interface WalletDesk {
  desk: RegtestDesk;
  store: CoordinatorStore;
  /** With the whole client: the books and the funds read more of the service than core's slice. */
  deps: CoreDeps & { api: ApiClient };
  walletId: string;
  dispose(): Promise<void>;
}

/** A regtest desk with a coordinator store of its own and one empty 2-of-3 wallet of alice, bob and carol; its node relays replacements, as the demo's does. */
export function startWalletDesk(name: string): Promise<WalletDesk> {
  const cosigners = ['alice', 'bob', 'carol'].map((n) => testCosigner(n));
  return deskWith((deps) => createWallet(deps, { coin: 'litecoin', network: 'regtest', name, m: 2, cosigners }));
}

/** The same with issue 27's proof vault instead (treasuryVault: 2 of alice, bob, carol now, or 1 of dave, erin after 144 blocks). */
export function startVaultDesk(name?: string, options: { usdRate?: number } = {}): Promise<WalletDesk> {
  return deskWith((deps) => createVault(deps, treasuryVault(name)), options);
}

/** The same with a vault of the caller's (made from a template or read from a file). */
export function startDeskWithVault(vault: NewVault): Promise<WalletDesk> {
  return deskWith((deps) => createVault(deps, vault));
}

async function deskWith(make: (deps: CoreDeps) => Promise<WalletRow>, options: { usdRate?: number } = {}): Promise<WalletDesk> {
  const desk = await startRegtestDesk({ ...options, node: { extraArgs: ['-mempoolreplacement=1'] } });
  const store = openStore(join(desk.dir, 'desk.sqlite'));
  const deps = { store, api: desk.api, actor: 'treasurer', ownNode: ownNodeOver(desk.node) };
  const walletId = (await make(deps)).id;
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
