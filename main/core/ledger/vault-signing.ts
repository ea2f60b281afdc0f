// A vault's payment on a Ledger (issue 27): which of the device's co-signers sign on the path the
// payment is spent on (a device holding none of that path's keys is refused in words before it is
// asked anything more), and which keys its PSBT names: each input the chosen path's keys only, so
// the Bitcoin app (which signs for a key of its policy only where an input's derivations name it)
// signs with none of another path's; each change output every key of the vault's address there,
// so the device recognises it as the vault's own.
import { hexToBytes, type ChainParams } from '../../../shared/coins/index.ts';
import { vaultAddress, type VaultPolicy } from '../../../shared/coins/vault-policy.ts';
import { pathWords, vaultKeyOrigin, type VaultPaymentInput } from '../payments/vault-inputs.ts';
import type { CosignerRow, WalletRow } from '../store/store.ts';
import type { CoreDeps } from '../wallets/wallets.ts';
import { LedgerError } from './errors.ts';
import { UNKNOWN_FINGERPRINT } from './policy.ts';
import type { PsbtKeyOrigin, PsbtOrigins } from './psbt.ts';

/** The device's co-signer positions whose keys sign on the payment's path; none: refused in words. */
export function positionsOnPath(deps: Pick<CoreDeps, 'store'>, w: WalletRow, inputs: readonly VaultPaymentInput[], positions: readonly number[], fingerprint: string): number[] {
  const onPath = positions.filter((p) => inputs.every((v) => v.spend.pathKeys.some((k) => k.key === p)));
  if (onPath.length > 0) return onPath;
  const names = deps.store.cosigners(w.id);
  const held = positions.map((p) => names[p]?.name ?? `key @${p}`).join(' and ');
  throw new LedgerError(
    'ledger_wrong_key',
    `this Ledger (master key ${fingerprint}) holds ${held}'s key, which does not sign on the path this payment is spent on, ${pathWords(deps, w, inputs[0]!)}: connect the Ledger of one of those keys' holders, or propose the payment on a path ${held} signs`,
  );
}

/** The key origins the vault payment's PSBT names (those with a known fingerprint and path, as for M-of-N wallets). */
export function vaultOrigins(params: ChainParams, policy: VaultPolicy, cosigners: readonly CosignerRow[], inputs: readonly VaultPaymentInput[]): PsbtOrigins {
  const toDevice = (k: { publicKey: Uint8Array; key: number; path: string }): PsbtKeyOrigin[] => {
    const c = cosigners[k.key];
    if (!c || c.fingerprint === UNKNOWN_FINGERPRINT || c.derivationPath === 'm') return [];
    const d = vaultKeyOrigin(cosigners, k);
    return [{ pubkey: Buffer.from(d.publicKey), fingerprint: Buffer.from(hexToBytes(d.origin.fingerprint)), path: [...d.origin.path] }];
  };
  return {
    input: (input) => (inputs.find((v) => v.inputIndex === input.index)?.spend.pathKeys ?? []).flatMap(toDevice),
    change: (a) => Object.values(vaultAddress(params, policy, a.change, a.index).derived).flatMap(toDevice),
  };
}
