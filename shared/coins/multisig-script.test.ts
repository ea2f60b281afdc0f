import { payments } from 'bitcoinjs-lib';
import { describe, expect, test } from 'vitest';
import { scriptToAddress } from './address.ts';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { chainParams } from './coin-table.ts';
import { PUBLIC_KEYS } from './fixtures/spends.ts';
import { deriveAddress } from './multisig-address.ts';
import { multisigScripts, sortPublicKeysBip67 } from './multisig-script.ts';
import { multisigRedeemScript, parseMultisigRedeemScript } from './script.ts';
import { encodeXpub } from './xpub.ts';

const BTC = chainParams('bitcoin', 'mainnet');
const LTC_REG = chainParams('litecoin', 'regtest');
const hex = (b: Uint8Array | undefined): string => (b === undefined ? '' : bytesToHex(b));

describe('multisig script types', () => {
  // BIP67's first test vector: a 2-of-2 whose keys are given unsorted.
  const bip67Keys = ['02ff12471208c14bd580709cb2358d98975247d8765f92bc25eab3b2763ed605f8', '02fe6f0a5a297eb38c391581c4413e084773ea23954d93f7753db7dc0adc188b2f'].map((k) => hexToBytes(k));

  test('BIP67: sorted only when asked; the BIP\'s address', () => {
    const sorted = multisigScripts(BTC, 2, bip67Keys, { sortKeys: true });
    expect(sorted.keys.map(hex)).toEqual([hex(bip67Keys[1]), hex(bip67Keys[0])]);
    expect(scriptToAddress(BTC, sorted.scriptPubKey)).toBe('39bgKC7RFbpoCRbtD5KEdkYKtNyhpsNa3Z');
    const given = multisigScripts(BTC, 2, bip67Keys);
    expect(given.keys.map(hex)).toEqual(bip67Keys.map(hex));
    expect(hex(given.multisigScript)).toBe(hex(multisigRedeemScript(2, bip67Keys)));
    expect(sortPublicKeysBip67(bip67Keys).map(hex)).toEqual(sorted.keys.map(hex));
  });

  test('p2sh (default): the redeem script is the multisig script', () => {
    const s = multisigScripts(BTC, 2, PUBLIC_KEYS);
    expect(s.scriptType).toBe('p2sh');
    expect(hex(s.redeemScript)).toBe(hex(s.multisigScript));
    expect(s.witnessScript).toBeUndefined();
    expect(scriptToAddress(BTC, s.scriptPubKey)).toBe(payments.p2sh({ redeem: payments.p2ms({ m: 2, pubkeys: PUBLIC_KEYS.map((k) => Buffer.from(k)) }) }).address);
  });

  test('p2wsh and p2sh-p2wsh agree with bitcoinjs-lib (oracle)', () => {
    const p2ms = payments.p2ms({ m: 2, pubkeys: PUBLIC_KEYS.map((k) => Buffer.from(k)) });
    const native = multisigScripts(BTC, 2, PUBLIC_KEYS, { scriptType: 'p2wsh' });
    const oracleNative = payments.p2wsh({ redeem: p2ms });
    expect(hex(native.scriptPubKey)).toBe(hex(oracleNative.output));
    expect(scriptToAddress(BTC, native.scriptPubKey)).toBe(oracleNative.address);
    expect(hex(native.witnessScript)).toBe(hex(p2ms.output));
    expect(native.redeemScript).toBeUndefined();

    const nested = multisigScripts(BTC, 2, PUBLIC_KEYS, { scriptType: 'p2sh-p2wsh' });
    const oracleNested = payments.p2sh({ redeem: oracleNative });
    expect(hex(nested.redeemScript)).toBe(hex(oracleNative.output));
    expect(hex(nested.scriptPubKey)).toBe(hex(oracleNested.output));
    expect(scriptToAddress(BTC, nested.scriptPubKey)).toBe(oracleNested.address);
  });

  test('the BIP143 6-of-6 example\'s witness script gives its P2SH-P2WSH output', () => {
    const ws = hexToBytes(
      '56210307b8ae49ac90a048e9b53357a2354b3334e9c8bee813ecb98e99a7e07e8c3ba32103b28f0c28bfab54554ae8c658ac5c3e0ce6e79ad336331f78c428dd43eea8449b21034b8113d703413d57761b8b9781957b8c0ac1dfe69f492580ca4195f50376ba4a21033400f6afecb833092a9a21cfdf1ed1376e58c5d1f47de74683123987e967a8f42103a6d48b1131e94ba04d9737d61acdaa1322008af9602b3b14862c07a1789aac162102d8b661b0b3302ee2f162b09e07a55ad5dfbe673a9f01d9f0c19617681024306b56ae',
    );
    const parsed = parseMultisigRedeemScript(ws)!;
    const s = multisigScripts(BTC, parsed.m, parsed.pubkeys, { scriptType: 'p2sh-p2wsh' });
    expect(hex(s.witnessScript)).toBe(hex(ws));
    expect(hex(s.scriptPubKey)).toBe('a9149993a429037b5d912407a71c252019287b8d27a587');
  });

  test('segwit addresses on the coin\'s own hrp', () => {
    const native = multisigScripts(LTC_REG, 2, PUBLIC_KEYS, { scriptType: 'p2wsh', sortKeys: true });
    expect(scriptToAddress(LTC_REG, native.scriptPubKey)).toMatch(/^rltc1q[02-9ac-hj-np-z]{58}$/);
    const btg = chainParams('bitcoin_gold', 'mainnet');
    expect(scriptToAddress(btg, multisigScripts(btg, 2, PUBLIC_KEYS, { scriptType: 'p2wsh' }).scriptPubKey)).toMatch(/^btg1q/);
  });

  test('refusals: segwit on a coin without it (named), over the witness limits, bad M', () => {
    expect(() => multisigScripts(chainParams('bitcoin_cash', 'mainnet'), 2, PUBLIC_KEYS, { scriptType: 'p2wsh' })).toThrow(/bitcoin_cash has no segwit: a p2wsh multisig cannot be made/);
    expect(() => multisigScripts(chainParams('dash', 'testnet'), 2, PUBLIC_KEYS, { scriptType: 'p2sh-p2wsh' })).toThrow(/dash testnet has no segwit/);
    expect(() => multisigScripts(chainParams('dash', 'testnet'), 2, PUBLIC_KEYS)).not.toThrow();
    const many = Array.from({ length: 21 }, () => PUBLIC_KEYS[0]!);
    expect(() => multisigScripts(BTC, 2, many, { scriptType: 'p2wsh' })).toThrow(/at most 20 public keys/);
    expect(() => multisigScripts(BTC, 2, many.slice(0, 16))).toThrow(/1 to 15 public keys/);
    expect(() => multisigScripts(BTC, 4, PUBLIC_KEYS, { scriptType: 'p2wsh' })).toThrow(/4 required signatures cannot be met/);
    expect(() => multisigScripts(BTC, 2, PUBLIC_KEYS, { scriptType: 'p2tr' as never })).toThrow(/unknown multisig script type "p2tr"/);
  });

  test('witness scripts of 17..20 keys: counts as minimal pushes, parsed back', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => PUBLIC_KEYS[i % 3]!);
    const s = multisigScripts(BTC, 17, twenty, { scriptType: 'p2wsh' });
    expect(hex(s.multisigScript.subarray(0, 2))).toBe('0111');
    expect(hex(s.multisigScript.subarray(-3))).toBe('0114ae');
    expect(parseMultisigRedeemScript(s.multisigScript)).toMatchObject({ m: 17 });
  });
});

