import { describe, expect, test } from 'vitest';
import { bytesToHex } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { CoinError } from './errors.ts';
import bip32 from './fixtures/bip32.json' with { type: 'json' };
import { deriveXpubChild, derivePublicKey, deriveXpubPath, encodeXpub, fingerprintHex, parseXpub, parseXpubPath } from './xpub.ts';
import { base58checkEncode, tryDecodeBase58Check } from './base58.ts';

const BTC = chainParams('bitcoin', 'mainnet');

/** The last step of a BIP32 path: its index and whether it is hardened. */
function lastStep(path: string): { index: number; hardened: boolean } {
  const step = path.split('/').pop() ?? '';
  return { index: Number.parseInt(step, 10), hardened: step.endsWith('H') };
}

describe('BIP32 test vectors 1-4 (public derivation)', () => {
  for (const vector of bip32.valid) {
    test(`vector ${vector.vector}: every xpub parses and re-encodes`, () => {
      for (const chain of vector.chains) expect(encodeXpub(parseXpub(BTC, chain.xpub))).toBe(chain.xpub);
    });

    test(`vector ${vector.vector}: every non-hardened step reproduces the listed child xpub`, () => {
      let checked = 0;
      vector.chains.forEach((chain, i) => {
        const parent = vector.chains[i - 1];
        if (parent === undefined) return;
        const { index, hardened } = lastStep(chain.path);
        const parentKey = parseXpub(BTC, parent.xpub);
        if (hardened) {
          expect(() => deriveXpubPath(parentKey, `m/${index}H`)).toThrow(/cannot derive hardened children/);
          return;
        }
        expect(encodeXpub(deriveXpubChild(parentKey, index))).toBe(chain.xpub);
        expect(encodeXpub(deriveXpubPath(parentKey, `m/${index}`))).toBe(chain.xpub);
        checked++;
      });
      const nonHardened = vector.chains.slice(1).filter((c) => !lastStep(c.path).hardened).length;
      expect(checked).toBe(nonHardened);
    });

    test(`vector ${vector.vector}: the xprvs are refused as private keys`, () => {
      for (const chain of vector.chains) {
        expect(() => parseXpub(BTC, chain.xprv, 'xpub')).toThrow(/field "xpub" holds an extended private key \(xprv\.\.\.\); the service never accepts private keys/);
      }
    });
  }

  test('a two-step path: vector 1 m/0H/1/2H -> m/0H/1/2H/2/1000000000', () => {
    const v1 = bip32.valid[0];
    const from = v1?.chains[3];
    const to = v1?.chains[5];
    if (!from || !to) throw new Error('fixture');
    expect(encodeXpub(deriveXpubPath(parseXpub(BTC, from.xpub), '2/1000000000'))).toBe(to.xpub);
    expect(bytesToHex(derivePublicKey(BTC, from.xpub, 'm/2/1000000000'))).toBe(bytesToHex(parseXpub(BTC, to.xpub).publicKey));
  });

  test('a child derived again (kept from the first time) is the same, and changing the bytes given out changes no later answer', () => {
    const v1 = bip32.valid[0];
    const [from, to] = [v1?.chains[3], v1?.chains[4]];
    if (!from || !to) throw new Error('fixture');
    const parent = parseXpub(BTC, from.xpub);
    const first = deriveXpubChild(parent, 2);
    first.publicKey.fill(0);
    first.chainCode.fill(0);
    expect(encodeXpub(deriveXpubChild(parent, 2))).toBe(to.xpub);
    // Another parent with the same key but another chain code has other children.
    const other = { ...parent, chainCode: parent.chainCode.map((b) => b ^ 1) };
    expect(encodeXpub(deriveXpubChild(other, 2))).not.toBe(to.xpub);
  });
});

describe('BIP32 test vector 5: invalid extended keys are refused', () => {
  test.each(bip32.invalid.map((k) => [k.reason, k.key]))('%s', (_reason, key) => {
    expect(() => parseXpub(BTC, key)).toThrow(CoinError);
  });

  test('the public-key cases give the specific reason', () => {
    const byReason = (r: string): string => bip32.invalid.find((k) => k.reason === r && k.key.startsWith('xpub'))?.key ?? '';
    expect(() => parseXpub(BTC, byReason('invalid pubkey prefix 04'))).toThrow(/not a compressed public key/);
    expect(() => parseXpub(BTC, byReason('zero depth with non-zero parent fingerprint'))).toThrow(/parent fingerprint/);
    expect(() => parseXpub(BTC, byReason('zero depth with non-zero index'))).toThrow(/child index/);
    expect(() => parseXpub(BTC, byReason('invalid pubkey 020000000000000000000000000000000000000000000000000000000000000007'))).toThrow(/not a point/);
    expect(() => parseXpub(BTC, byReason('pubkey version / prvkey mismatch'))).toThrow(/private key/);
    expect(() => parseXpub(BTC, bip32.invalid.find((k) => k.reason === 'invalid checksum')?.key ?? '')).toThrow(/bad checksum/);
  });
});

