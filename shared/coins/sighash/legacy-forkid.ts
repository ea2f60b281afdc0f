/**
 * Bitcoin Private's signature hash: the legacy digest, but the hash type it commits to is the
 * 32-bit (forkId << 8) | type, 0x00002A41 for SIGHASH_ALL | SIGHASH_FORKID with fork id 42
 * (BitcoinPrivate's SignatureHash ORs FORKID_BTCP << 8 into nHashType before serializing it).
 * Only the 4 bytes at the end of the preimage differ from Bitcoin's.
 */
import { CoinError } from '../errors.ts';
import type { BitcoinTx } from '../tx.ts';
import { SIGHASH_SINGLE, legacySighash } from './legacy.ts';

export function legacyForkIdSighash(tx: BitcoinTx, inputIndex: number, scriptCode: Uint8Array, hashType: number, forkId: number): Uint8Array {
  if (!Number.isInteger(hashType) || hashType < 0 || hashType > 0xff) throw new CoinError(`hash type must be a single byte, got ${hashType}`);
  if (!Number.isInteger(forkId) || forkId < 0 || forkId > 0xffffff) throw new CoinError(`fork id must be a 24-bit integer, got ${forkId}`);
  // Zcash-derived nodes (BitcoinPrivate among them) refuse SIGHASH_SINGLE without a matching
  // output instead of signing Bitcoin's "1" digest.
  if ((hashType & 0x1f) === SIGHASH_SINGLE && inputIndex >= tx.outputs.length) {
    throw new CoinError(`input ${inputIndex}: SIGHASH_SINGLE needs an output at the same index`);
  }
  return legacySighash(tx, inputIndex, scriptCode, ((forkId << 8) | hashType) >>> 0);
}