describe('deriveAddress options', () => {
  // Three master xpubs (tpub) made from the fixture keys with fixed chain codes.
  const xpubs = PUBLIC_KEYS.map((publicKey, i) =>
    encodeXpub({ version: LTC_REG.xpubVersions[0]!, depth: 0, parentFingerprint: 0, index: 0, chainCode: new Uint8Array(32).fill(i + 1), publicKey }),
  );

  test('without options: P2SH in co-signer order, the old shape', () => {
    const a = deriveAddress(LTC_REG, 2, xpubs, false, 3);
    expect(Object.keys(a).sort()).toEqual(['address', 'change', 'index', 'path', 'publicKeys', 'redeemScript']);
    expect(hex(a.redeemScript)).toBe(hex(multisigRedeemScript(2, a.publicKeys)));
  });

  test('with options: the script type and order asked for; publicKeys stay in co-signer order', () => {
    const a = deriveAddress(LTC_REG, 2, xpubs, true, 3, { scriptType: 'p2sh-p2wsh', sortKeys: true });
    expect(a.scriptType).toBe('p2sh-p2wsh');
    expect(a.keys.map(hex)).toEqual(sortPublicKeysBip67(a.publicKeys).map(hex));
    expect(a.address).toBe(scriptToAddress(LTC_REG, a.scriptPubKey));
    expect(a.address.startsWith('Q')).toBe(true);
    expect(deriveAddress(LTC_REG, 2, xpubs, true, 3, {}).address).toBe(deriveAddress(LTC_REG, 2, xpubs, true, 3).address);
  });
});
