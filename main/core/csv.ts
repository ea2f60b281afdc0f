// CSV as spreadsheets read it (RFC 4180): one pure writer for every table the desk exports.
//
// A cell a spreadsheet would run as a formula (it starts with = + - @, or a tab or carriage return
// that some strip first) gets a leading apostrophe, as OWASP's CSV-injection advice says: text
// from co-signers' files, addresses and reasons reaches these cells, and a log export must never
// execute anything when a treasurer opens it.

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: guarded against formulas, quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * A header row and the rows, CRLF-terminated, after a UTF-8 byte order mark (without it Excel
 * reads the file as the system's legacy code page and garbles non-ASCII names).
 */
export function csvText(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return `\uFEFF${[header, ...rows].map((r) => `${r.map(csvCell).join(',')}\r\n`).join('')}`;
}
