// The inputs of a stored vault payment (issue 27) on the path it was proposed on: the path is read
// back from the unsigned transaction itself (each vault input carries its miniscript and path index
// until signed, docs/api-decisions.md section 12), so no column repeats it. For each input: how
// many signatures the path needs, and each key of the path with the co-signer who holds it.
import { readUnsignedMiniscriptInput } from '../../../shared/coins/assemble-miniscript.ts';
import { plural } from '../../../shared/api/words.ts';
import { bytesToHex, decodeTx, equalBytes } from '../../../shared/coins/index.ts';
import type { MiniscriptPath } from '../../../shared/coins/miniscript-spend.ts';
import { vaultInputSpend, type VaultInputSpend } from '../../../shared/coins/vault-spend.ts';
import { CoordinatorError } from '../errors.ts';
import { parseDerivationPath } from '../../../shared/files/derivation-path.ts';
import type { KeyDerivation } from '../../../shared/files/psbt-multisig.ts';
import type { CosignerRow, PaymentRow, WalletRow } from '../store/store.ts';
import { walletParams, type CoreDeps } from '../wallets/wallets.ts';
import { storedVaultPolicy } from '../vaults/vaults.ts';

export interface VaultPaymentInput {
  inputIndex: number;
  /** The path as the service numbers it, with its keys (hex) and the fewest signatures it needs. */
  path: MiniscriptPath;
  spend: VaultInputSpend;
}

/** "the path of 1 of dave, erin after 144 blocks" / "the primary path (2 of alice, bob, carol)". */
export function pathWords(deps: Pick<CoreDeps, 'store'>, w: WalletRow, input: VaultPaymentInput): string {
  const names = deps.store.cosigners(w.id).map((c) => c.name);
  const keys = input.spend.pathKeys.map((k) => names[k.key] ?? `key @${k.key}`).join(', ');
  return input.path.older === null ? `the primary path (${input.path.signatures} of ${keys})` : `the path of ${input.path.signatures} of ${keys} after ${plural(input.path.older, 'block')}`;
}

/** A vault key as a PSBT names it (exported files and the Ledger's): the holder's fingerprint, its account path, then the key's branch and index. */
export function vaultKeyOrigin(cosigners: readonly CosignerRow[], k: { publicKey: Uint8Array; key: number; path: string }): KeyDerivation {
  const c = cosigners[k.key]!;
  return { publicKey: k.publicKey, origin: { fingerprint: c.fingerprint, path: [...parseDerivationPath(c.derivationPath), ...k.path.split('/').map(Number)] } };
}

/** Each input of a vault payment on its path; an M-of-N wallet's payment: null. */
export function vaultPaymentInputs(deps: Pick<CoreDeps, 'store'>, w: WalletRow, p: PaymentRow): VaultPaymentInput[] | null {
  if (!w.vaultTemplate) return null;
  const params = walletParams(w);
  const policy = storedVaultPolicy(deps, w);
  const tx = decodeTx(p.unsignedTx, params);
  const seen = new Map();
  return deps.store.paymentInputs(p.id).map((row) => {
    const read = readUnsignedMiniscriptInput(tx.inputs[row.inputIndex]!, row.inputIndex, seen);
    if (!read) throw new CoordinatorError('internal', `payment ${p.id}'s input ${row.inputIndex} is not an unsigned vault input`);
    const path = read.paths[read.path]!;
    return { inputIndex: row.inputIndex, path, spend: vaultInputSpend(params, policy, row.change, row.index, path.older ?? 0) };
  });
}

/**
 * Why a signature by `publicKey` on input `inputIndex` of a vault payment is not taken, in words,
 * or null when its key is one of the chosen path's (and `signer`'s own, when a signer is named).
 * A key of another path of the vault is named with its holder and the path the payment is on.
 */
export function vaultKeyRefusal(deps: Pick<CoreDeps, 'store'>, w: WalletRow, inputs: readonly VaultPaymentInput[], inputIndex: number, publicKey: Uint8Array, signer?: { position: number; name: string }): string | null {
  const input = inputs.find((v) => v.inputIndex === inputIndex);
  if (!input) return null; // no such input: the hash check names it
  const names = deps.store.cosigners(w.id).map((c) => c.name);
  const hex = bytesToHex(publicKey);
  const onPath = input.spend.pathKeys.find((k) => equalBytes(k.publicKey, publicKey));
  if (onPath) return signer && onPath.key !== signer.position ? `key ${hex} of input ${inputIndex} is ${names[onPath.key] ?? `key @${onPath.key}`}'s, not ${signer.name}'s` : null;
  const other = Object.values(input.spend.address.derived).find((d) => equalBytes(d.publicKey, publicKey));
  if (!other) return null;
  return `${names[other.key] ?? `key @${other.key}`}'s key ${hex} signs another path of the vault; input ${inputIndex} is spent on ${pathWords(deps, w, input)}, so only those keys' signatures are taken`;
}

/** The path a vault payment is spent on, by the blocks after which it opens (0: primary); undefined for M of N. */
export function paymentVaultPath(deps: Pick<CoreDeps, 'store'>, w: WalletRow, p: PaymentRow): number | undefined {
  const inputs = vaultPaymentInputs(deps, w, p);
  return inputs ? (inputs[0]!.path.older ?? 0) : undefined;
}
