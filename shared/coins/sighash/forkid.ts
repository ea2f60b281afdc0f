/**
 * The fork-id signature hash of Bitcoin Cash and Bitcoin Gold: BIP143's digest (amount of the
 * spent output included) applied to non-segwit inputs, with the fork id in bits 8..31 of the
 * hash type it commits to. The digest itself is bip143.ts: segwit inputs hash the same way.
 */
import { bip143Sighash } from './bip143.ts';

export const SIGHASH_FORKID = 0x40;
/** Bitcoin Cash's 2023 flag committing to every spent output; never set by this service. */
export const SIGHASH_UTXOS = 0x20;

/** bip143Sighash under its fork-id name: `hashTypeInDigest` carries the fork id (sighashTypeInDigest). */
export const forkIdSighash: typeof bip143Sighash = bip143Sighash;
