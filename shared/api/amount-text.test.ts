import { describe, expect, it } from 'vitest';
import { amountRefusalWords, parseAmount } from './amount-text.ts';

const LTC = { ticker: 'LTC' };
const words = (text: string, decimals = 8, places = decimals, unit = LTC): string => {
  const r = parseAmount(text, decimals, places);
  if (r.ok) throw new Error(`"${text}" was read as ${r.units}`);
  return amountRefusalWords(r, unit);
};
const units = (text: string, decimals = 8): bigint => {
  const r = parseAmount(text, decimals);
  if (!r.ok) throw new Error(`"${text}" was refused: ${amountRefusalWords(r, LTC)}`);
  return r.units;
};

describe('parseAmount: digits with at most one decimal point, in the coin unit', () => {
  it.each([
    ['1250', 125_000_000_000n],
    ['1.25', 125_000_000n],
    [' 1.5 ', 150_000_000n],
    ['\t2\n', 200_000_000n],
    ['.5', 50_000_000n],
    ['1.', 100_000_000n],
    ['0.00000001', 1n],
    ['1.123456780', 112_345_678n], // a trailing zero past the 8th decimal is still exact
    ['007', 700_000_000n],
  ])('reads %j', (text, expected) => expect(units(text)).toBe(expected));

  it('reads 18 decimals exactly, beyond what a double holds', () => {
    expect(units('123456789.123456789123456789', 18)).toBe(123456789_123456789123456789n);
  });

  it.each([
    ['1,250', 'comma', '"1,250" has a comma: use no thousands separators, and a point for decimals; type 1250 or 1.25'],
    ['1,25', 'comma', '"1,25" has a comma: use no thousands separators, and a point for decimals; type 1.25'],
    ['1,234,567.5', 'comma', '"1,234,567.5" has a comma: use no thousands separators, and a point for decimals; type 1234567.5'],
    ['1.250,5', 'comma', '"1.250,5" has a comma: use no thousands separators, and a point for decimals; type 1250.5'],
    ['1,2,3', 'comma', '"1,2,3" has a comma: use no thousands separators, and a point for decimals; type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
    ['1 000', 'space', '"1 000" has a space inside: type the digits together, e.g. 1000'],
    ['1\u00a0000.5', 'space', '"1\u00a0000.5" has a space inside: type the digits together, e.g. 1000.5'],
    ['-1', 'negative', '"-1" is negative: an amount is what is paid, so type it without a minus sign'],
    ['\u22120.5', 'negative', '"\u22120.5" is negative: an amount is what is paid, so type it without a minus sign'],
    ['+1', 'plus', '"+1" has a plus sign: type the amount without a sign, e.g. 1'],
    ['0', 'zero', '"0" is zero: type the amount to pay, more than 0 LTC'],
    ['0.000', 'zero', '"0.000" is zero: type the amount to pay, more than 0 LTC'],
    ['.', 'not-a-number', '"." is not an amount (it has "."): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
    ['1.123456789', 'decimals', '"1.123456789" has 9 decimals: an amount of LTC has at most 8'],
    ['1e3', 'not-a-number', '"1e3" is not an amount (it has "e"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
    ['', 'empty', 'no amount: type an amount in LTC, e.g. 0.5'],
    ['   ', 'empty', 'no amount: type an amount in LTC, e.g. 0.5'],
    ['abc', 'not-a-number', '"abc" is not an amount (it has "a"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
    ['1.2.3', 'points', '"1.2.3" has 2 decimal points: an amount has at most one'],
    ['\u0661\u0662', 'foreign-digits', '"\u0661\u0662" uses digits other than 0-9: type the amount with the digits 0-9'],
    ['\uff11', 'foreign-digits', '"\uff11" uses digits other than 0-9: type the amount with the digits 0-9'],
    ['1_000', 'not-a-number', '"1_000" is not an amount (it has "_"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
    ['$5', 'not-a-number', '"$5" is not an amount (it has "$"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
    ['0x10', 'not-a-number', '"0x10" is not an amount (it has "x"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25'],
  ])('refuses %j (%s) in words that say what to type', (text, kind, expected) => {
    const r = parseAmount(text, 8);
    expect(r.ok ? null : r.refusal.kind).toBe(kind);
    expect(words(text)).toBe(expected);
  });

  it('refuses decimals beyond what may be sent (Ether in GWEI) and beyond a token with fewer decimals', () => {
    expect(words('1.0000000001', 18, 9, { ticker: 'ETH' })).toBe('"1.0000000001" has 10 decimals: an amount of ETH has at most 9');
    expect(units('1.000000001', 18)).toBe(1_000_000_001_000_000_000n);
    expect(parseAmount('0.001', 2, 9)).toMatchObject({ ok: false, refusal: { kind: 'decimals', places: 3, max: 2 } });
  });
});
