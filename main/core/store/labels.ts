// The labels table of the desk's store (migration 7): one label per (wallet, type, ref). Shares the
// CoordinatorStore's connection, so a label commits with the audit entry that records it.
import type Database from 'better-sqlite3';

export const LABEL_TYPES = ['tx', 'addr', 'pubkey', 'input', 'output', 'xpub', 'payment'] as const;
export type LabelType = (typeof LABEL_TYPES)[number];

export interface LabelRow {
  type: LabelType;
  ref: string;
  label: string;
  /** Outputs only: whether the treasurer lets payments spend it (BIP329); null: not said. */
  spendable: boolean | null;
  updatedAt: string;
}

interface RawLabel {
  type: LabelType;
  ref: string;
  label: string;
  spendable: number | null;
  updated_at: string;
}

const labelRow = (r: RawLabel): LabelRow => ({ type: r.type, ref: r.ref, label: r.label, spendable: r.spendable === null ? null : r.spendable === 1, updatedAt: r.updated_at });

export class LabelStore {
  constructor(private readonly db: Database.Database) {}

  /** Every label of a wallet, by type then ref. */
  all(walletId: string): LabelRow[] {
    const rows = this.db.prepare('SELECT type, ref, label, spendable, updated_at FROM labels WHERE wallet_id = ? ORDER BY type, ref').all(walletId) as RawLabel[];
    return rows.map(labelRow);
  }

  /** One label, by its key (a payment list asks once per payment: not the whole wallet's labels each time). */
  get(walletId: string, type: LabelType, ref: string): LabelRow | null {
    const r = this.db.prepare('SELECT type, ref, label, spendable, updated_at FROM labels WHERE wallet_id = ? AND type = ? AND ref = ?').get(walletId, type, ref) as RawLabel | undefined;
    return r ? labelRow(r) : null;
  }

  /** Sets (or, with an empty label and no spendable, removes) one label. */
  put(walletId: string, row: Omit<LabelRow, 'updatedAt'>, at: string): void {
    if (row.label === '' && row.spendable === null) {
      this.db.prepare('DELETE FROM labels WHERE wallet_id = ? AND type = ? AND ref = ?').run(walletId, row.type, row.ref);
      return;
    }
    this.db
      .prepare(
        `INSERT INTO labels (wallet_id, type, ref, label, spendable, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (wallet_id, type, ref) DO UPDATE SET label = excluded.label, spendable = excluded.spendable, updated_at = excluded.updated_at`,
      )
      .run(walletId, row.type, row.ref, row.label, row.spendable === null ? null : row.spendable ? 1 : 0, at);
  }
}
