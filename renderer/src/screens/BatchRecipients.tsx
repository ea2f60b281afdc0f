// The recipients of a batch payment: rows typed in, or read from a CSV file (address,amount,label).
// Every row is checked by the desk as it changes; bad rows are listed with their line numbers.
import { useEffect, useState } from 'react';
import type { BatchCheck, Unit } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { Alert, FileDrop } from '../ui.tsx';

export type BatchRow = BatchCheck['rows'][number];

/** How long typing pauses before the rows are checked. */
const CHECK_AFTER_MS = 350;

const renumber = (rows: readonly Omit<BatchRow, 'line'>[]): BatchRow[] => rows.map((r, i) => ({ ...r, line: i + 1 }));
export const emptyRow = (): BatchRow => ({ line: 1, to: '', amount: '', label: '' });

/** The fees as typed (null: none, or not readable yet): with them the batch's total is checked against the wallet. */
export interface BatchFees {
  fee: bigint | null;
  operatorFee: bigint | null;
}

const feeArgs = ({ fee, operatorFee }: BatchFees) => ({ ...(fee !== null ? { miners_fee: fee } : {}), ...(operatorFee !== null ? { operator_fee: operatorFee } : {}) });

/** The desk's refusals of the rows as typed; stale answers are dropped. */
function useBatchCheck(walletId: string, rows: readonly BatchRow[], fees: BatchFees, skip: boolean): BatchCheck['refusals'] | null {
  const [refusals, setRefusals] = useState<BatchCheck['refusals'] | null>(null);
  const key = JSON.stringify([rows, fees.fee?.toString(), fees.operatorFee?.toString()]);
  useEffect(() => {
    if (skip) return;
    let live = true;
    const t = setTimeout(() => {
      call('payments.checkBatch', { wallet_id: walletId, rows: [...rows], ...feeArgs(fees) }).then(
        (c) => live && setRefusals(c.refusals),
        () => live && setRefusals(null),
      );
    }, CHECK_AFTER_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
    // `key` is the rows' value: checked again only when what was typed changes.
  }, [walletId, key, skip]);
  return refusals;
}

/**
 * The rows and their refusals. A file's rows keep the file's line numbers until a row is edited
 * (then they are numbered as the table shows them), so the words match the file the treasurer has.
 */
export function BatchRecipients({ walletId, unit, rows, onRows, onRefusals, ...fees }: { walletId: string; unit: Unit; rows: BatchRow[]; onRows: (rows: BatchRow[]) => void; onRefusals: (count: number | null) => void } & BatchFees) {
  const [fromFile, setFromFile] = useState<{ name: string; refusals: BatchCheck['refusals'] } | null>(null);
  const typedRefusals = useBatchCheck(walletId, rows, fees, fromFile !== null);
  const refusals = fromFile ? fromFile.refusals : typedRefusals;
  useEffect(() => onRefusals(refusals === null ? null : refusals.length), [refusals, onRefusals]);
  // Nothing typed yet: Propose waits, but there is nothing to point out.
  const blank = !fromFile && rows.every((r) => !r.to.trim() && !r.amount.trim() && !r.label.trim());
  // Rows, not refusals, are counted: a row with a bad address and a bad amount is one row refused.
  const rowsRefused = new Set(refusals?.filter((r) => r.line > 0).map((r) => r.line)).size;

  const edit = (i: number, change: Partial<BatchRow>) => {
    setFromFile(null);
    onRows(renumber(rows.map((r, j) => (j === i ? { ...r, ...change } : r))));
  };
  const importCsv = (name: string, text: string) =>
    void call('payments.checkBatch', { wallet_id: walletId, csv: text, ...feeArgs(fees) }).then(
      (c) => {
        setFromFile({ name, refusals: c.refusals });
        onRows(c.rows.length ? c.rows : [emptyRow()]);
      },
      (e: unknown) => setFromFile({ name, refusals: [{ line: 0, message: e instanceof Error ? e.message : String(e) }] }),
    );

  return (
    <div className="batch">
      <table data-testid="batch-rows">
        <thead>
          <tr>
            <th>Line</th>
            <th>Address</th>
            <th>Amount ({unit.ticker})</th>
            <th>Label</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td className="num">{r.line}</td>
              <td>
                <input aria-label={`Address, line ${r.line}`} className="mono batch-to" spellCheck={false} value={r.to} onChange={(e) => edit(i, { to: e.target.value })} data-testid={`batch-to-${i}`} />
              </td>
              <td>
                <input aria-label={`Amount, line ${r.line}`} className="batch-amount" inputMode="decimal" value={r.amount} onChange={(e) => edit(i, { amount: e.target.value })} data-testid={`batch-amount-${i}`} />
              </td>
              <td>
                <input aria-label={`Label, line ${r.line}`} value={r.label} onChange={(e) => edit(i, { label: e.target.value })} data-testid={`batch-label-${i}`} />
              </td>
              <td>
                <button type="button" disabled={rows.length === 1} onClick={() => {
                    setFromFile(null);
                    onRows(renumber(rows.filter((_, j) => j !== i)));
                  }}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="form-actions">
        <button type="button" onClick={() => {
            setFromFile(null);
            onRows(renumber([...rows, emptyRow()]));
          }} data-testid="batch-add">
          Add recipient
        </button>
      </div>
      <FileDrop label="Import recipients from a CSV file" hint={`address,amount,label on each line (a header line is optional); amounts in ${unit.ticker}`} multiple={false} accept=".csv,text/csv,text/plain" testId="batch-csv" onFiles={([f]) => f && importCsv(f.name, f.text)} />
      {refusals && refusals.length > 0 && !blank && (
        <Alert>
          <p>
            {fromFile ? `${fromFile.name}: ` : ''}
            {rowsRefused === 0 ? 'the batch is refused' : rowsRefused === 1 ? 'one row is refused' : `${rowsRefused} rows are refused`}; nothing is proposed until {rowsRefused === 0 ? 'it is' : 'every row is'} right.
          </p>
          <ul data-testid="batch-refusals">
            {refusals.map((r, i) => (
              <li key={i}>{r.message}</li>
            ))}
          </ul>
        </Alert>
      )}
    </div>
  );
}
