// The ledger_registrations table of the desk's SQLite store (migration 4): a wallet policy
// registered on co-signer `position`'s Ledger, exactly as registered, with the device's HMAC.
// Shares the CoordinatorStore's connection, so its transaction() covers these writes too.
import type Database from 'better-sqlite3';

/** keyInfos in wallet order, as the policy lists them. */
export interface LedgerRegistrationRow {
  position: number;
  policyName: string;
  descriptorTemplate: string;
  keyInfos: string[];
  policyId: Uint8Array;
  hmac: Uint8Array;
  registeredAt: string;
}

interface RawRow {
  position: number;
  policy_name: string;
  descriptor_template: string;
  key_infos: string;
  policy_id: Buffer;
  hmac: Buffer;
  registered_at: string;
}

export class LedgerRegistrations {
  constructor(private readonly db: Database.Database) {}

  /** Registering again (a reset device, a new HMAC) replaces the earlier row. */
  put(walletId: string, r: LedgerRegistrationRow): void {
    this.db
      .prepare(
        `INSERT INTO ledger_registrations (wallet_id, position, policy_name, descriptor_template, key_infos, policy_id, hmac, registered_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (wallet_id, position) DO UPDATE SET policy_name = excluded.policy_name, descriptor_template = excluded.descriptor_template,
           key_infos = excluded.key_infos, policy_id = excluded.policy_id, hmac = excluded.hmac, registered_at = excluded.registered_at`,
      )
      .run(walletId, r.position, r.policyName, r.descriptorTemplate, JSON.stringify(r.keyInfos), r.policyId, r.hmac, r.registeredAt);
  }

  list(walletId: string): LedgerRegistrationRow[] {
    const rows = this.db.prepare('SELECT * FROM ledger_registrations WHERE wallet_id = ? ORDER BY position').all(walletId) as RawRow[];
    return rows.map((r) => ({
      position: r.position,
      policyName: r.policy_name,
      descriptorTemplate: r.descriptor_template,
      keyInfos: JSON.parse(r.key_infos) as string[],
      policyId: new Uint8Array(r.policy_id),
      hmac: new Uint8Array(r.hmac),
      registeredAt: r.registered_at,
    }));
  }
}
