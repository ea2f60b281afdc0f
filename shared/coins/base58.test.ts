import { describe, expect, test } from 'vitest';
import { base58checkDecode, base58checkEncode, MAX_BASE58CHECK_LENGTH, tryDecodeBase58Check } from './base58.ts';
import { decodeAddress } from './address.ts';
import { allChainParams, chainParams } from './coin-table.ts';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';

const HASH = hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6'); // hash160 of the generator point G

describe('base58check', () => {
  test('1-byte version: the bitcoin address of G', () => {
    expect(base58checkEncode(Uint8Array.of(0x00), HASH)).toBe('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
    const { version, payload } = base58checkDecode('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', 1);
    expect(bytesToHex(version)).toBe('00');
    expect(payload).toEqual(HASH);
  });

  test('2-byte version: zcash t1 / t3 prefixes', () => {
    const t1 = base58checkEncode(hexToBytes('1cb8'), HASH);
    const t3 = base58checkEncode(hexToBytes('1cbd'), HASH);
    expect(t1.startsWith('t1')).toBe(true);
    expect(t3.startsWith('t3')).toBe(true);
    const back = base58checkDecode(t1, 2);
    expect(bytesToHex(back.version)).toBe('1cb8');
    expect(back.payload).toEqual(HASH);
  });

  test('versions other than 1 or 2 bytes are refused', () => {
    expect(() => base58checkEncode(new Uint8Array(0), HASH)).toThrow(CoinError);
    expect(() => base58checkEncode(new Uint8Array(3), HASH)).toThrow(CoinError);
  });

  test('failures are reported, not thrown, by tryDecodeBase58Check', () => {
    expect(tryDecodeBase58Check('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMJ')).toEqual({ ok: false, reason: expect.stringMatching(/bad checksum/) });
    expect(tryDecodeBase58Check('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAM0')).toEqual({ ok: false, reason: 'not base58: "0" at position 34 is not allowed' });
    expect(tryDecodeBase58Check('1Bg GZ')).toEqual({ ok: false, reason: 'not base58: whitespace at position 4 is not allowed' });
    expect(tryDecodeBase58Check('')).toEqual({ ok: false, reason: 'it is empty' });
    expect(tryDecodeBase58Check('11')).toEqual({ ok: false, reason: 'too short' });
  });

  test('base58checkDecode throws a CoinError', () => {
    expect(() => base58checkDecode('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMJ', 1)).toThrow(/bad checksum/);
  });

  test('over-long text is refused with our own reason, before @scure/base (which throws its own Error past 4,096 characters)', () => {
    for (const length of [MAX_BASE58CHECK_LENGTH + 1, 4097, 100_000]) {
      expect(tryDecodeBase58Check('2'.repeat(length))).toEqual({ ok: false, reason: `too long (${length} characters; base58check text here is at most ${MAX_BASE58CHECK_LENGTH})` });
      expect(() => base58checkDecode('2'.repeat(length), 1)).toThrow(CoinError);
    }
    // An extended key, the longest base58check read anywhere, is well within the bound.
    const xpub = 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';
    expect(tryDecodeBase58Check(xpub)).toMatchObject({ ok: true });
  });

  test('an over-long address in a request is a CoinError naming the field (a 400, not a 500)', () => {
    expect(() => decodeAddress(chainParams('litecoin', 'mainnet'), 'L'.repeat(5000), 'address')).toThrow(/^address: .*too long \(5000 characters/s);
    for (const params of allChainParams()) {
      for (const text of ['3'.repeat(5000), `${params.bech32Hrp ?? 'x'}1${'q'.repeat(5000)}`, `bitcoincash:${'q'.repeat(5000)}`]) {
        expect(() => decodeAddress(params, text, 'address'), `${params.coin} ${params.network}`).toThrow(expect.objectContaining({ name: 'CoinError', field: 'address' }));
      }
    }
  });
});
