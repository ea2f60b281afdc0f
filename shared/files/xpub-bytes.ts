/**
 * An extended public key's fields without knowing its coin (set-up files name no coin): the
 * base58check payload split as BIP32 serializes it.
 */
import { tryDecodeBase58Check } from '../coins/index.ts';
import { FileFormatError } from './errors.ts';

export interface XpubFields {
  version: number;
  /** The 78 serialized bytes (what PSBT_GLOBAL_XPUB carries). */
  bytes: Uint8Array;
  publicKey: Uint8Array;
}

export function parseXpubLike(xpub: string): XpubFields {
  const decoded = tryDecodeBase58Check(xpub.trim());
  if (!decoded.ok || decoded.data.length !== 78) throw new FileFormatError(`"${xpub.slice(0, 12)}..." is not an extended public key`);
  const bytes = decoded.data;
  return { version: new DataView(bytes.buffer, bytes.byteOffset).getUint32(0), bytes, publicKey: bytes.slice(45, 78) };
}
