import { describe, expect, it } from 'vitest';
import { addressToScript, encodeAddress } from '../../shared/coins/address.ts';
import { chainParams } from '../../shared/coins/coin-table.ts';
import { parseAddressList } from './address-list.ts';

const litecoin = { params: chainParams('litecoin', 'regtest') };
const litecoinMain = { params: chainParams('litecoin', 'mainnet') };
const bitcoinMain = { params: chainParams('bitcoin', 'mainnet') };

function p2pkh(params: typeof litecoin.params, n: number): string {
  const hash = new Uint8Array(20);
  new DataView(hash.buffer).setUint32(0, n);
  return encodeAddress(params, { type: 'p2pkh', hash });
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(Error); // ApiError or CoinError: both answer 400
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseAddressList', () => {
  it('one address, trimmed, with its script', () => {
    const a = p2pkh(litecoin.params, 1);
    expect(parseAddressList(litecoin, ` ${a} `)).toEqual([{ address: a, script: addressToScript(litecoin.params, a) }]);
  });

  it('a list keeps order, drops empty entries and counts one script once', () => {
    const [a, b] = [p2pkh(litecoin.params, 1), p2pkh(litecoin.params, 2)];
    expect(parseAddressList(litecoin, `${a},,${b}, ${a}`).map((q) => q.address)).toEqual([a, b]);
  });

  it('remembers addresses per chain: a litecoin address is not valid for bitcoin afterwards', () => {
    const a = p2pkh(litecoinMain.params, 3);
    parseAddressList(litecoinMain, a);
    expect(refusal(() => parseAddressList(bitcoinMain, a))).toMatch(/address/);
  });

  it('refuses an empty list, an invalid address and too many addresses with the field name', () => {
    expect(refusal(() => parseAddressList(litecoin, ' ', 'address'))).toBe('address is empty');
    expect(refusal(() => parseAddressList(litecoin, ' , '))).toBe('addresses is empty');
    expect(refusal(() => parseAddressList(litecoin, 'not-an-address', 'address'))).toMatch(/address/);
    const many = Array.from({ length: 201 }, (_, i) => p2pkh(litecoin.params, i + 10)).join(',');
    expect(refusal(() => parseAddressList(litecoin, many))).toMatch(/lists 201 addresses; at most 200/);
  });
});
