// A wallet's P2SH multisig address at (change, index), derived from its co-signers' xpubs: the desk,
// its file checks and co-signers offline all derive it this one way.
import { p2shAddressOfRedeemScript } from './address.ts';
import type { ChainParams } from './coin-table.ts';
import { multisigRedeemScript } from './script.ts';
import { derivePublicKey } from './xpub.ts';

export interface DerivedAddress {
  change: boolean;
  index: number;
  address: string;
  redeemScript: Uint8Array;
  /** In co-signer order. */
  publicKeys: Uint8Array[];
  /** Relative to each xpub: 0/i (receive) or 1/i (change). */
  path: string;
}

export const addressPath = (change: boolean, index: number): string => `${change ? 1 : 0}/${index}`;

/** The P2SH address at (change, index): keys in co-signer order, never sorted (docs/api-decisions.md). Pure. */
export function deriveAddress(params: ChainParams, m: number, xpubs: readonly string[], change: boolean, index: number): DerivedAddress {
  const path = addressPath(change, index);
  const publicKeys = xpubs.map((x) => derivePublicKey(params, x, path));
  const redeemScript = multisigRedeemScript(m, publicKeys);
  return { change, index, path, publicKeys, redeemScript, address: p2shAddressOfRedeemScript(params, redeemScript) };
}
