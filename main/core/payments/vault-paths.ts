// A vault spend's path (issue 27): the path is chosen by when it opens (0 blocks: the primary path),
// and a path with a relative timelock is refused for any chosen coin it has not opened for yet,
// naming the block it opens at and an estimated date. The coin's block and the tip are the service's
// (its unspent-output extension); the node would refuse the spend until then anyway (BIP68).
import { pathNotOpen } from '../../../shared/coins/vault-spend.ts';
import { plural } from '../../../shared/api/words.ts';
import type { AddressRow, WalletRow } from '../store/store.ts';
import { walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { coinHeight, utxosOf } from '../wallets/funds.ts';
import { vaultPaths } from '../vaults/vaults.ts';
import { outpointKey, type Outpoint } from './outpoints.ts';

/** Why the vault has no path opening after `blocks`, naming the paths it has; null when it has one. */
export function unknownPathRefusal(deps: Pick<CoreDeps, 'store'>, w: WalletRow, blocks: number): string | null {
  const paths = vaultPaths(deps, w.id);
  if (paths.some((p) => p.blocks === blocks)) return null;
  return `"${w.name}" has no path that opens after ${plural(blocks, 'block')}; its paths: ${paths.map((p) => `${p.threshold} of ${p.keys.join(', ')} ${p.blocks === 0 ? 'now' : `after ${p.opens}`}`).join('; ')}`;
}

/** Why the vault cannot be spent on the path opening after `blocks` now, or null when it can. */
export async function vaultPathRefusal(deps: Pick<CoreDeps, 'store' | 'api'>, w: WalletRow, blocks: number, inputs: readonly Outpoint[], owners: readonly AddressRow[], now: Date): Promise<string | null> {
  const unknown = unknownPathRefusal(deps, w, blocks);
  if (unknown) return unknown;
  const path = vaultPaths(deps, w.id).find((p) => p.blocks === blocks)!;
  if (blocks === 0) return null;
  // In batches of 200, as every question about a wallet's addresses: a recovery sweep may spend from more.
  const utxos = await utxosOf(deps.api, w.coin, [...new Set(owners.map((o) => o.address))]);
  const params = walletParams(w);
  for (const i of inputs) {
    const at = outpointKey(i);
    const u = utxos.find((x) => outpointKey(x) === at);
    if (!u) return `${at} is not an unspent output at the service`;
    const height = coinHeight(u);
    const tip = height === null ? 0 : height + u.confirmations - 1;
    const closed = pathNotOpen(params, at, height, blocks, tip, now);
    if (closed) return `the path of ${path.threshold} of ${path.keys.join(', ')} is not open yet: ${closed}`;
  }
  return null;
}
