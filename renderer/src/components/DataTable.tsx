// A table of rows described by their columns: one place for the header row, number alignment,
// row test ids and what shows instead while there are no rows, so each screen says only what a
// column shows.
import type { MouseEvent, ReactNode } from 'react';
import { go } from '../navigation.ts';

export interface Column<R> {
  head: ReactNode;
  cell: (row: R) => ReactNode;
  /** A number column: head and cells right-aligned. */
  num?: boolean;
  /** The cells' classes besides `num`. */
  className?: string;
  /** The row's own header cell (<th scope="row">). */
  rowHeader?: boolean;
  /** A tooltip for the cell (the full value of a shortened one). */
  title?: (row: R) => string;
}

/** A click anywhere on a row opens `rowHref`; keyboard users reach the same place by the link a cell holds. */
export function DataTable<R>(props: { columns: readonly Column<R>[]; rows: readonly R[]; rowKey: (row: R) => string; empty: string; testId?: string; rowTestId?: string; rowHref?: (row: R) => string }) {
  const { columns, rows, rowKey, empty, testId, rowTestId, rowHref } = props;
  const open = (r: R) => (e: MouseEvent) => {
    // A link or button inside the row does its own thing; so does selecting text in it.
    if (!rowHref || (e.target instanceof Element && e.target.closest('a, button, input, select, textarea')) || window.getSelection()?.toString()) return;
    go(rowHref(r));
  };
  if (rows.length === 0) return <p className="muted">{empty}</p>;
  return (
    <table {...(testId ? { 'data-testid': testId } : {})}>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" className={c.num ? 'num' : undefined}>
              {c.head}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)} {...(rowTestId ? { 'data-testid': rowTestId } : {})} {...(rowHref ? { className: 'row-link', onClick: open(r) } : {})}>
            {columns.map((c, i) => {
              const cell = { className: [c.num ? 'num' : '', c.className ?? ''].filter(Boolean).join(' ') || undefined, title: c.title?.(r) };
              return c.rowHeader ? (
                <th key={i} scope="row" {...cell}>
                  {c.cell(r)}
                </th>
              ) : (
                <td key={i} {...cell}>
                  {c.cell(r)}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
