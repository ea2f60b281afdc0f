// A batch payment's recipients: typed in as rows or read from a CSV file (address,amount,label;
// header optional; amounts in the coin's unit). Every row is checked before anything is asked of
// the service, and a bad row is refused with its line number. Pure.
import { amountRefusalWords, parseAmount, type AmountRefusal } from '../../../shared/api/amount-text.ts';
import type { ChainParams } from '../../../shared/coins/index.ts';
import { unitsToDecimal } from '../../../shared/coins/units.ts';
import { CoordinatorError } from '../errors.ts';
import { addressRefusal } from './draft.ts';

export interface Recipient {
  to: string;
  amount: bigint;
  label?: string;
}

/** A row as typed or read: the amount is still text, so a malformed one can be named. */
export interface RecipientRow {
  line: number;
  to: string;
  amount: string;
  label: string;
}

export type RowRefusal =
  | { line: number; kind: 'address'; words: string }
  | { line: number; kind: 'amount'; text: string; refusal: AmountRefusal }
  | { line: number; kind: 'dust'; amount: bigint; limit: bigint }
  | { line: number; kind: 'shape'; words: string }
  | { line: 0; kind: 'insufficient'; recipients: number; paid: bigint; needs: bigint; holds: bigint; fees: boolean };

/** The service takes at most this many outputs in one payment (docs/api-decisions.md, section 8). */
export const MAX_RECIPIENTS = 1000;

/** The cells of one CSV line (RFC 4180 quotes; a line break inside quotes is not supported). */
function cells(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      out.push(cell);
      cell = '';
    } else cell += c;
  }
  out.push(cell);
  return out.map((x) => x.trim());
}

/** The rows of a CSV text, numbered by their line in the file; blank lines are skipped, a header too. */
export function readRecipientsCsv(text: string): { rows: RecipientRow[]; refusals: RowRefusal[] } {
  const rows: RecipientRow[] = [];
  const refusals: RowRefusal[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/)
    .forEach((raw, i) => {
      const line = i + 1;
      if (raw.trim() === '') return;
      const [to = '', amount = '', label = '', ...extra] = cells(raw);
      // A header is a first line that names the columns rather than holding an amount.
      if (rows.length === 0 && refusals.length === 0 && to.toLowerCase() === 'address' && amount.toLowerCase() === 'amount') return;
      if (extra.length > 0) refusals.push({ line, kind: 'shape', words: `has ${3 + extra.length} columns; a row is address,amount,label` });
      else rows.push({ line, to, amount, label });
    });
  return { rows, refusals };
}

const isBlank = (r: RecipientRow): boolean => r.to.trim() === '' && r.amount.trim() === '' && r.label.trim() === '';

/** The rows without the blank ones at the end: the row a treasurer added and has not filled yet is no mistake. */
function withoutTrailingBlanks(rows: readonly RecipientRow[]): readonly RecipientRow[] {
  let end = rows.length;
  while (end > 0 && isBlank(rows[end - 1]!)) end--;
  return rows.slice(0, end);
}

/** Every row checked as a one-recipient draft is (address for the wallet's chain and network, dust). */
export function checkRecipients(params: ChainParams, typed: readonly RecipientRow[]): { recipients: Recipient[]; refusals: RowRefusal[] } {
  const recipients: Recipient[] = [];
  const refusals: RowRefusal[] = [];
  const rows = withoutTrailingBlanks(typed);
  for (const r of rows) {
    if (isBlank(r)) {
      refusals.push({ line: r.line, kind: 'shape', words: 'is empty: type an address and an amount, or remove the row' });
      continue;
    }
    const words = r.to.trim() === '' ? 'has no address' : addressRefusal(params, r.to);
    if (words !== null) refusals.push({ line: r.line, kind: 'address', words });
    const read = parseAmount(r.amount, params.decimals);
    const amount = read.ok ? read.units : null;
    if (!read.ok) refusals.push({ line: r.line, kind: 'amount', text: read.text, refusal: read.refusal });
    else if (read.units < params.dustLimit) refusals.push({ line: r.line, kind: 'dust', amount: read.units, limit: params.dustLimit });
    if (words === null && amount !== null && amount >= params.dustLimit) recipients.push({ to: r.to.trim(), amount, ...(r.label.trim() ? { label: r.label.trim() } : {}) });
  }
  if (rows.length === 0) refusals.push({ line: 0, kind: 'shape', words: 'there are no recipients' });
  if (rows.length > MAX_RECIPIENTS) refusals.push({ line: 0, kind: 'shape', words: `${rows.length} recipients: at most ${MAX_RECIPIENTS} per payment` });
  return { recipients, refusals };
}

/** The sum of the amounts that can be read (a row refused for its address still counts: it is meant to be paid). */
export function typedTotal(params: ChainParams, rows: readonly RecipientRow[]): { paid: bigint; recipients: number } {
  let paid = 0n;
  let recipients = 0;
  for (const r of rows) {
    const read = parseAmount(r.amount, params.decimals);
    if (read.ok) {
      paid += read.units;
      recipients++;
    }
  }
  return { paid, recipients };
}

/**
 * A batch whose amounts and fees (`fees`: the fixed miners' fee and the operator fee as typed) are
 * more than the wallet holds, refused as it is typed. Pure.
 */
export function refuseBatchTotal(params: ChainParams, rows: readonly RecipientRow[], fees: bigint, holds: bigint): RowRefusal | null {
  const { paid, recipients } = typedTotal(params, rows);
  const needs = paid + fees;
  return recipients > 0 && needs > holds ? { line: 0, kind: 'insufficient', recipients, paid, needs, holds, fees: fees > 0n } : null;
}

/** Where a row is: its line in the file, or the whole batch (line 0). */
const where = (line: number): string => (line === 0 ? 'the batch' : `line ${line}`);

/** One refusal in words, amounts in the coin's decimal unit (`ticker` after them). Pure. */
export function rowRefusalWords(r: RowRefusal, decimals: number, ticker: string): string {
  switch (r.kind) {
    case 'address':
      return `${where(r.line)}: ${r.words}`;
    case 'amount':
      return `${where(r.line)}: ${amountRefusalWords(r, { ticker })}`;
    case 'dust':
      return `${where(r.line)}: the amount ${unitsToDecimal(r.amount, decimals)} ${ticker} is below the dust limit of ${unitsToDecimal(r.limit, decimals)} ${ticker}`;
    case 'shape':
      return `${where(r.line)}: ${r.words}`;
    case 'insufficient': {
      const u = (units: bigint) => `${unitsToDecimal(units, decimals)} ${ticker}`;
      const pays = `pays ${r.recipients === 1 ? 'one recipient' : `${r.recipients} recipients`} ${u(r.paid)}`;
      return `${where(r.line)}: the wallet has ${u(r.holds)} free to spend; this batch ${pays}${r.fees ? ` and needs ${u(r.needs)} with the fees` : ''}, more than that`;
    }
  }
}

/** A batch refused before anything was asked of the service: every bad row, with its line. */
export class BatchRefusedError extends CoordinatorError {
  constructor(
    readonly refusals: readonly RowRefusal[],
    readonly params: ChainParams,
  ) {
    super('proposal_refused', `refusing the proposed payment: ${refusals.map((r) => rowRefusalWords(r, params.decimals, params.coin)).join('; ')}`, { field: 'outputs' });
    this.name = 'BatchRefusedError';
  }
}
