// A strict RFC 4180 reader for the tests: reads back what the desk's CSV writer (main/core/csv.ts)
// wrote, written apart from it so a round trip checks the writer rather than agreeing with itself.
// A leading UTF-8 BOM is dropped; a quote inside an unquoted cell or text after a closing quote throws.
export function parseCsv(text: string): string[][] {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  while (i < src.length) {
    if (src[i] === '"' && cell === '') {
      i++;
      for (;;) {
        if (i >= src.length) throw new Error('unterminated quoted cell');
        if (src[i] === '"' && src[i + 1] === '"') {
          cell += '"';
          i += 2;
        } else if (src[i] === '"') break;
        else cell += src[i++];
      }
      i++;
      if (i < src.length && src[i] !== ',' && src[i] !== '\r') throw new Error(`text after a closing quote at ${i}`);
      continue;
    }
    const c = src[i]!;
    if (c === ',') {
      endCell();
      i++;
    } else if (c === '\r' && src[i + 1] === '\n') {
      endCell();
      rows.push(row);
      row = [];
      i += 2;
    } else if (c === '"') throw new Error(`a quote inside an unquoted cell at ${i}`);
    else if (c === '\n' || c === '\r') throw new Error(`a bare line break outside quotes at ${i}`);
    else cell += src[i++];
  }
  if (cell !== '' || row.length > 0) throw new Error('the last row has no CRLF');
  return rows;
}
