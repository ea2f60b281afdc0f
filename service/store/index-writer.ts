// Writes a batch of the index's confirmed rows through Kysely on PostgreSQL: multi-row statements,
// one round trip per chunk. SQLite's path is sqlite-index-apply.ts; the storage suite runs both.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { IndexRows, SpendMark } from './index-rows.ts';


const CHUNK = 100;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Marks indexed outputs spent; an output missing or already spent fails the batch. */
async function markSpent(trx: Kysely<Database> | Transaction<Database>, spends: readonly SpendMark[]): Promise<void> {
  const values = sql.join(spends.map((s) => sql`(${s.chain}::text, ${s.txid}::bytea, ${s.vout}::integer, ${s.spent_txid}::bytea, ${s.spent_height}::integer)`));
  const result = await sql`update chain_outputs as o set spent_txid = v.spent_txid, spent_height = v.spent_height
    from (values ${values}) as v(chain, txid, vout, spent_txid, spent_height)
    where o.chain = v.chain and o.txid = v.txid and o.vout = v.vout and o.spent_txid is null`.execute(trx);
  const marked = Number(result.numAffectedRows ?? 0);
  if (marked !== spends.length) throw new Error(`${spends.length - marked} of the ${spends.length} indexed outputs these blocks spend are already spent`);
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
          spent_txid: eb.ref('excluded.spent_txid'),
          spent_height: eb.ref('excluded.spent_height'),
        })),
      )
      .execute();
  }
  for (const part of chunks(rows.spends)) await markSpent(trx, part);
  for (const part of chunks(rows.history)) {
    await trx
      .insertInto('chain_history')
      .values(part)
      .execute();
  }
  for (const part of chunks(rows.balances)) {
    await trx
      .insertInto('chain_balances')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['chain', 'script']).doUpdateSet({ confirmed: sql`chain_balances.confirmed + excluded.confirmed`, tx_count: sql`chain_balances.tx_count + excluded.tx_count` }),
      )
      .execute();
  }
  for (const part of chunks(rows.blocks)) await trx.insertInto('chain_blocks').values(part).execute();
}
