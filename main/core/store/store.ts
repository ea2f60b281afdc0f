// The app's SQLite store (better-sqlite3, WAL): typed reads and writes of wallets, payments,
// signatures and the audit log. Writes that belong together go through transaction().
import Database from 'better-sqlite3';
import type { CoinName, NetworkName } from '../../../shared/coins/index.ts';
import type { MultisigScriptType } from '../../../shared/coins/multisig-script.ts';
import type { SignerDevice } from '../../../shared/api/signer-devices.ts';
import { AccountStore } from './account-store.ts';
import { LedgerRegistrations } from './registrations.ts';
import { AuditLog, type AuditAbout, type AuditEntry } from './audit-log.ts';
import { LabelStore } from './labels.ts';
import { RelayStore } from './relay-store.ts';
import { MIGRATIONS } from './migrations.ts';

export type PaymentState = 'awaiting_signatures' | 'ready' | 'broadcast' | 'confirmed' | 'cancelled' | 'failed';
/** What a payment is for (migration 8): an ordinary one, a fee bump or cancel of another (BIP125), a child paying for its parent. */
export type PaymentKind = 'payment' | 'bump' | 'cancel' | 'cpfp';

export interface WalletRow {
  id: string;
  coin: CoinName;
  network: NetworkName;
  name: string;
  m: number;
  createdAt: string;
  /** How the wallet's addresses pay to the multisig script (migration 6; older wallets: p2sh). */
  scriptType: MultisigScriptType;
  /** BIP67 key order in every script; false: co-signer order (older wallets, the original API). */
  sortKeys: boolean;
  /** The first block that can concern the wallet (migration 10); null: unknown, read from the beginning. */
  birthdayHeight: number | null;
  birthdaySource: BirthdaySource | null;
  /** How the keys make the scripts (migration 11): M of N, or a miniscript vault. Absent: multisig. */
  kind?: WalletKind;
  /** A vault's BIP388 descriptor template over the co-signers (@0 is position 0); null for multisig. */
  vaultTemplate?: string | null;
}

export type WalletKind = 'multisig' | 'miniscript';

/** Where a wallet's birthday came from (migration 10). */
export type BirthdaySource = 'tip' | 'file' | 'date' | 'genesis';

/** A "rescan from…" the treasurer asked for. */
export interface RescanRow {
  id: number;
  walletId: string;
  fromHeight: number;
  requestedAt: string;
  requestedBy: string;
}

/** A wallet to store: without a script type and key order it is P2SH with keys as given; without a birthday, none is known. */
export type NewWalletRow = Omit<WalletRow, 'scriptType' | 'sortKeys' | 'birthdayHeight' | 'birthdaySource'> & Partial<Pick<WalletRow, 'scriptType' | 'sortKeys' | 'birthdayHeight' | 'birthdaySource'>>;

export interface CosignerRow {
  position: number;
  name: string;
  xpub: string;
  /** Master key fingerprint (hex), as the co-signer's device reports it. */
  fingerprint: string;
  /** Path from the master key to the xpub, e.g. m/45'/0'. Informational: we derive below the xpub. */
  derivationPath: string;
  /** The co-signer's kind of air-gapped signer (migration 15), for the QR dialogs; null or absent: not said. */
  device?: SignerDevice | null;
}

export interface AddressRow {
  change: boolean;
  index: number;
  address: string;
  /**
   * The multisig script the signatures are checked against: the redeem script (p2sh), the witness
   * script (p2wsh, and p2sh-p2wsh, whose redeem script 0020<sha256(it)> follows from it).
   */
  redeemScript: Uint8Array;
}

