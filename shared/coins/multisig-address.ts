// A wallet's multisig address at (change, index), derived from its co-signers' xpubs: the desk,
// its file checks and co-signers offline all derive it this one way.
import { scriptToAddress } from './address.ts';
import { describeChain } from './coin-table.ts';
import type { ChainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { multisigScripts } from './multisig-script.ts';
import type { MultisigScriptOptions, MultisigScripts } from './multisig-script.ts';
import { derivePublicKey } from './xpub.ts';

interface DerivedCommon {
  change: boolean;
  index: number;
  address: string;
  /** In co-signer order (the order of the xpubs), whatever the script order. */
  publicKeys: Uint8Array[];
  /** Relative to each xpub: 0/i (receive) or 1/i (change). */
  path: string;
}

/** The P2SH address deriveAddress gives without options (its shape as before the script types). */
export interface DerivedAddress extends DerivedCommon {
  /** The multisig script, keys in co-signer order. */
  redeemScript: Uint8Array;
}

/** A derived multisig address of any script type (deriveAddress with options); `keys` in script order. */
export interface DerivedMultisigAddress extends DerivedCommon, MultisigScripts {}

export const addressPath = (change: boolean, index: number): string => `${change ? 1 : 0}/${index}`;

/**
 * The multisig address at (change, index). Without options: P2SH, keys in co-signer order, never
 * sorted (docs/api-decisions.md), as always. With options: the script type asked for and, only
 * when `sortKeys` says so, BIP67 key order. Pure.
 */
export function deriveAddress(params: ChainParams, m: number, xpubs: readonly string[], change: boolean, index: number): DerivedAddress;
export function deriveAddress(params: ChainParams, m: number, xpubs: readonly string[], change: boolean, index: number, options: MultisigScriptOptions): DerivedMultisigAddress;
export function deriveAddress(
  params: ChainParams,
  m: number,
  xpubs: readonly string[],
  change: boolean,
  index: number,
  options?: MultisigScriptOptions,
): DerivedAddress | DerivedMultisigAddress {
  const path = addressPath(change, index);
  const publicKeys = xpubs.map((x) => derivePublicKey(params, x, path));
  const scripts = multisigScripts(params, m, publicKeys, options ?? {});
  const address = scriptToAddress(params, scripts.scriptPubKey);
  // Segwit types are refused where the coin has no segwit, and every segwit network has an hrp.
  if (address === null) throw new CoinError(`internal error: ${describeChain(params)} has no ${scripts.scriptType} address form`);
  if (options === undefined) return { change, index, path, publicKeys, redeemScript: scripts.multisigScript, address };
  return { ...scripts, change, index, path, publicKeys, address };
}
