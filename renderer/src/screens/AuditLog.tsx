// The audit log: every entry newest first, filtered by wallet, payment, co-signer and dates, a page
// at a time, and the filtered entries saved as a CSV file (written by the desk, guarded against
// spreadsheet formulas).
import { useState } from 'react';
import type { AuditEntryView } from '../../../main/bridge/contract.ts';
import { call } from '../bridge.ts';
import { DataTable } from '../components/DataTable.tsx';
import { shortId, when } from '../format.ts';
import { href } from '../navigation.ts';
import { Alert, Card, Loading, download, useAction, useLoad } from '../ui.tsx';
import { useDeskRevision } from '../sync.tsx';

const PAGE = 50;

interface Filter {
  wallet_id: string;
  payment_id: string;
  cosigner: string;
  from: string;
  to: string;
}

const NONE: Filter = { wallet_id: '', payment_id: '', cosigner: '', from: '', to: '' };

/** The filter as the bridge takes it: empty fields left out. */
const chosen = (f: Filter) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== '')) as Partial<Filter>;

export function AuditLog() {
  const [filter, setFilter] = useState<Filter>(NONE);
  const [offset, setOffset] = useState(0);
  const log = useLoad(() => call('audit.list', { ...chosen(filter), limit: PAGE, offset }), [JSON.stringify(filter), offset, useDeskRevision()]);
  const exporting = useAction();
  const set = (change: Partial<Filter>) => {
    setFilter((f) => ({ ...f, ...change }));
    setOffset(0);
  };
  const page = log.data;
  const payments = page?.payments.filter((p) => !filter.wallet_id || p.wallet_id === filter.wallet_id) ?? [];
  const save = () =>
    exporting.run(async () => {
      const f = await call('audit.export', chosen(filter));
      download(f.file_name, f.text);
    });
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p className="muted">Everything done at this desk, newest first. The log only grows: no entry can be edited or deleted.</p>
        </div>
        <button type="button" onClick={() => void save()} disabled={exporting.busy} data-testid="audit-export">
          {exporting.busy ? 'Writing the file…' : 'Export CSV'}
        </button>
      </div>
      {exporting.error && <Alert>{exporting.error}</Alert>}
      <Card>
        <div className="filters" role="group" aria-label="Filter the log">
          <label>
            Wallet
            <select value={filter.wallet_id} onChange={(e) => set({ wallet_id: e.target.value, payment_id: '' })} data-testid="audit-wallet">
              <option value="">All wallets</option>
              {page?.wallets.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Payment
            <select value={filter.payment_id} onChange={(e) => set({ payment_id: e.target.value })} data-testid="audit-payment">
              <option value="">All payments</option>
              {payments.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Co-signer
            <select value={filter.cosigner} onChange={(e) => set({ cosigner: e.target.value })} data-testid="audit-cosigner">
              <option value="">All co-signers</option>
              {page?.cosigners.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </label>
          <label>
            From (UTC)
            <input type="date" value={filter.from} onChange={(e) => set({ from: e.target.value })} data-testid="audit-from" />
          </label>
          <label>
            To (UTC)
            <input type="date" value={filter.to} onChange={(e) => set({ to: e.target.value })} data-testid="audit-to" />
          </label>
          {Object.values(filter).some(Boolean) && (
            <button type="button" className="link" onClick={() => set(NONE)} data-testid="audit-clear">
              Clear filters
            </button>
          )}
        </div>
        {log.error && <Alert>{log.error}</Alert>}
        {!page && !log.error && <Loading what="the audit log" />}
        {page && (
          <>
            <p className="muted small" data-testid="audit-count">
              {page.total === 0 ? 'No entries match.' : `Entries ${offset + 1}–${offset + page.entries.length} of ${page.total}`}
            </p>
            <AuditTable entries={page.entries} />
            {page.total > PAGE && (
              <div className="pager">
                <button type="button" onClick={() => setOffset(Math.max(0, offset - PAGE))} disabled={offset === 0} data-testid="audit-newer">
                  ← Newer
                </button>
                <span className="muted small">
                  Page {Math.floor(offset / PAGE) + 1} of {Math.ceil(page.total / PAGE)}
                </span>
                <button type="button" onClick={() => setOffset(offset + PAGE)} disabled={offset + PAGE >= page.total} data-testid="audit-older">
                  Older →
                </button>
              </div>
            )}
          </>
        )}
      </Card>
    </>
  );
}

function AuditTable({ entries }: { entries: AuditEntryView[] }) {
  return (
    <DataTable
      empty="Nothing here yet."
      testId="audit-table"
      rowTestId="audit-row"
      rows={entries}
      rowKey={(e) => String(e.id)}
      columns={[
        { head: 'Time', className: 'small nowrap', title: (e) => e.at, cell: (e) => when(e.at) },
        { head: 'Actor', className: 'small', cell: (e) => e.actor },
        { head: 'Action', className: 'mono small nowrap', cell: (e) => e.action },
        { head: 'Wallet', className: 'small', cell: (e) => (e.wallet_id ? <a href={href.wallet(e.wallet_id)}>{e.wallet_name ?? shortId(e.wallet_id)}</a> : '—') },
        { head: 'Payment', className: 'mono small nowrap', title: (e) => e.payment_id ?? '', cell: (e) => (e.payment_id ? <a href={href.payment(e.payment_id)}>{shortId(e.payment_id)}</a> : '—') },
        { head: 'Co-signer', className: 'small', cell: (e) => e.cosigner ?? '—' },
        {
          head: 'Details',
          className: 'small detail-cell',
          cell: (e) => (
            <>
              {e.detail}
              {e.source && <div className="muted">from {e.source}</div>}
            </>
          ),
        },
      ]}
    />
  );
}
