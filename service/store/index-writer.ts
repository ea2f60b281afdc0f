// Writes a batch of the index's confirmed rows. Two implementations of one job: SQLite through
// prepared single-row statements (the indexer's hot path), PostgreSQL through multi-row inserts
// (one round trip per chunk). The storage test suite runs both.
import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

export interface IndexRows {
  outputs: Database['chain_outputs'][];
  spends: Database['chain_spends'][];
  history: Database['chain_history'][];
  /** Net change of each script's confirmed balance. */
  balances: Database['chain_balances'][];
  blocks: Database['chain_blocks'][];
}

const CHUNK = 100;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// A repeated coinbase txid (BIP30, two early Bitcoin blocks) overwrites its outputs, as in the node.
const SQL = {
  output:
    'insert into chain_outputs (chain, txid, vout, script, amount, height, position) values (?, ?, ?, ?, ?, ?, ?) ' +
    'on conflict (chain, txid, vout) do update set script = excluded.script, amount = excluded.amount, height = excluded.height, position = excluded.position',
  spend: 'insert into chain_spends (chain, txid, vout, spent_txid, height) values (?, ?, ?, ?, ?)',
  history:
    'insert into chain_history (chain, script, txid, height, position, time, delta) values (?, ?, ?, ?, ?, ?, ?) ' +
    'on conflict (chain, script, txid) do update set delta = chain_history.delta + excluded.delta',
  balance:
    'insert into chain_balances (chain, script, confirmed) values (?, ?, ?) ' +
    'on conflict (chain, script) do update set confirmed = chain_balances.confirmed + excluded.confirmed',
  block: 'insert into chain_blocks (chain, height, hash, time) values (?, ?, ?, ?)',
} as const;

const statements = new WeakMap<BetterSqlite3.Database, Record<keyof typeof SQL, BetterSqlite3.Statement>>();

export function writeIndexRowsSqlite(db: BetterSqlite3.Database, rows: IndexRows): void {
  let s = statements.get(db);
  if (!s) {
    s = {
      output: db.prepare(SQL.output),
      spend: db.prepare(SQL.spend),
      history: db.prepare(SQL.history),
      balance: db.prepare(SQL.balance),
      block: db.prepare(SQL.block),
    };
    statements.set(db, s);
  }
  for (const r of rows.outputs) s.output.run(r.chain, r.txid, r.vout, r.script, r.amount, r.height, r.position);
  for (const r of rows.spends) s.spend.run(r.chain, r.txid, r.vout, r.spent_txid, r.height);
  for (const r of rows.history) s.history.run(r.chain, r.script, r.txid, r.height, r.position, r.time, r.delta);
  for (const r of rows.balances) s.balance.run(r.chain, r.script, r.confirmed);
  for (const r of rows.blocks) s.block.run(r.chain, r.height, r.hash, r.time);
}

export async function writeIndexRowsKysely(trx: Kysely<Database> | Transaction<Database>, rows: IndexRows): Promise<void> {
  for (const part of chunks(rows.outputs)) {
    await trx
      .insertInto('chain_outputs')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['chain', 'txid', 'vout']).doUpdateSet((eb) => ({
          script: eb.ref('excluded.script'),
          amount: eb.ref('excluded.amount'),
          height: eb.ref('excluded.height'),
          position: eb.ref('excluded.position'),
        })),
      )
      .execute();
  }
  for (const part of chunks(rows.spends)) await trx.insertInto('chain_spends').values(part).execute();
  for (const part of chunks(rows.history)) {
    await trx
      .insertInto('chain_history')
      .values(part)
      .onConflict((oc) => oc.columns(['chain', 'script', 'txid']).doUpdateSet((eb) => ({ delta: sql`chain_history.delta + ${eb.ref('excluded.delta')}` })))
      .execute();
  }
  for (const part of chunks(rows.balances)) {
    await trx
      .insertInto('chain_balances')
      .values(part)
      .onConflict((oc) => oc.columns(['chain', 'script']).doUpdateSet({ confirmed: sql`chain_balances.confirmed + excluded.confirmed` }))
      .execute();
  }
  for (const part of chunks(rows.blocks)) await trx.insertInto('chain_blocks').values(part).execute();
}
