// A chain history (wallet or account): when, which transaction, optionally which asset, the signed
// amount and the confirmations; an unconfirmed entry says "pending" instead of a time.
import type { ReactNode } from 'react';
import type { Unit } from '../../../main/bridge/contract.ts';
import { shortId, when } from '../format.ts';
import { Amount } from '../ui.tsx';
import { DataTable, type Column } from './DataTable.tsx';

interface Entry {
  txid: string;
  time: number;
  amount: bigint;
  confirmations: number;
  /** An account's entries name their asset (Ether or a token); a wallet has one. */
  asset?: string;
}

/** `label`: a wallet's entries carry the treasurer's label of each transaction (editable in place). */
export function HistoryTable<E extends Entry>({ entries, unitOf, empty, testId, label }: { entries: readonly E[]; unitOf: (e: E) => Unit; empty: string; testId: string; label?: (e: E) => ReactNode }) {
  const withAsset = entries.some((e) => e.asset !== undefined);
  const columns: Column<E>[] = [
    { head: 'When', className: 'small', cell: (e) => (e.confirmations === 0 ? 'pending' : when(e.time)) },
    { head: 'Transaction', className: 'mono small', title: (e) => e.txid, cell: (e) => shortId(e.txid) },
    ...(label ? [{ head: 'Label', cell: label }] : []),
    ...(withAsset ? [{ head: 'Asset', cell: (e: E) => e.asset }] : []),
    { head: 'Amount', num: true, cell: (e) => <Amount units={e.amount} unit={unitOf(e)} signed /> },
    { head: 'Confirmations', num: true, cell: (e) => e.confirmations },
  ];
  return <DataTable columns={columns} rows={entries} rowKey={(e) => (e.asset === undefined ? e.txid : `${e.txid}-${e.asset}`)} empty={empty} testId={testId} />;
}
