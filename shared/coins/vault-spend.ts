// What the desk needs to spend a vault's coin on a chosen path (issue 27), pure: the miniscript of
// one vault address with its concrete keys (what the service's multi_sig/create extension takes,
// docs/api-decisions.md section 12), the path as the service numbers it with the size of its largest
// witness (the desk's own vsize estimate pins the fee), and when a path opens for a coin.
import type { ChainParams } from './coin-table.ts';
import { plural } from '../api/words.ts';
import { bytesToHex } from './bytes.ts';
import { CoinError } from './errors.ts';
import { compileWshMiniscript, type MiniscriptPath, miniscriptPaths } from './miniscript-spend.ts';
import { checkVault, vaultAddress, type VaultAddress, type VaultPolicy } from './vault-policy.ts';
import { describeTimelock } from './vault-templates.ts';

/** One vault address as the service's extension takes it, and the path chosen for it. */
export interface VaultInputSpend {
  /** wsh(<miniscript with concrete hex keys>), no checksum. */
  descriptor: string;
  witnessScript: Uint8Array;
  /** The path in the service's numbering (no timelock first, then ascending older). */
  path: MiniscriptPath;
  address: VaultAddress;
  /** Each key of the path (in path.keys order): which policy key derives it, and where below its xpub ("2/7"). */
  pathKeys: readonly VaultPathKey[];
}

/** One key of a path at one address: the signer is the holder of policy key `key`. */
export interface VaultPathKey {
  publicKey: Uint8Array;
  key: number;
  path: string;
}

/**
 * The miniscript of the vault's address at (change, index) with each key expression replaced by its
 * derived public key, and the spending path that opens after `blocks` (0: the primary path). The
 * witness script compiled from it must equal the address's own, or it is refused (internal error).
 */
export function vaultInputSpend(params: ChainParams, policy: VaultPolicy, change: boolean, index: number, blocks: number): VaultInputSpend {
  const checked = checkVault(policy);
  const address = vaultAddress(params, policy, change, index);
  const miniscript = checked.compiled.analysis.miniscript.replace(/\b[A-Za-z_][A-Za-z0-9_]*\b/g, (name) => {
    const d = address.derived[name];
    return d === undefined ? name : bytesToHex(d.publicKey);
  });
  const compiled = compileWshMiniscript(miniscript);
  if (bytesToHex(compiled.witnessScript) !== bytesToHex(address.witnessScript)) {
    throw new CoinError(`internal error: the concrete miniscript of ${address.address} does not compile to its witness script`);
  }
  const paths = miniscriptPaths(compiled);
  const path = paths.find((p) => (p.older ?? 0) === blocks);
  if (!path) {
    throw new CoinError(`the vault has no path that opens after ${plural(blocks, 'block')}; its paths open after ${paths.map((p) => plural(p.older ?? 0, 'block')).join(', ')}`);
  }
  const derived = Object.values(address.derived);
  const pathKeys = path.keys.map((hex) => {
    const d = derived.find((x) => bytesToHex(x.publicKey) === hex);
    if (!d) throw new CoinError(`internal error: the path's key ${hex} is not one of ${address.address}'s`);
    return { publicKey: d.publicKey, key: d.key, path: d.path };
  });
  return { descriptor: `wsh(${miniscript})`, witnessScript: compiled.witnessScript, path, address, pathKeys };
}

/**
 * The first block that can hold a spend of a coin confirmed at `confirmedAt` on a path of `blocks`
 * relative timelock (BIP68: the coin must be `blocks` deep in the spending block).
 */
export const pathOpensAt = (confirmedAt: number, blocks: number): number => confirmedAt + blocks;

/**
 * Why a coin cannot yet be spent on a path, in words naming the block and an estimated date, or
 * null when a spend would enter the mempool now (the tip is at least the opening block - 1).
 * `confirmedAt` null: the coin is unconfirmed.
 */
export function pathNotOpen(params: ChainParams, coin: string, confirmedAt: number | null, blocks: number, tip: number, now: Date): string | null {
  if (blocks === 0) return null;
  if (confirmedAt === null) return `${coin} is not confirmed yet; this path opens ${describeTimelock(params, blocks)} after the block that confirms it`;
  const opens = pathOpensAt(confirmedAt, blocks);
  const toGo = opens - 1 - tip;
  if (toGo <= 0) return null;
  const when = new Date(now.getTime() + toGo * params.blockSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
  return `${coin} confirmed in block ${confirmedAt}, so this path opens at block ${opens}; the chain is at block ${tip}, ${plural(toGo, 'block')} to go (about ${when} UTC)`;
}

/**
 * The largest witness (bytes) of a vault input spent on the path opening after `blocks`, 73-byte
 * signatures: the desk's own size estimate of such an input (every address of a vault has the same
 * script length: 33-byte keys), which the service's stated size must equal.
 */
export const vaultWitnessSize = (params: ChainParams, policy: VaultPolicy, blocks: number): number => vaultInputSpend(params, policy, false, 0, blocks).path.largestWitness;
