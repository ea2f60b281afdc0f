// A wallet's addresses in its own script type and key order: every place the desk derives one of
// its wallets' addresses goes through here, so a segwit wallet never gets a P2SH address by mistake.
import type { ChainParams } from '../../../shared/coins/index.ts';
import { deriveAddress } from '../../../shared/coins/multisig-address.ts';
import { vaultAddress, type VaultKey } from '../../../shared/coins/vault-policy.ts';
import { formatMultisigDescriptor } from '../../../shared/files/descriptor.ts';
import { formatVaultDescriptor } from '../../../shared/files/miniscript-descriptor.ts';
import type { MultisigScriptOptions, MultisigScriptType } from '../../../shared/coins/multisig-script.ts';

export interface WalletScript {
  m: number;
  scriptType: MultisigScriptType;
  sortKeys: boolean;
  /** A miniscript vault's BIP388 template over the xpubs in order (@0 is the first); absent or null: M of N. */
  vaultTemplate?: string | null;
}

/** One derived address of a wallet, shaped as the store keeps it. */
export interface WalletAddress {
  change: boolean;
  index: number;
  address: string;
  /** Relative to each xpub: 0/i or 1/i. */
  path: string;
  /** In co-signer order (the order of the xpubs); a vault's: one per key expression, in template order. */
  publicKeys: Uint8Array[];
  /** The multisig script: the redeem script (p2sh) or the witness script (segwit types). */
  redeemScript: Uint8Array;
  /** The keys in script order (BIP67 when the wallet sorts). */
  scriptKeys: readonly Uint8Array[];
  scriptPubKey: Uint8Array;
  scriptType: MultisigScriptType;
}

export const scriptOptions = (w: Pick<WalletScript, 'scriptType' | 'sortKeys'>): Required<MultisigScriptOptions> => ({ scriptType: w.scriptType, sortKeys: w.sortKeys });

/** The wallet's address at (change, index). Pure. */
export function walletAddress(params: ChainParams, w: WalletScript, xpubs: readonly string[], change: boolean, index: number): WalletAddress {
  if (w.vaultTemplate) {
    // A vault: its witness script from the template; origins do not change addresses.
    const v = vaultAddress(params, { template: w.vaultTemplate, keys: xpubs.map((xpub) => ({ xpub, fingerprint: '00000000', derivationPath: 'm' })) }, change, index);
    const uses = Object.values(v.derived);
    return {
      change,
      index,
      address: v.address,
      path: `${change ? 1 : 0}/${index}`,
      publicKeys: uses.map((u) => u.publicKey),
      redeemScript: v.witnessScript,
      scriptKeys: uses.map((u) => u.publicKey),
      scriptPubKey: v.scriptPubKey,
      scriptType: 'p2wsh',
    };
  }
  const d = deriveAddress(params, w.m, xpubs, change, index, scriptOptions(w));
  return {
    change,
    index,
    address: d.address,
    path: d.path,
    publicKeys: d.publicKeys,
    redeemScript: d.multisigScript,
    scriptKeys: d.keys,
    scriptPubKey: d.scriptPubKey,
    scriptType: d.scriptType,
  };
}

/**
 * The wallet's descriptor for receive and change (<0;1>/*), with its checksum: a vault's own
 * miniscript, else its multisig. The one place the desk writes a wallet's descriptor (the watch
 * registration, BIP329 origins, the set-up export): a multisig reading of a vault's keys names other
 * scripts. `keys` in the wallet's key order (a vault's @0 first). Pure.
 */
export function walletDescriptor(w: WalletScript, keys: readonly VaultKey[]): string {
  const origins = keys.map((k) => ({ xpub: k.xpub, fingerprint: k.fingerprint, derivationPath: k.derivationPath }));
  if (w.vaultTemplate) return formatVaultDescriptor({ template: w.vaultTemplate, keys: origins });
  return formatMultisigDescriptor(w.m, origins, '/<0;1>/*', true, scriptOptions(w));
}
