// The audit log as a CSV file: the entries the treasurer filtered, newest first, one row each,
// with the wallet's name beside its id so the file reads on its own.
import { csvText } from './csv.ts';
import type { AuditEntry, AuditFilter, CoordinatorStore } from './store/store.ts';

export const AUDIT_CSV_HEADER = ['time', 'actor', 'action', 'wallet_id', 'wallet', 'payment', 'cosigner', 'details', 'source'] as const;

/** The rows of the file, cell by cell in AUDIT_CSV_HEADER's order. Pure. */
export function auditRows(entries: readonly AuditEntry[], walletName: (id: string) => string | null): string[][] {
  return entries.map((e) => [e.at, e.actor, e.action, e.walletId ?? '', e.walletId ? (walletName(e.walletId) ?? '') : '', e.paymentId ?? '', e.cosigner ?? '', e.detail, e.source ?? '']);
}

/** File name and text of the filtered log; `today` (YYYY-MM-DD) names the file. */
export function exportAuditCsv(store: CoordinatorStore, filter: AuditFilter, today: string): { fileName: string; text: string; count: number } {
  const entries = store.auditTrail.matching(filter);
  const text = csvText(AUDIT_CSV_HEADER, auditRows(entries, (id) => store.wallet(id)?.name ?? null));
  return { fileName: `countersign-audit-${today}.csv`, text, count: entries.length };
}
