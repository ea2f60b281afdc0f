// The CSV writer: RFC 4180 quoting, the formula guard, and a round trip through a strict reader.
import { describe, expect, it } from 'vitest';
import { AUDIT_CSV_HEADER, auditRows } from './audit-export.ts';
import { csvCell, csvText } from './csv.ts';
import { parseCsv } from '../../dev/desk-testing/csv-reader.ts';

describe('csvCell', () => {
  it('leaves plain text alone and quotes commas, quotes and line breaks', () => {
    expect(csvCell('payment.propose')).toBe('payment.propose');
    expect(csvCell('')).toBe('');
    expect(csvCell('1.25, to Q')).toBe('"1.25, to Q"');
    expect(csvCell('the "ops" wallet')).toBe('"the ""ops"" wallet"');
    expect(csvCell('line one\nline two')).toBe('"line one\nline two"');
    expect(csvCell('a\r\nb')).toBe('"a\r\nb"');
  });

  it('puts an apostrophe before what a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://evil","click")')).toBe('"\'=HYPERLINK(""http://evil"",""click"")"');
    expect(csvCell('+1+2')).toBe("'+1+2");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe('"\'\r=1"');
    // Only the first character counts: these are text to every spreadsheet.
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(' =1')).toBe(' =1');
  });
});

describe('csvText', () => {
  it('writes a BOM, CRLF rows, and reads back cell for cell', () => {
    const rows = [
      ['2026-01-01T00:00:00.000Z', 'treasurer', 'payment.cancel', 'reason: "late", twice\nsecond line'],
      ['2026-01-02T00:00:00.000Z', '=cmd|\' /C calc\'!A0', 'x', 'Zoë, ünïcode'],
    ];
    const text = csvText(['time', 'actor', 'action', 'details'], rows);
    expect(text.startsWith('\uFEFFtime,actor,action,details\r\n')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const back = parseCsv(text);
    expect(back[0]).toEqual(['time', 'actor', 'action', 'details']);
    expect(back[1]).toEqual(rows[0]);
    expect(back[2]).toEqual(['2026-01-02T00:00:00.000Z', "'=cmd|' /C calc'!A0", 'x', 'Zoë, ünïcode']);
    expect(back).toHaveLength(3);
  });

  it('lays out an audit entry in the header order, the wallet named', () => {
    const rows = auditRows(
      [{ id: 1, at: 't', actor: 'me', action: 'signature.import', detail: 'd', source: 'f.json', walletId: 'w1', paymentId: 'p1', cosigner: 'alice' }],
      (id) => (id === 'w1' ? 'Ops' : null),
    );
    expect(Object.fromEntries(AUDIT_CSV_HEADER.map((h, i) => [h, rows[0]![i]]))).toEqual({
      time: 't', actor: 'me', action: 'signature.import', wallet_id: 'w1', wallet: 'Ops', payment: 'p1', cosigner: 'alice', details: 'd', source: 'f.json',
    });
  });
});