export interface PaymentRow {
  id: string;
  walletId: string;
  to: string;
  amount: bigint;
  minersFee: bigint;
  operatorFee: bigint | null;
  operatorAddress: string | null;
  unsignedTx: Uint8Array;
  totalInputValue: bigint;
  state: PaymentState;
  reason: string | null;
  lastError: string | null;
  txid: string | null;
  confirmations: number;
  createdAt: string;
  updatedAt: string;
  kind: PaymentKind;
  /** The payment this one replaces (bump, cancel); null otherwise. */
  replaces: string | null;
  /** The payment that dropped this one: it confirmed spending the same inputs, or it replaced this one's parent (dropped.ts); null otherwise. */
  droppedBy: string | null;
  /** The transaction that dropped it, when the desk holds no payment of it (a replacement from elsewhere); null otherwise. */
  droppedByTxid: string | null;
  /** A dropped payment can never confirm: what it conflicts with is buried (dropped.ts); until then the follower looks at it. */
  droppedFinal: boolean;
}

export interface PaymentInputRow {
  inputIndex: number;
  amount: bigint;
  change: boolean;
  index: number;
  redeemScript: Uint8Array;
}

/** One recipient of a payment, in output order; label '' for none. */
export interface PaymentRecipientRow {
  address: string;
  amount: bigint;
  label: string;
}

export interface PaymentHashRow {
  inputIndex: number;
  publicKey: Uint8Array;
  hash: Uint8Array;
}

export interface SignatureRow {
  inputIndex: number;
  publicKey: Uint8Array;
  signature: Uint8Array;
  source: string;
  createdAt: string;
}

export type { AuditAbout, AuditEntry, AuditFilter } from './audit-log.ts';

const bytes = (b: unknown): Uint8Array => new Uint8Array(b as Buffer);
const now = (): string => new Date().toISOString();

interface RawPayment {
  id: string;
  wallet_id: string;
  to_address: string;
  amount: string;
  miners_fee: string;
  operator_fee: string | null;
  operator_address: string | null;
  unsigned_tx: Buffer;
  total_input_value: string;
  state: PaymentState;
  reason: string | null;
  last_error: string | null;
  txid: string | null;
  confirmations: number;
  created_at: string;
  updated_at: string;
  kind: PaymentKind;
  replaces: string | null;
  dropped_by: string | null;
  dropped_by_txid: string | null;
  dropped_final: number;
}

function paymentOf(r: RawPayment): PaymentRow {
  return {
    id: r.id,
    walletId: r.wallet_id,
    to: r.to_address,
    amount: BigInt(r.amount),
    minersFee: BigInt(r.miners_fee),
    operatorFee: r.operator_fee === null ? null : BigInt(r.operator_fee),
    operatorAddress: r.operator_address,
    unsignedTx: bytes(r.unsigned_tx),
    totalInputValue: BigInt(r.total_input_value),
    state: r.state,
    reason: r.reason,
    lastError: r.last_error,
    txid: r.txid,
    confirmations: r.confirmations,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    kind: r.kind,
    replaces: r.replaces,
    droppedBy: r.dropped_by,
    droppedByTxid: r.dropped_by_txid,
    droppedFinal: r.dropped_final === 1,
  };
}

export interface NewPayment
  extends Pick<PaymentRow, 'id' | 'walletId' | 'to' | 'amount' | 'minersFee' | 'operatorFee' | 'operatorAddress' | 'unsignedTx' | 'totalInputValue'> {
  inputs: readonly PaymentInputRow[];
  hashes: readonly PaymentHashRow[];
  /** Absent: an ordinary payment that replaces nothing. */
  kind?: PaymentKind;
  replaces?: string | null;
  /** Every recipient, in output order; absent for a one-recipient payment (payments.to says it). */
  recipients?: readonly PaymentRecipientRow[];
}

export class CoordinatorStore {
  private readonly db: Database.Database;
  /** Ether accounts, their tokens and sends (main/core/accounts), on this same connection. */
  readonly accounts: AccountStore;
  /** Wallet policies registered on co-signers' Ledgers (main/core/ledger), on this same connection. */
  readonly ledger: LedgerRegistrations;
  /** The append-only audit log (audit-log.ts), on this same connection. */
  readonly auditTrail: AuditLog;
  /** Labels on a wallet's addresses, transactions, outputs, xpubs and payments (labels.ts). */
  readonly labels: LabelStore;
  /** The relay's rooms, inbox, approvals and approval rules (relay-store.ts), on this same connection. */
  readonly relay: RelayStore;

