// How name(), symbol() and decimals() answers are read, byte by byte: both string forms, answers
// that are neither, text that could pass for another token, and decimals that are no uint8.
import { AbiCoder, encodeBytes32String } from 'ethers';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.ts';
import { decodeDecimalsAnswer, decodeTextAnswer, saneName, saneSymbol } from './erc20-metadata.ts';

const abi = AbiCoder.defaultAbiCoder();
const word = (n: bigint) => n.toString(16).padStart(64, '0');

describe('decodeTextAnswer', () => {
  it('reads an ABI string and the bytes32 form', () => {
    expect(decodeTextAnswer(abi.encode(['string'], ['Tether USD']))).toBe('Tether USD');
    expect(decodeTextAnswer(abi.encode(['string'], ['Ünïcødé ✓']))).toBe('Ünïcødé ✓');
    expect(decodeTextAnswer(encodeBytes32String('MKR'))).toBe('MKR');
    expect(decodeTextAnswer(`0x${'41'.repeat(32)}`)).toBe('A'.repeat(32)); // a full bytes32, no NUL
  });

  it('gives null for no answer and for bytes that are neither form', () => {
    expect(decodeTextAnswer(null)).toBeNull();
    expect(decodeTextAnswer('0x')).toBeNull();
    expect(decodeTextAnswer(`0x${'00'.repeat(20)}`)).toBeNull(); // too short for either form
    expect(decodeTextAnswer(`0x${word(32n)}${word(5n)}`)).toBeNull(); // length past the end
    expect(decodeTextAnswer(`0x${word(2n ** 255n)}${word(0n)}`)).toBeNull(); // offset past the end
    expect(decodeTextAnswer(`0x${word(32n)}${word(2n)}${'fffe'.padEnd(64, '0')}`)).toBeNull(); // not UTF-8
  });
});

describe('saneName / saneSymbol', () => {
  it('keep plain text, trimmed', () => {
    expect(saneName('  Wrapped Ether ')).toBe('Wrapped Ether');
    expect(saneSymbol('USD₮0')).toBe('USD₮0');
  });

  it('drop empty, too long and disguising text', () => {
    expect(saneName('')).toBeNull();
    expect(saneName(null)).toBeNull();
    expect(saneSymbol('   ')).toBeNull();
    expect(saneSymbol('S'.repeat(33))).toBeNull();
    expect(saneName('N'.repeat(101))).toBeNull();
    expect(saneName('Tether\u202eDSU')).toBeNull(); // right-to-left override
    expect(saneSymbol('USD\u200bT')).toBeNull(); // zero-width space
    expect(saneSymbol('US\nDT')).toBeNull();
    expect(saneName('Bad \ufffd bytes')).toBeNull(); // an indexer's stand-in for invalid UTF-8
  });
});

describe('decodeDecimalsAnswer', () => {
  const contract = '0x0000000000000000000000000000000000000001';
  it('reads a uint8', () => {
    expect(decodeDecimalsAnswer(contract, abi.encode(['uint8'], [6]))).toBe(6);
    expect(decodeDecimalsAnswer(contract, abi.encode(['uint8'], [0]))).toBe(0);
    expect(decodeDecimalsAnswer(contract, abi.encode(['uint256'], [255]))).toBe(255);
  });

  it('refuses with a 422 what leaves the amounts unreadable', () => {
    for (const [answer, why] of [
      [null, /refused the call decimals\(\) \(it reverted\)/],
      ['0x', /has no decimals\(\) \(it answered nothing\)/],
      ['0x0612', /has no decimals\(\) \(it answered 2 bytes\)/],
      [abi.encode(['uint256'], [256]), /answered decimals\(\) with 256, not a uint8/],
      [abi.encode(['uint256'], [2n ** 200n]), /answered decimals\(\) with a huge number/],
    ] as const) {
      const err = (() => {
        try {
          decodeDecimalsAnswer(contract, answer);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).statusCode).toBe(422);
      expect((err as ApiError).message).toMatch(why);
    }
  });
});
