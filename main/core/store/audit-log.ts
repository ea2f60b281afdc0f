// The audit log table of the desk's SQLite store: appended to by every use case, never edited
// (triggers refuse it, migration 1), read back newest first and filtered for the audit screen.
// Shares the CoordinatorStore's connection, so an entry commits with the change it records.
import type Database from 'better-sqlite3';

/** What an entry is about, for filtering: a payment's wallet is filled in from the payment. */
export interface AuditAbout {
  walletId?: string;
  paymentId?: string;
  /** The co-signer's name, as the wallet lists it. */
  cosigner?: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  detail: string;
  source: string | null;
  walletId: string | null;
  paymentId: string | null;
  cosigner: string | null;
}

/** Every field narrows; absent fields do not. Dates are UTC days (YYYY-MM-DD), both inclusive. */
export interface AuditFilter {
  walletId?: string;
  paymentId?: string;
  cosigner?: string;
  fromDay?: string;
  toDay?: string;
}

interface RawEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  detail: string;
  source: string | null;
  wallet_id: string | null;
  payment_id: string | null;
  cosigner: string | null;
}

const entryOf = (r: RawEntry): AuditEntry => ({
  id: r.id,
  at: r.at,
  actor: r.actor,
  action: r.action,
  detail: r.detail,
  source: r.source,
  walletId: r.wallet_id,
  paymentId: r.payment_id,
  cosigner: r.cosigner,
});

/** The day after a YYYY-MM-DD day, as the exclusive upper bound of `at` (ISO strings sort as time). */
function dayAfter(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

function where(f: AuditFilter): { sql: string; params: Record<string, string> } {
  const conditions: [string, string | undefined][] = [
    ['wallet_id = @wallet_id', f.walletId],
    ['payment_id = @payment_id', f.paymentId],
    ['cosigner = @cosigner', f.cosigner],
    ['at >= @from', f.fromDay === undefined ? undefined : `${f.fromDay}T00:00:00.000Z`],
    ['at < @to', f.toDay === undefined ? undefined : dayAfter(f.toDay)],
  ];
  const used = conditions.filter((c): c is [string, string] => c[1] !== undefined);
  const params = Object.fromEntries(used.map(([sql, value]) => [/@(\w+)/.exec(sql)![1]!, value]));
  return { sql: used.length ? `WHERE ${used.map(([sql]) => sql).join(' AND ')}` : '', params };
}

export class AuditLog {
  constructor(private readonly db: Database.Database) {}

  append(entry: { at: string; actor: string; action: string; detail: string; source: string | null }, about: AuditAbout): void {
    const walletId =
      about.walletId ??
      (about.paymentId !== undefined ? ((this.db.prepare('SELECT wallet_id FROM payments WHERE id = ?').get(about.paymentId) as { wallet_id: string } | undefined)?.wallet_id ?? null) : null);
    this.db
      .prepare('INSERT INTO audit_log (at, actor, action, detail, source, wallet_id, payment_id, cosigner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(entry.at, entry.actor, entry.action, entry.detail, entry.source, walletId, about.paymentId ?? null, about.cosigner ?? null);
  }

  /** Oldest first: the log as it was written. */
  all(): AuditEntry[] {
    return (this.db.prepare('SELECT * FROM audit_log ORDER BY id').all() as RawEntry[]).map(entryOf);
  }

  /** The entries `filter` keeps, newest first: `limit` of them from `offset`, and how many there are. */
  page(filter: AuditFilter, limit: number, offset: number): { total: number; entries: AuditEntry[] } {
    const w = where(filter);
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM audit_log ${w.sql}`).get(w.params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM audit_log ${w.sql} ORDER BY id DESC LIMIT @limit OFFSET @offset`).all({ ...w.params, limit, offset }) as RawEntry[];
    return { total, entries: rows.map(entryOf) };
  }

  /** Every entry `filter` keeps, newest first (for the export). */
  matching(filter: AuditFilter): AuditEntry[] {
    const w = where(filter);
    return (this.db.prepare(`SELECT * FROM audit_log ${w.sql} ORDER BY id DESC`).all(w.params) as RawEntry[]).map(entryOf);
  }

  /** The newest entry's id (0 for an empty log): it grows with every change the desk records. */
  lastId(): number {
    return (this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM audit_log').get() as { id: number }).id;
  }

  /** The co-signer names entries name, for the filter's choices. */
  cosigners(): string[] {
    return (this.db.prepare('SELECT DISTINCT cosigner FROM audit_log WHERE cosigner IS NOT NULL ORDER BY cosigner').all() as { cosigner: string }[]).map((r) => r.cosigner);
  }
}
