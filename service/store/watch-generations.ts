// The generation counter of a chain's watch registrations (migration 0006): every change to
// watch_wallets or watch_scripts bumps it in the same transaction, so each instance sharing the
// store reloads its copy when the counter moved (service/chains/utxo/watch.ts).
import type { Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** Bumps the chain's generation; returns the generation it had before. */
export async function bumpWatchGeneration(trx: Transaction<Database>, chain: string): Promise<bigint> {
  const row = await trx.selectFrom('watch_generations').select('generation').where('chain', '=', chain).executeTakeFirst();
  const before = row ? BigInt(row.generation) : 0n;
  if (row) await trx.updateTable('watch_generations').set({ generation: String(before + 1n) }).where('chain', '=', chain).execute();
  else await trx.insertInto('watch_generations').values({ chain, generation: '1' }).execute();
  return before;
}

/**
 * Drops every registration an API key made, on every chain: nobody can read those wallets any more,
 * so no instance should go on scanning for them. Their index rows stay (watch mode's rows are keyed
 * by script, and another key may watch the same scripts).
 */
export async function dropWatchRegistrationsOf(trx: Transaction<Database>, owner: string): Promise<void> {
  const chains = await trx.selectFrom('watch_wallets').select('chain').distinct().where('owner', '=', owner).execute();
  for (const { chain } of chains) {
    await trx.deleteFrom('watch_scripts').where('chain', '=', chain).where('owner', '=', owner).execute();
    await trx.deleteFrom('watch_wallets').where('chain', '=', chain).where('owner', '=', owner).execute();
    await bumpWatchGeneration(trx, chain);
  }
}