  constructor(path: string) {
    this.db = new Database(path);
    // WAL + synchronous=FULL: a commit is on disk when it returns, so a killed process loses nothing committed.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.migrate();
    this.accounts = new AccountStore(this.db);
    this.ledger = new LedgerRegistrations(this.db);
    this.auditTrail = new AuditLog(this.db);
    this.labels = new LabelStore(this.db);
    this.relay = new RelayStore(this.db);
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    for (let v = version; v < MIGRATIONS.length; v++) {
      this.transaction(() => {
        this.db.exec(MIGRATIONS[v] ?? '');
        this.db.pragma(`user_version = ${v + 1}`);
      });
    }
  }

  /** Runs `fn` in one SQLite transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }

  // ---- wallets ---------------------------------------------------------------------------------

  insertWallet(w: NewWalletRow, cosigners: readonly CosignerRow[]): void {
    this.transaction(() => {
      this.db
        .prepare('INSERT INTO wallets (id, coin, network, name, m, created_at, script_type, sort_keys, birthday_height, birthday_source, kind, vault_template) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(w.id, w.coin, w.network, w.name, w.m, w.createdAt, w.scriptType ?? 'p2sh', w.sortKeys === true ? 1 : 0, w.birthdayHeight ?? null, w.birthdaySource ?? null, w.vaultTemplate ? 'miniscript' : 'multisig', w.vaultTemplate ?? null);
      const ins = this.db.prepare('INSERT INTO cosigners (wallet_id, position, name, xpub, fingerprint, derivation_path, device) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const c of cosigners) ins.run(w.id, c.position, c.name, c.xpub, c.fingerprint, c.derivationPath, c.device ?? null);
    });
  }

  wallet(id: string): WalletRow | null {
    const r = this.db.prepare('SELECT * FROM wallets WHERE id = ?').get(id) as
      | { id: string; coin: CoinName; network: NetworkName; name: string; m: number; created_at: string; script_type: MultisigScriptType; sort_keys: number; birthday_height: number | null; birthday_source: BirthdaySource | null; kind: WalletKind; vault_template: string | null }
      | undefined;
    return r
      ? {
          id: r.id,
          coin: r.coin,
          network: r.network,
          name: r.name,
          m: r.m,
          createdAt: r.created_at,
          scriptType: r.script_type,
          sortKeys: r.sort_keys === 1,
          birthdayHeight: r.birthday_height,
          birthdaySource: r.birthday_source,
          kind: r.kind,
          vaultTemplate: r.vault_template,
        }
      : null;
  }

  insertRescan(walletId: string, fromHeight: number, requestedBy: string): RescanRow {
    const requestedAt = now();
    const r = this.db.prepare('INSERT INTO wallet_rescans (wallet_id, from_height, requested_at, requested_by) VALUES (?, ?, ?, ?)').run(walletId, fromHeight, requestedAt, requestedBy);
    return { id: Number(r.lastInsertRowid), walletId, fromHeight, requestedAt, requestedBy };
  }

  /** The rescans asked for the wallet, newest first. */
  rescans(walletId: string): RescanRow[] {
    const rows = this.db.prepare('SELECT * FROM wallet_rescans WHERE wallet_id = ? ORDER BY id DESC').all(walletId) as { id: number; wallet_id: string; from_height: number; requested_at: string; requested_by: string }[];
    return rows.map((r) => ({ id: r.id, walletId: r.wallet_id, fromHeight: r.from_height, requestedAt: r.requested_at, requestedBy: r.requested_by }));
  }

  wallets(): WalletRow[] {
    const ids = this.db.prepare('SELECT id FROM wallets ORDER BY created_at, id').all() as { id: string }[];
    return ids.map((r) => this.wallet(r.id)).filter((w): w is WalletRow => w !== null);
  }

  cosigners(walletId: string): CosignerRow[] {
    const rows = this.db.prepare('SELECT * FROM cosigners WHERE wallet_id = ? ORDER BY position').all(walletId) as {
      position: number;
      name: string;
      xpub: string;
      fingerprint: string;
      derivation_path: string;
      device: SignerDevice | null;
    }[];
    return rows.map((r) => ({ position: r.position, name: r.name, xpub: r.xpub, fingerprint: r.fingerprint, derivationPath: r.derivation_path, device: r.device }));
  }

