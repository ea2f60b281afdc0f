// The account tables of the desk's SQLite store (migration 3): accounts, their tokens and the sends
// made from them. Shares the CoordinatorStore's connection, so its transaction() covers these too.
import type Database from 'better-sqlite3';

export type AccountKind = 'software' | 'ledger';
export type SendState = 'proposed' | 'broadcast' | 'confirmed' | 'cancelled' | 'failed';

export interface AccountRow {
  id: string;
  name: string;
  kind: AccountKind;
  /** EIP-55. */
  address: string;
  chainId: bigint;
  /** Where a Ledger (or the recovery words) derive the key; null for a raw private key. */
  derivationPath: string | null;
  createdAt: string;
}

export interface TokenRow {
  /** EIP-55 contract address. */
  contract: string;
  symbol: string;
  decimals: number;
}

export interface SendRow {
  id: string;
  accountId: string;
  /** null for Ether. */
  token: TokenRow | null;
  to: string;
  /** In the smallest unit: wei, or the token's raw units. */
  amount: bigint;
  /** The EIP-155 payload the service built and this desk verified. */
  unsignedTx: Uint8Array;
  hash: Uint8Array;
  state: SendState;
  reason: string | null;
  txid: string | null;
  confirmations: number;
  createdAt: string;
  updatedAt: string;
}

interface RawSend {
  id: string;
  account_id: string;
  token: string | null;
  token_symbol: string | null;
  token_decimals: number | null;
  to_address: string;
  amount: string;
  unsigned_tx: Buffer;
  hash: Buffer;
  state: SendState;
  reason: string | null;
  txid: string | null;
  confirmations: number;
  created_at: string;
  updated_at: string;
}

const now = (): string => new Date().toISOString();

function sendOf(r: RawSend): SendRow {
  return {
    id: r.id,
    accountId: r.account_id,
    token: r.token === null ? null : { contract: r.token, symbol: r.token_symbol ?? '?', decimals: r.token_decimals ?? 0 },
    to: r.to_address,
    amount: BigInt(r.amount),
    unsignedTx: new Uint8Array(r.unsigned_tx),
    hash: new Uint8Array(r.hash),
    state: r.state,
    reason: r.reason,
    txid: r.txid,
    confirmations: r.confirmations,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class AccountStore {
  constructor(private readonly db: Database.Database) {}

  insert(a: AccountRow, tokens: readonly TokenRow[] = []): void {
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO accounts (id, name, kind, address, chain_id, derivation_path, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(a.id, a.name, a.kind, a.address, a.chainId.toString(), a.derivationPath, a.createdAt);
      for (const t of tokens) this.addToken(a.id, t);
    })();
  }

  get(id: string): AccountRow | null {
    const r = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as
      | { id: string; name: string; kind: AccountKind; address: string; chain_id: string; derivation_path: string | null; created_at: string }
      | undefined;
    return r ? { id: r.id, name: r.name, kind: r.kind, address: r.address, chainId: BigInt(r.chain_id), derivationPath: r.derivation_path, createdAt: r.created_at } : null;
  }

  byAddress(address: string, chainId: bigint): AccountRow | null {
    const r = this.db.prepare('SELECT id FROM accounts WHERE lower(address) = lower(?) AND chain_id = ?').get(address, chainId.toString()) as { id: string } | undefined;
    return r ? this.get(r.id) : null;
  }

  list(): AccountRow[] {
    const ids = this.db.prepare('SELECT id FROM accounts ORDER BY created_at, id').all() as { id: string }[];
    return ids.map((r) => this.get(r.id)).filter((a): a is AccountRow => a !== null);
  }

  /** False when the account already lists this contract. */
  addToken(accountId: string, t: TokenRow): boolean {
    const res = this.db
      .prepare('INSERT OR IGNORE INTO account_tokens (account_id, contract, symbol, decimals, added_at) VALUES (?, ?, ?, ?, ?)')
      .run(accountId, t.contract, t.symbol, t.decimals, now());
    return res.changes === 1;
  }

  tokens(accountId: string): TokenRow[] {
    return (this.db.prepare('SELECT contract, symbol, decimals FROM account_tokens WHERE account_id = ? ORDER BY added_at, contract').all(accountId) as TokenRow[]).map((t) => ({ ...t }));
  }

  insertSend(s: Pick<SendRow, 'id' | 'accountId' | 'token' | 'to' | 'amount' | 'unsignedTx' | 'hash'>): void {
    const at = now();
    this.db
      .prepare(
        `INSERT INTO account_sends (id, account_id, token, token_symbol, token_decimals, to_address, amount, unsigned_tx, hash, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'proposed', ?, ?)`,
      )
      .run(s.id, s.accountId, s.token?.contract ?? null, s.token?.symbol ?? null, s.token?.decimals ?? null, s.to, s.amount.toString(), s.unsignedTx, s.hash, at, at);
  }

  send(id: string): SendRow | null {
    const r = this.db.prepare('SELECT * FROM account_sends WHERE id = ?').get(id) as RawSend | undefined;
    return r ? sendOf(r) : null;
  }

  /** Newest first. */
  sends(accountId: string): SendRow[] {
    return (this.db.prepare('SELECT * FROM account_sends WHERE account_id = ? ORDER BY created_at DESC, rowid DESC').all(accountId) as RawSend[]).map(sendOf);
  }

  updateSend(id: string, change: { state?: SendState; reason?: string | null; txid?: string | null; confirmations?: number }): void {
    const sets: string[] = ['updated_at = @updated_at'];
    const values: Record<string, string | number | null> = { id, updated_at: now() };
    for (const [k, col] of [['state', 'state'], ['reason', 'reason'], ['txid', 'txid'], ['confirmations', 'confirmations']] as const) {
      const v = change[k];
      if (v !== undefined) {
        sets.push(`${col} = @${col}`);
        values[col] = v;
      }
    }
    this.db.prepare(`UPDATE account_sends SET ${sets.join(', ')} WHERE id = @id`).run(values);
  }
}
