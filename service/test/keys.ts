// Deterministic co-signer keys for tests: the service never sees these private keys, the tests
// sign the returned hashes with them as co-signers would.
import * as ecc from 'tiny-secp256k1';
import { sha256 } from '../../shared/coins/hash.ts';
import { bytesToHex } from '../../shared/coins/bytes.ts';
import { signDer } from '../../shared/coins/signature.ts';

export interface TestKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  publicKeyHex: string;
  sign(hashHex: string): string;
}

export function testKey(seed: string): TestKey {
  const privateKey = sha256(new TextEncoder().encode(`countersign test key ${seed}`));
  const publicKey = ecc.pointFromScalar(privateKey, true);
  if (!publicKey) throw new Error('bad test key');
  return {
    privateKey,
    publicKey,
    publicKeyHex: bytesToHex(publicKey),
    sign: (hashHex: string) => bytesToHex(signDer(Uint8Array.from(Buffer.from(hashHex, 'hex')), privateKey)),
  };
}
