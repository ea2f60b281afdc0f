// Every codec a request field goes through refuses text of any length and content with a CoinError
// naming the field (the service's 400), never another error (its 500), and never repeats
// megabytes of input in the message.
import { describe, expect, it } from 'vitest';
import { addressToScript } from './address.ts';
import { chainParams, type CoinName } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { parseEthereumAddress } from './ethereum-address.ts';
import { parsePublicKeyHex } from './keys.ts';
import { parseXpub, parseXpubPath } from './xpub.ts';

const LENGTHS = [255, 256, 257, 4095, 4096, 4097, 100_000];
const TEXTS = (n: number) => [
  '1'.repeat(n),
  'z'.repeat(n),
  `ltc1${'q'.repeat(n)}`,
  `bc1${'q'.repeat(n)}`,
  `bitcoincash:${'q'.repeat(n)}`,
  `q${'p'.repeat(n)}`,
  `t1${'a'.repeat(n)}`,
  `xpub${'a'.repeat(n)}`,
  `0x${'a'.repeat(n)}`,
  `02${'ab'.repeat(n)}`,
  '\u{1F642}'.repeat(n),
];

function refusal(fn: () => unknown): CoinError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CoinError);
    return err as CoinError;
  }
  throw new Error('expected a refusal');
}

describe('over-long and malformed text', () => {
  const coins: CoinName[] = ['bitcoin', 'litecoin', 'bitcoin_cash', 'zcash'];
  for (const n of LENGTHS) {
    it(`is a CoinError naming the field at ${n} characters`, () => {
      for (const text of TEXTS(n)) {
        for (const coin of coins) {
          const e = refusal(() => addressToScript(chainParams(coin, 'mainnet'), text, 'to'));
          expect(e.field).toBe('to');
          expect(e.message.length).toBeLessThan(1000);
          expect(refusal(() => parseXpub(chainParams(coin, 'mainnet'), text, 'master_keys[0].xpub')).field).toBe('master_keys[0].xpub');
        }
        expect(refusal(() => parsePublicKeyHex(text, 'from')).field).toBe('from');
        const eth = refusal(() => parseEthereumAddress(text, 'to'));
        expect([eth.field, eth.message.length < 1000]).toEqual(['to', true]);
        expect(refusal(() => parseXpubPath(`m/${text}`, 'path')).field).toBe('path');
      }
    });
  }
  it('refuses a derivation path deeper than an extended key can be', () => {
    expect(refusal(() => parseXpubPath(`m${'/0'.repeat(256)}`, 'path')).message).toMatch(/256 steps; an extended key's depth is at most 255/);
    expect(parseXpubPath(`m${'/0'.repeat(255)}`, 'path')).toHaveLength(255);
  });
});
