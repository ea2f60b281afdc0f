// A batch's rows: CSV reading (header optional, quotes, blank lines) and every row's check, each
// refusal with the line it is on.
import { describe, expect, it } from 'vitest';
import { chainParams, scriptToAddress } from '../../../shared/coins/index.ts';
import { checkRecipients, readRecipientsCsv, refuseBatchTotal, rowRefusalWords } from './batch.ts';

const params = chainParams('litecoin', 'regtest');
const mainnet = chainParams('litecoin', 'mainnet');
// A P2PKH script (any 20 bytes) shown on each network.
const pkh = (byte: number) => Uint8Array.from([0x76, 0xa9, 0x14, ...new Array<number>(20).fill(byte), 0x88, 0xac]);
const a1 = scriptToAddress(params, pkh(1))!;
const a2 = scriptToAddress(params, pkh(2))!;
const onMainnet = scriptToAddress(mainnet, pkh(3))!;

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
    expect(words[3]).toBe('line 6: "1.5x" is not an amount (it has "x"): type digits 0-9 with at most one decimal point, e.g. 1250 or 1.25');
  });

  it('reads amounts with the one amount reader: a comma, a sign or zero is refused in its own words', () => {
    const { rows } = readRecipientsCsv(`${a1},"1,250",thousands\n${a1},-1,negative\n${a2},0,zero\n${a2},1.123456789,too fine\n${a2},.5,half`);
    const { recipients, refusals } = checkRecipients(params, rows);
    expect(recipients).toEqual([{ to: a2, amount: 50_000_000n, label: 'half' }]);
    expect(refusals.map((r) => rowRefusalWords(r, 8, 'LTC'))).toEqual([
      'line 1: "1,250" has a comma: use no thousands separators, and a point for decimals; type 1250 or 1.25',
      'line 2: "-1" is negative: an amount is what is paid, so type it without a minus sign',
      'line 3: "0" is zero: type the amount to pay, more than 0 LTC',
      'line 4: "1.123456789" has 9 decimals: an amount of LTC has at most 8',
    ]);
  });

  it('ignores blank rows at the end, and refuses a blank row in the middle once', () => {
    const blank = (line: number) => ({ line, to: '', amount: '', label: '' });
    const row = { line: 1, to: a1, amount: '0.5', label: '' };
    expect(checkRecipients(params, [row, blank(2), blank(3)])).toEqual({ recipients: [{ to: a1, amount: 50_000_000n }], refusals: [] });
    expect(checkRecipients(params, [blank(1), { ...row, line: 2 }]).refusals.map((r) => rowRefusalWords(r, 8, 'LTC'))).toEqual(['line 1: is empty: type an address and an amount, or remove the row']);
    expect(checkRecipients(params, [blank(1)]).refusals.map((r) => rowRefusalWords(r, 8, 'LTC'))).toEqual(['the batch: there are no recipients']);
  });

  it('refuses an empty batch', () => {
    expect(checkRecipients(params, []).refusals.map((r) => rowRefusalWords(r, 8, 'LTC'))).toEqual(['the batch: there are no recipients']);
  });
});

describe('refuseBatchTotal', () => {
  const rows = [
    { line: 1, to: a1, amount: '1.5', label: '' },
    { line: 2, to: 'typo', amount: '1', label: '' },
    { line: 3, to: a2, amount: '1,5', label: '' },
  ];
  it('refuses as typed a batch the wallet cannot pay, naming the total and what it holds in the coin unit', () => {
    const r = refuseBatchTotal(params, rows, 20_000n, 200_000_000n);
    expect(r && rowRefusalWords(r, 8, 'LTC')).toBe('the batch: the wallet has 2 LTC free to spend; this batch pays 2 recipients 2.5 LTC and needs 2.5002 LTC with the fees, more than that');
    expect(rowRefusalWords(refuseBatchTotal(params, rows.slice(0, 1), 0n, 100_000_000n)!, 8, 'LTC')).toBe('the batch: the wallet has 1 LTC free to spend; this batch pays one recipient 1.5 LTC, more than that');
  });
  it('lets a batch the wallet can pay, and one with no amount yet, pass', () => {
    expect(refuseBatchTotal(params, rows, 0n, 250_000_000n)).toBeNull();
    expect(refuseBatchTotal(params, [{ line: 1, to: a1, amount: '', label: '' }], 0n, 0n)).toBeNull();
  });
});
