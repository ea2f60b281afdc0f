import { describe, expect, test } from 'vitest';
import { base58checkEncode, tryDecodeBase58Check } from './base58.ts';
import { bytesToHex, concatBytes, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import bip32 from './fixtures/bip32.json' with { type: 'json' };
import { isCompressedPublicKey, looksLikePrivateKey, parsePublicKeyHex } from './keys.ts';

const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const G_UNCOMPRESSED =
  '0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const KEY_ONE = `${'00'.repeat(31)}01`;
// The private key 1 in WIF, compressed and uncompressed (well-known values, checked below).
const WIF_COMPRESSED = 'KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn';
const WIF_UNCOMPRESSED = '5HpHagT65TZzG1PH3CSu63k8DbpvD8s5ip4nEB3kEsreAnchuDf';

describe('parsePublicKeyHex', () => {
  test('accepts a compressed point on the curve', () => {
    expect(bytesToHex(parsePublicKeyHex(G, 'from'))).toBe(G);
    expect(isCompressedPublicKey(hexToBytes(G))).toBe(true);
  });

  test('refuses an uncompressed key by name', () => {
    expect(() => parsePublicKeyHex(G_UNCOMPRESSED, 'from')).toThrow(
      'field "from" is an uncompressed public key (65 bytes); only compressed keys (33 bytes, starting with 02 or 03) are accepted',
    );
  });

  test('refuses wrong lengths, prefixes and points off the curve', () => {
    expect(() => parsePublicKeyHex(G.slice(0, 64), 'from')).toThrow(/32-byte private key/); // 64 hex = a secret
    expect(() => parsePublicKeyHex(`${G}00`, 'from')).toThrow(/33 bytes \(66 hex digits\), got 34 bytes/);
    expect(() => parsePublicKeyHex(`05${G.slice(2)}`, 'from')).toThrow(/must start with 02 or 03/);
    expect(() => parsePublicKeyHex(`02${'00'.repeat(31)}07`, 'from')).toThrow(/not a point on the secp256k1 curve/);
    expect(() => parsePublicKeyHex('xyz', 'from')).toThrow(/field "from" is not valid hex/);
  });

  test('errors carry the field', () => {
    try {
      parsePublicKeyHex(G_UNCOMPRESSED, 'public_keys');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CoinError);
      expect((e as CoinError).field).toBe('public_keys');
    }
  });
});

describe('private keys where a public key belongs', () => {
  test('the WIF constants are what they claim to be', () => {
    const c = tryDecodeBase58Check(WIF_COMPRESSED);
    const u = tryDecodeBase58Check(WIF_UNCOMPRESSED);
    expect(c.ok && bytesToHex(c.data)).toBe(`80${KEY_ONE}01`);
    expect(u.ok && bytesToHex(u.data)).toBe(`80${KEY_ONE}`);
  });

  test.each([
    ['bitcoin WIF, compressed', WIF_COMPRESSED, 'a private key (WIF)'],
    ['bitcoin WIF, uncompressed', WIF_UNCOMPRESSED, 'a private key (WIF)'],
    ['testnet WIF', base58checkEncode(Uint8Array.of(0xef), concatBytes(hexToBytes(KEY_ONE), Uint8Array.of(1))), 'a private key (WIF)'],
    ['litecoin WIF', base58checkEncode(Uint8Array.of(0xb0), concatBytes(hexToBytes(KEY_ONE), Uint8Array.of(1))), 'a private key (WIF)'],
    ['dash WIF', base58checkEncode(Uint8Array.of(0xcc), hexToBytes(KEY_ONE)), 'a private key (WIF)'],
    ['hex secret', KEY_ONE, 'a 32-byte private key in hex (64 hex digits)'],
    ['0x hex secret', `0x${KEY_ONE}`, 'a 32-byte private key in hex (64 hex digits)'],
    ['xprv', bip32.valid[0]?.chains[0]?.xprv ?? '', 'an extended private key (xprv...)'],
    ['seed words', 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', 'a recovery phrase (seed words)'],
  ])('%s is recognised', (_name, text, description) => {
    expect(looksLikePrivateKey(text)).toBe(description);
    expect(() => parsePublicKeyHex(text, 'from')).toThrow(
      `field "from" holds ${description}; the service never accepts private keys`,
    );
  });

  test('the refusal never repeats the secret', () => {
    try {
      parsePublicKeyHex(WIF_COMPRESSED, 'from');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain(WIF_COMPRESSED);
    }
  });

  test('public things are not mistaken for private keys', () => {
    expect(looksLikePrivateKey(G)).toBeNull();
    expect(looksLikePrivateKey('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH')).toBeNull();
    expect(looksLikePrivateKey(bip32.valid[0]?.chains[0]?.xpub ?? '')).toBeNull();
    expect(looksLikePrivateKey('hello world')).toBeNull();
  });
});
