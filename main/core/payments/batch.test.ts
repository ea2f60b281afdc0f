// A batch's rows: CSV reading (header optional, quotes, blank lines) and every row's check, each
// refusal with the line it is on.
import { describe, expect, it } from 'vitest';
import { chainParams, scriptToAddress } from '../../../shared/coins/index.ts';
import { checkRecipients, decimalToUnits, readRecipientsCsv, rowRefusalWords } from './batch.ts';

const params = chainParams('litecoin', 'regtest');
const mainnet = chainParams('litecoin', 'mainnet');
// A P2PKH script (any 20 bytes) shown on each network.
const pkh = (byte: number) => Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(byte), 0x88, 0xac]);
const a1 = scriptToAddress(params, pkh(1))!;
const a2 = scriptToAddress(params, pkh(2))!;
const onMainnet = scriptToAddress(mainnet, pkh(3))!;

describe('decimalToUnits', () => {
  it('reads amounts in the coin unit, refuses too many decimals and anything else', () => {
    expect(decimalToUnits('1.25', 8)).toBe(125_000_000n);
    expect(decimalToUnits('.5', 8)).toBe(50_000_000n);
    expect(decimalToUnits('3', 8)).toBe(300_000_000n);
    expect(decimalToUnits('0.000000001', 8)).toBeNull();
    expect(decimalToUnits('-1', 8)).toBeNull();
    expect(decimalToUnits('1e3', 8)).toBeNull();
    expect(decimalToUnits('', 8)).toBeNull();
  });
});

describe('readRecipientsCsv', () => {
  it('skips a header and blank lines, keeps file line numbers, reads quoted labels', () => {
    const { rows, refusals } = readRecipientsCsv(`\uFEFFaddress,amount,label\r\n${a1},0.5,"Payroll, March"\r\n\r\n${a2},1\r\n`);
    expect(refusals).toEqual([]);
    expect(rows).toEqual([
      { line: 2, to: a1, amount: '0.5', label: 'Payroll, March' },
      { line: 4, to: a2, amount: '1', label: '' },
    ]);
  });

  it('reads a file without a header from line 1, refuses a row with too many columns', () => {
    const { rows, refusals } = readRecipientsCsv(`${a1},0.5,rent\n${a2},1,x,y`);
    expect(rows.map((r) => r.line)).toEqual([1]);
    expect(refusals).toEqual([{ line: 2, kind: 'shape', words: 'has 4 columns; a row is address,amount,label' }]);
  });
});

describe('checkRecipients', () => {
  it('checks every row (address, network, amount, dust) and names each bad one by its line', () => {
    const bad = a1.slice(0, -1) + (a1.endsWith('1') ? '2' : '1');
    const { rows } = readRecipientsCsv(`address,amount,label\n${a1},0.5,ok\n${bad},1,typo\n${onMainnet},1,wrong network\n${a2},0.00000001,dust\n${a2},1.5x,not a number`);
    const { recipients, refusals } = checkRecipients(params, rows);
    expect(recipients).toEqual([{ to: a1, amount: 50_000_000n, label: 'ok' }]);
    const words = refusals.map((r) => rowRefusalWords(r, 8, 'LTC'));
    expect(words[0]).toMatch(/^line 3: /);
    expect(words[1]).toBe(`line 4: "${onMainnet}" is a litecoin mainnet address; this wallet is on regtest`);
    expect(words[2]).toBe('line 5: the amount 0.00000001 LTC is below the dust limit of 0.0000546 LTC');
    expect(words[3]).toBe('line 6: the amount "1.5x" is not a number of LTC with at most 8 decimals');
  });

  it('refuses an empty batch', () => {
    expect(checkRecipients(params, []).refusals.map((r) => rowRefusalWords(r, 8, 'LTC'))).toEqual(['the batch: there are no recipients']);
  });
});
