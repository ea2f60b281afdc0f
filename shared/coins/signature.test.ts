import { describe, expect, test } from 'vitest';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { sha256 } from './hash.ts';
import {
  decodeDerSignature,
  encodeDerSignature,
  isLowS,
  parseSignatureDer,
  signDer,
  splitHashType,
  verifyDerSignature,
  withHashType,
} from './signature.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const PRIV = hexToBytes(`${'00'.repeat(31)}07`);
const PUB = ecc.pointFromScalar(PRIV, true) as Uint8Array;
const HASH = sha256(new TextEncoder().encode('countersign'));

function highS(der: Uint8Array): Uint8Array {
  const { r, s } = decodeDerSignature(der);
  const flipped = N - BigInt(`0x${bytesToHex(s)}`);
  const s2 = hexToBytes(flipped.toString(16).padStart(64, '0'));
  return encodeDerSignature(Uint8Array.of(...r, ...s2));
}

describe('sign and verify', () => {
  test('signDer makes a low-S strict DER signature that verifies', () => {
    const der = signDer(HASH, PRIV);
    expect(der[0]).toBe(0x30);
    expect(isLowS(decodeDerSignature(der).s)).toBe(true);
    expect(verifyDerSignature(HASH, PUB, der)).toBe(true);
    expect(bytesToHex(signDer(HASH, PRIV))).toBe(bytesToHex(der)); // deterministic (RFC 6979)
  });

  test('a signature over another hash or by another key does not verify', () => {
    const der = signDer(HASH, PRIV);
    expect(verifyDerSignature(sha256(HASH), PUB, der)).toBe(false);
    const other = ecc.pointFromScalar(hexToBytes(`${'00'.repeat(31)}09`), true) as Uint8Array;
    expect(verifyDerSignature(HASH, other, der)).toBe(false);
  });

  test('high S is refused with a message', () => {
    const high = highS(signDer(HASH, PRIV));
    expect(isLowS(decodeDerSignature(high).s)).toBe(false);
    expect(() => parseSignatureDer(high)).toThrow(/high S value/);
    expect(() => verifyDerSignature(HASH, PUB, high)).toThrow(/high S value/);
  });

  test('bad inputs', () => {
    expect(() => signDer(HASH, new Uint8Array(32))).toThrow(/not a valid private key/);
    expect(() => signDer(HASH.subarray(1), PRIV)).toThrow(CoinError);
    expect(() => verifyDerSignature(HASH, PUB.subarray(1), signDer(HASH, PRIV))).toThrow(/compressed public key/);
  });
});

describe('strict DER (BIP66)', () => {
  const good = signDer(HASH, PRIV);

  test('round-trips through compact form', () => {
    expect(bytesToHex(encodeDerSignature(parseSignatureDer(good)))).toBe(bytesToHex(good));
  });

  test('encodes small and high-bit integers minimally', () => {
    const compact = new Uint8Array(64);
    compact[31] = 1; // r = 1
    compact[32] = 0x80; // s = 0x80 00..00: needs a 0x00 pad to stay positive
    expect(bytesToHex(encodeDerSignature(compact))).toBe(`3026020101022100${'80'}${'00'.repeat(31)}`);
  });

  const mutate = (f: (b: Uint8Array) => void): Uint8Array => {
    const b = Uint8Array.from(good);
    f(b);
    return b;
  };
  const lenR = good[3] ?? 0;

  test.each([
    ['too short', '30060201010201', /too short/],
    ['too long', '30'.repeat(73), /too long/],
    ['hash type byte left on', `${bytesToHex(good)}01`, /sequence length/],
    ['not a sequence', bytesToHex(mutate((b) => (b[0] = 0x31))), /0x30/],
    ['wrong sequence length', bytesToHex(mutate((b) => (b[1] = (b[1] ?? 0) - 1))), /sequence length/],
    ['R not an integer', bytesToHex(mutate((b) => (b[2] = 0x03))), /R is not a DER integer/],
    ['S not an integer', bytesToHex(mutate((b) => (b[4 + lenR] = 0x03))), /S is not a DER integer/],
    ['R length past the end', '3006024002010101', /length of R runs past the end/],
    ['R and S lengths do not add up', '3006020101020201', /do not add up/],
    ['R negative', '3006020181020101', /R is negative/],
    ['R with an unnecessary leading zero', '300702020001020101', /R has an unnecessary leading zero/],
    ['S with an unnecessary leading zero', '300702010102020001', /S has an unnecessary leading zero/],
    ['S empty', '3006020201010200', /S is empty/],
    ['R zero', '3006020100020101', /R is out of range/],
    ['S zero', '3006020101020100', /S is out of range/],
    ['R equal to the curve order', `302602210${'0'}${N.toString(16)}020101`, /R is out of range/],
  ])('%s', (_name, hex, message) => {
    expect(() => decodeDerSignature(hexToBytes(hex))).toThrow(message);
  });
});

describe('hash type byte', () => {
  test('withHashType appends, splitHashType splits', () => {
    const der = signDer(HASH, PRIV);
    const sig = withHashType(der, 0x01);
    expect(sig[sig.length - 1]).toBe(0x01);
    expect(splitHashType(sig)).toEqual({ der, hashType: 0x01 });
    expect(withHashType(der, 0x41)[der.length]).toBe(0x41);
    expect(() => withHashType(der, 256)).toThrow(CoinError);
    expect(() => splitHashType(Uint8Array.of(1))).toThrow(CoinError);
  });
});
