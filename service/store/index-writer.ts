// Writes a batch of the index's confirmed rows through Kysely: multi-row inserts, one round trip
// per chunk (PostgreSQL). SQLite's hot path is sqlite-index-apply.ts; the storage suite runs both.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { IndexRows } from './index-rows.ts';


const CHUNK = 100;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
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