describe('versions per coin and network', () => {
  const master = bip32.valid[0]?.chains[0]?.xpub ?? '';
  const reversion = (text: string, version: number): string => {
    const r = tryDecodeBase58Check(text);
    if (!r.ok) throw new Error(r.reason);
    const data = Uint8Array.from(r.data);
    new DataView(data.buffer).setUint32(0, version);
    return base58checkEncode(data.subarray(0, 1), data.subarray(1));
  };

  test('litecoin accepts xpub and Ltub; dash accepts xpub and drkv; both derive the same keys', () => {
    const ltub = reversion(master, 0x019da462);
    const drkv = reversion(master, 0x02fe52f8);
    expect(ltub.startsWith('Ltub')).toBe(true);
    expect(drkv.startsWith('drkv')).toBe(true);
    const want = bytesToHex(derivePublicKey(BTC, master, '0/5'));
    expect(bytesToHex(derivePublicKey(chainParams('litecoin', 'mainnet'), ltub, 'm/0/5'))).toBe(want);
    expect(bytesToHex(derivePublicKey(chainParams('litecoin', 'mainnet'), master, 'm/0/5'))).toBe(want);
    expect(bytesToHex(derivePublicKey(chainParams('dash', 'mainnet'), drkv, '0/5'))).toBe(want);
    expect(bytesToHex(derivePublicKey(chainParams('dash', 'testnet'), reversion(master, 0x3a8061a0), '0/5'))).toBe(want);
  });

  test('a key of another network is refused, naming whose it is', () => {
    const tpub = reversion(master, 0x043587cf);
    expect(() => parseXpub(BTC, tpub, 'xpub')).toThrow(/field "xpub" is not a valid bitcoin xpub: its version 0x043587cf \("tpub"\) is for bitcoin testnet, bitcoin regtest/);
    expect(() => parseXpub(chainParams('bitcoin', 'regtest'), master)).toThrow(/is for bitcoin$/);
    expect(() => parseXpub(BTC, reversion(master, 0x019da462))).toThrow(/is for litecoin/);
    expect(() => parseXpub(BTC, reversion(master, 0x12345678))).toThrow(/unknown version 0x12345678/);
  });

  test('private versions of the table are refused as private keys (Ltpv, drkp)', () => {
    expect(() => parseXpub(chainParams('litecoin', 'mainnet'), reversion(master, 0x019d9cfe))).toThrow(/extended private key \(Ltpv\.\.\.\)/);
    expect(() => parseXpub(chainParams('dash', 'mainnet'), reversion(master, 0x02fe52cc))).toThrow(/extended private key \(drkp\.\.\.\)/);
  });
});

describe('paths', () => {
  test('m/, bare, and empty forms', () => {
    expect(parseXpubPath('m/0/5')).toEqual([0, 5]);
    expect(parseXpubPath('0/5')).toEqual([0, 5]);
    expect(parseXpubPath('M/1')).toEqual([1]);
    expect(parseXpubPath('m')).toEqual([]);
    expect(parseXpubPath('')).toEqual([]);
    expect(parseXpubPath('2147483647')).toEqual([2147483647]);
  });

  test.each(["m/0'/5", 'm/0h/5', '0H', "44'/0'/0'"])('hardened step in %s is refused', (path) => {
    expect(() => parseXpubPath(path, 'path')).toThrow(/field "path" ".*" has the hardened step ".*": an xpub cannot derive hardened children/);
  });

  test.each(['m/', 'm//1', '0/x', '-1', '1.5', '2147483648', 'm/0/ 1'])('malformed path %j is refused', (path) => {
    expect(() => parseXpubPath(path)).toThrow(CoinError);
  });

  test('derivePublicKey returns 33 bytes; fingerprint of the vector 1 master is 3442193e', () => {
    const master = bip32.valid[0]?.chains[0]?.xpub ?? '';
    expect(derivePublicKey(BTC, master, 'm/0/5')).toHaveLength(33);
    expect(fingerprintHex(parseXpub(BTC, master).publicKey)).toBe('3442193e');
  });
});
