import { payments } from 'bitcoinjs-lib';
import { describe, expect, test } from 'vitest';
import { bytesToHex, hexToBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import bip32 from './fixtures/bip32.json' with { type: 'json' };
import {
  OP,
  classifyOutputScript,
  compileScript,
  decodeScript,
  multisigRedeemScript,
  p2pkhScript,
  p2shScript,
  parseMultisigRedeemScript,
  pushData,
  witnessScript,
} from './script.ts';
import { parseXpub } from './xpub.ts';
import { chainParams } from './coin-table.ts';

const BTC = chainParams('bitcoin', 'mainnet');
const KEYS = (bip32.valid[0]?.chains ?? []).slice(0, 4).map((c) => parseXpub(BTC, c.xpub).publicKey);
const H20 = hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6');

describe('multisig redeem scripts', () => {
  test('OP_M <keys as given> OP_N OP_CHECKMULTISIG, same bytes as bitcoinjs-lib p2ms', () => {
    const keys = KEYS.slice(0, 3);
    const ours = multisigRedeemScript(2, keys);
    const theirs = payments.p2ms({ m: 2, pubkeys: keys }).output;
    expect(theirs).toBeDefined();
    expect(bytesToHex(ours)).toBe(bytesToHex(theirs ?? new Uint8Array(0)));
    expect(ours[0]).toBe(0x52);
    expect(ours[ours.length - 2]).toBe(0x53);
    expect(ours[ours.length - 1]).toBe(OP.OP_CHECKMULTISIG);
  });

  test('keys are NOT sorted: another order is another script', () => {
    const a = multisigRedeemScript(2, [KEYS[0], KEYS[1], KEYS[2]] as Uint8Array[]);
    const b = multisigRedeemScript(2, [KEYS[2], KEYS[1], KEYS[0]] as Uint8Array[]);
    expect(bytesToHex(a)).not.toBe(bytesToHex(b));
    expect(parseMultisigRedeemScript(b)?.pubkeys.map(bytesToHex)).toEqual([KEYS[2], KEYS[1], KEYS[0]].map((k) => bytesToHex(k as Uint8Array)));
  });

  test('1 <= m <= n <= 15, compressed keys only', () => {
    const k = KEYS[0] as Uint8Array;
    expect(() => multisigRedeemScript(0, [k])).toThrow(/at least 1/);
    expect(() => multisigRedeemScript(3, [k, k])).toThrow('3 required signatures cannot be met by 2 public key(s)');
    expect(() => multisigRedeemScript(1, [])).toThrow(/1 to 15 public keys, got 0/);
    expect(() => multisigRedeemScript(1, Array.from({ length: 16 }, () => k))).toThrow(/got 16/);
    expect(multisigRedeemScript(15, Array.from({ length: 15 }, () => k))).toHaveLength(3 + 15 * 34);
    expect(() => multisigRedeemScript(1, [k.subarray(1)])).toThrow(/public key #1/);
    expect(() => multisigRedeemScript(1.5, [k])).toThrow(CoinError);
  });

  test('parse returns m and keys, or null', () => {
    const s = multisigRedeemScript(2, KEYS.slice(0, 3));
    const parsed = parseMultisigRedeemScript(s);
    expect(parsed?.m).toBe(2);
    expect(parsed?.pubkeys).toHaveLength(3);
    expect(parseMultisigRedeemScript(p2pkhScript(H20))).toBeNull();
    expect(parseMultisigRedeemScript(s.subarray(0, s.length - 1))).toBeNull();
    expect(parseMultisigRedeemScript(Uint8Array.of(0x52, 0x21))).toBeNull();
    // n does not match the number of keys
    const wrongN = Uint8Array.from(s);
    wrongN[wrongN.length - 2] = 0x54;
    expect(parseMultisigRedeemScript(wrongN)).toBeNull();
  });
});

describe('output scripts', () => {
  test('p2pkh / p2sh / segwit templates, and their classification', () => {
    expect(bytesToHex(p2pkhScript(H20))).toBe(`76a914${bytesToHex(H20)}88ac`);
    expect(bytesToHex(p2shScript(H20))).toBe(`a914${bytesToHex(H20)}87`);
    expect(classifyOutputScript(p2pkhScript(H20))).toEqual({ type: 'p2pkh', hash: H20 });
    expect(classifyOutputScript(p2shScript(H20))).toEqual({ type: 'p2sh', hash: H20 });
    expect(classifyOutputScript(witnessScript(0, H20))).toEqual({ type: 'p2wpkh', hash: H20 });
    const h32 = new Uint8Array(32).fill(7);
    expect(classifyOutputScript(witnessScript(0, h32))).toEqual({ type: 'p2wsh', hash: h32 });
    expect(classifyOutputScript(witnessScript(1, h32))).toEqual({ type: 'p2tr', hash: h32 });
    expect(classifyOutputScript(Uint8Array.of(0x6a, 0x01, 0x00))).toEqual({ type: 'other' });
    expect(classifyOutputScript(new Uint8Array(0))).toEqual({ type: 'other' });
    expect(() => p2pkhScript(new Uint8Array(19))).toThrow(CoinError);
    expect(() => witnessScript(0, new Uint8Array(21))).toThrow(CoinError);
  });
});

describe('pushes and chunks', () => {
  test('minimal pushes', () => {
    expect(bytesToHex(pushData(new Uint8Array(0)))).toBe('00');
    expect(bytesToHex(pushData(Uint8Array.of(5)))).toBe('55');
    expect(bytesToHex(pushData(Uint8Array.of(16)))).toBe('60');
    expect(bytesToHex(pushData(Uint8Array.of(0x81)))).toBe('4f');
    expect(bytesToHex(pushData(Uint8Array.of(0)))).toBe('0100');
    expect(bytesToHex(pushData(new Uint8Array(75))).slice(0, 2)).toBe('4b');
    expect(bytesToHex(pushData(new Uint8Array(76))).slice(0, 4)).toBe('4c4c');
    expect(bytesToHex(pushData(new Uint8Array(256))).slice(0, 6)).toBe('4d0001');
    expect(bytesToHex(pushData(new Uint8Array(65536))).slice(0, 10)).toBe('4e00000100');
  });

  test('decodeScript reads a multisig scriptSig back', () => {
    const sig = new Uint8Array(71).fill(0x30);
    const redeem = multisigRedeemScript(2, KEYS.slice(0, 3)); // 105 bytes: needs OP_PUSHDATA1
    const scriptSig = compileScript([OP.OP_0, sig, redeem]);
    const chunks = decodeScript(scriptSig);
    expect(chunks.map((c) => c.opcode)).toEqual([0x00, 71, OP.OP_PUSHDATA1]);
    expect(chunks[1]?.data).toEqual(sig);
    expect(chunks[2]?.data).toEqual(redeem);
  });

  test('a truncated push is a CoinError', () => {
    expect(() => decodeScript(Uint8Array.of(0x05, 1, 2))).toThrow(/runs past the end/);
    expect(() => decodeScript(Uint8Array.of(OP.OP_PUSHDATA2, 1))).toThrow(CoinError);
  });
});