  /** Sets (or with null, forgets) one co-signer's device; false when the wallet has no co-signer at that position. */
  setCosignerDevice(walletId: string, position: number, device: SignerDevice | null): boolean {
    return this.db.prepare('UPDATE cosigners SET device = ? WHERE wallet_id = ? AND position = ?').run(device, walletId, position).changes === 1;
  }

  insertAddresses(walletId: string, rows: readonly AddressRow[]): void {
    this.transaction(() => {
      const ins = this.db.prepare('INSERT OR IGNORE INTO addresses (wallet_id, change, idx, address, redeem_script) VALUES (?, ?, ?, ?, ?)');
      for (const a of rows) ins.run(walletId, a.change ? 1 : 0, a.index, a.address, a.redeemScript);
    });
  }

  addresses(walletId: string): AddressRow[] {
    const rows = this.db.prepare('SELECT * FROM addresses WHERE wallet_id = ? ORDER BY change, idx').all(walletId) as {
      change: number;
      idx: number;
      address: string;
      redeem_script: Buffer;
    }[];
    return rows.map((r) => ({ change: r.change === 1, index: r.idx, address: r.address, redeemScript: bytes(r.redeem_script) }));
  }

  // ---- payments --------------------------------------------------------------------------------

  insertPayment(p: NewPayment): void {
    this.transaction(() => {
      const at = now();
      this.db
        .prepare(
          `INSERT INTO payments (id, wallet_id, to_address, amount, miners_fee, operator_fee, operator_address, unsigned_tx, total_input_value, state, created_at, updated_at, kind, replaces)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'awaiting_signatures', ?, ?, ?, ?)`,
        )
        .run(p.id, p.walletId, p.to, p.amount.toString(), p.minersFee.toString(), p.operatorFee?.toString() ?? null, p.operatorAddress, p.unsignedTx, p.totalInputValue.toString(), at, at, p.kind ?? 'payment', p.replaces ?? null);
      const inp = this.db.prepare('INSERT INTO payment_inputs (payment_id, input_index, amount, change, idx, redeem_script) VALUES (?, ?, ?, ?, ?, ?)');
      for (const i of p.inputs) inp.run(p.id, i.inputIndex, i.amount.toString(), i.change ? 1 : 0, i.index, i.redeemScript);
      const h = this.db.prepare('INSERT INTO payment_hashes (payment_id, input_index, public_key, hash) VALUES (?, ?, ?, ?)');
      for (const x of p.hashes) h.run(p.id, x.inputIndex, x.publicKey, x.hash);
      const r = this.db.prepare('INSERT INTO payment_recipients (payment_id, position, address, amount, label) VALUES (?, ?, ?, ?, ?)');
      (p.recipients ?? []).forEach((x, i) => r.run(p.id, i, x.address, x.amount.toString(), x.label));
    });
  }

  /** A payment's recipients in output order: the stored batch, else its one recipient. */
  paymentRecipients(paymentId: string): PaymentRecipientRow[] {
    const rows = this.db.prepare('SELECT address, amount, label FROM payment_recipients WHERE payment_id = ? ORDER BY position').all(paymentId) as { address: string; amount: string; label: string }[];
    if (rows.length > 0) return rows.map((r) => ({ address: r.address, amount: BigInt(r.amount), label: r.label }));
    const p = this.payment(paymentId);
    return p ? [{ address: p.to, amount: p.amount, label: '' }] : [];
  }

  payment(id: string): PaymentRow | null {
    const r = this.db.prepare('SELECT * FROM payments WHERE id = ?').get(id) as RawPayment | undefined;
    return r ? paymentOf(r) : null;
  }

  payments(walletId?: string): PaymentRow[] {
    const rows = (walletId === undefined
      ? this.db.prepare('SELECT * FROM payments ORDER BY created_at, id').all()
      : this.db.prepare('SELECT * FROM payments WHERE wallet_id = ? ORDER BY created_at, id').all(walletId)) as RawPayment[];
    return rows.map(paymentOf);
  }

