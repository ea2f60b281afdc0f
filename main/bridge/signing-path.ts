// Who signs a payment, and how many of them: the one place every signature count the screens show
// comes from (the payment page, the payments list, the propose form's paths, co-signer mode). A vault
// payment is signed on the path it was proposed on (issue 32): a 1-of-2 recovery spend needs one
// signature of its two recovery keys, not the wallet's M of all its keys.
import { plural } from '../../shared/api/words.ts';
import type { ChainParams } from '../../shared/coins/index.ts';
import { namedVaultPaths, type VaultPolicy } from '../../shared/coins/vault-policy.ts';
import { describeTimelock } from '../../shared/coins/vault-templates.ts';
import type { OpenedRequest } from '../../shared/files/signing-request.ts';
import { CoordinatorError } from '../core/errors.ts';
import { paymentVaultPath } from '../core/payments/vault-inputs.ts';
import type { PaymentRow, WalletRow } from '../core/store/store.ts';
import { storedVaultPolicy } from '../core/vaults/vaults.ts';
import { walletParams, type CoreDeps } from '../core/wallets/wallets.ts';
import type { SigningPathView } from './contract.ts';

/** A wallet as far as who signs goes: M, its keys' holders in key order, its vault policy (null: M of N). */
export interface Signers {
  m: number;
  names: readonly string[];
  vault: VaultPolicy | null;
}

/**
 * The path a payment is signed on: a vault's path opening after `blocks` (undefined or 0: its main
 * path), or M of the N co-signers. Its words name the path and its keys, and when it opens.
 */
export function signingPath(params: ChainParams, wallet: Signers, blocks: number | undefined): SigningPathView {
  const { m, names, vault } = wallet;
  if (vault === null) return { threshold: m, keys: [...names], blocks: 0, recovery: 0, name: 'co-signers', words: `${m} of ${names.length} co-signers (${names.join(', ')})` };
  const paths = namedVaultPaths(vault, names);
  const recovery = paths.findIndex((p) => p.blocks === (blocks ?? 0));
  const path = paths[recovery];
  if (!path) throw new CoordinatorError('internal', `the vault has no path that opens after ${plural(blocks ?? 0, 'block')}`);
  const name = recovery === 0 ? 'main path' : paths.length > 2 ? `recovery path ${recovery}` : 'recovery path';
  const who = `${path.threshold} of ${path.keys.length} (${path.keys.join(', ')})`;
  return {
    threshold: path.threshold,
    keys: path.keys,
    blocks: path.blocks,
    recovery,
    name,
    words: recovery === 0 ? `${name}: ${who}` : `${name}: ${who}, open ${describeTimelock(params, path.blocks)} after a coin's block`,
  };
}

/** "0 of 1 signature", "2 of 2 signatures": signatures gathered of those the path needs. */
export const signatureCount = (signed: number, path: Pick<SigningPathView, 'threshold'>): string => `${signed} of ${plural(path.threshold, 'signature')}`;

/** A stored wallet's signers. */
export function walletSigners(deps: Pick<CoreDeps, 'store'>, w: WalletRow): Signers {
  return { m: w.m, names: deps.store.cosigners(w.id).map((c) => c.name), vault: w.vaultTemplate ? storedVaultPolicy(deps, w) : null };
}

/** The path a stored payment is signed on (a vault's read back from its transaction). */
export function paymentSigningPath(deps: Pick<CoreDeps, 'store'>, w: WalletRow, p: PaymentRow): SigningPathView {
  return signingPath(walletParams(w), walletSigners(deps, w), paymentVaultPath(deps, w, p));
}

/** The path a signing request asks signatures for, from the file alone (co-signer mode). */
export function requestSigningPath({ request, params }: OpenedRequest): SigningPathView {
  const w = request.wallet;
  const vault = w.vault_template === undefined ? null : { template: w.vault_template, keys: w.cosigners.map((c) => ({ xpub: c.xpub, fingerprint: c.fingerprint, derivationPath: c.derivation_path })) };
  return signingPath(params, { m: w.m, names: w.cosigners.map((c) => c.name), vault }, request.vault_path);
}
