// The audit.* channels over the store's audit log: a filtered page for the screen, the same filter
// as a CSV file for the export. Read-only: the log is appended to by the use cases alone.
import { exportAuditCsv } from '../core/audit-export.ts';
import type { AuditEntry, AuditFilter, CoordinatorStore } from '../core/store/store.ts';
import type { AuditEntryView, AuditPage } from './contract.ts';
import type { Handlers } from './dispatch.ts';

interface FilterInput {
  wallet_id?: string | undefined;
  payment_id?: string | undefined;
  cosigner?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const filterOf = (f: FilterInput): AuditFilter => ({
  ...(f.wallet_id !== undefined ? { walletId: f.wallet_id } : {}),
  ...(f.payment_id !== undefined ? { paymentId: f.payment_id } : {}),
  ...(f.cosigner !== undefined ? { cosigner: f.cosigner } : {}),
  ...(f.from !== undefined ? { fromDay: f.from } : {}),
  ...(f.to !== undefined ? { toDay: f.to } : {}),
});

export function createAuditHandlers(store: CoordinatorStore, today: () => string = () => new Date().toISOString().slice(0, 10)): Pick<Handlers, 'audit.list' | 'audit.export'> {
  const view = (names: Map<string, string>) => (e: AuditEntry): AuditEntryView => ({
    id: e.id,
    at: e.at,
    actor: e.actor,
    action: e.action,
    wallet_id: e.walletId,
    wallet_name: e.walletId ? (names.get(e.walletId) ?? null) : null,
    payment_id: e.paymentId,
    cosigner: e.cosigner,
    detail: e.detail,
    source: e.source,
  });

  return {
    'audit.list': async (input): Promise<AuditPage> => {
      const wallets = store.wallets();
      const names = new Map(wallets.map((w) => [w.id, w.name]));
      const page = store.auditTrail.page(filterOf(input), input.limit, input.offset);
      const cosigners = new Set([...wallets.flatMap((w) => store.cosigners(w.id).map((c) => c.name)), ...store.auditTrail.cosigners()]);
      return {
        total: page.total,
        entries: page.entries.map(view(names)),
        wallets: wallets.map((w) => ({ id: w.id, name: w.name })),
        payments: store.payments().map((p) => ({ id: p.id, wallet_id: p.walletId, label: `${names.get(p.walletId) ?? p.walletId}: ${p.to.slice(0, 12)}… (${p.createdAt.slice(0, 10)}, ${p.state})` })),
        cosigners: [...cosigners].sort((a, b) => a.localeCompare(b)),
      };
    },
    'audit.export': async (input) => {
      const f = exportAuditCsv(store, filterOf(input), today());
      return { file_name: f.fileName, text: f.text };
    },
  };
}