  paymentInputs(paymentId: string): PaymentInputRow[] {
    const rows = this.db.prepare('SELECT * FROM payment_inputs WHERE payment_id = ? ORDER BY input_index').all(paymentId) as {
      input_index: number;
      amount: string;
      change: number;
      idx: number;
      redeem_script: Buffer;
    }[];
    return rows.map((r) => ({ inputIndex: r.input_index, amount: BigInt(r.amount), change: r.change === 1, index: r.idx, redeemScript: bytes(r.redeem_script) }));
  }

  paymentHashes(paymentId: string): PaymentHashRow[] {
    const rows = this.db.prepare('SELECT * FROM payment_hashes WHERE payment_id = ? ORDER BY input_index, rowid').all(paymentId) as {
      input_index: number;
      public_key: Buffer;
      hash: Buffer;
    }[];
    return rows.map((r) => ({ inputIndex: r.input_index, publicKey: bytes(r.public_key), hash: bytes(r.hash) }));
  }

  updatePayment(id: string, change: { state?: PaymentState; reason?: string | null; lastError?: string | null; txid?: string | null; confirmations?: number; droppedBy?: string | null; droppedByTxid?: string | null; droppedFinal?: boolean }): void {
    const sets: string[] = ['updated_at = @updated_at'];
    const values: Record<string, string | number | null> = { id, updated_at: now() };
    const column = { state: 'state', reason: 'reason', lastError: 'last_error', txid: 'txid', confirmations: 'confirmations', droppedBy: 'dropped_by', droppedByTxid: 'dropped_by_txid', droppedFinal: 'dropped_final' } as const;
    for (const [k, col] of Object.entries(column) as [keyof typeof column, string][]) {
      const v = change[k];
      if (v !== undefined) {
        sets.push(`${col} = @${col}`);
        values[col] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
      }
    }
    this.db.prepare(`UPDATE payments SET ${sets.join(', ')} WHERE id = @id`).run(values);
  }

  // ---- signatures ------------------------------------------------------------------------------

  /** False when this (input, key) already has a signature: duplicates are ignored. */
  insertSignature(paymentId: string, s: Omit<SignatureRow, 'createdAt'>): boolean {
    const res = this.db
      .prepare('INSERT OR IGNORE INTO signatures (payment_id, input_index, public_key, signature, source, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(paymentId, s.inputIndex, s.publicKey, s.signature, s.source, now());
    return res.changes === 1;
  }

  signatures(paymentId: string): SignatureRow[] {
    const rows = this.db.prepare('SELECT * FROM signatures WHERE payment_id = ? ORDER BY input_index, created_at, rowid').all(paymentId) as {
      input_index: number;
      public_key: Buffer;
      signature: Buffer;
      source: string;
      created_at: string;
    }[];
    return rows.map((r) => ({ inputIndex: r.input_index, publicKey: bytes(r.public_key), signature: bytes(r.signature), source: r.source, createdAt: r.created_at }));
  }

  // ---- settings ------------------------------------------------------------------------------

  setting(key: string): string | null {
    const r = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return r?.value ?? null;
  }

  /** Writes all values in one transaction; null removes a setting. */
  setSettings(values: Readonly<Record<string, string | null>>): void {
    this.transaction(() => {
      const put = this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
      const del = this.db.prepare('DELETE FROM settings WHERE key = ?');
      for (const [k, v] of Object.entries(values)) {
        if (v === null) del.run(k);
        else put.run(k, v);
      }
    });
  }

  // ---- audit -----------------------------------------------------------------------------------

  /** Appends an entry; `about` says which wallet, payment or co-signer it concerns (for the audit screen's filters). */
  audit(actor: string, action: string, detail: string, source: string | null = null, about: AuditAbout = {}): void {
    this.auditTrail.append({ at: now(), actor, action, detail, source }, about);
  }

  auditLog(): AuditEntry[] {
    return this.auditTrail.all();
  }
}

export function openStore(path: string): CoordinatorStore {
  return new CoordinatorStore(path);
}
