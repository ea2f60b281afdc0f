// Migrations live in code so a fresh SQLite file or PostgreSQL schema is built the same way.
import { type Kysely, type CreateTableBuilder, sql } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';

type Dialect = 'sqlite' | 'postgres';

// Tables whose primary key is their natural key are clustered on it in SQLite (no rowid b-tree
// beside the key's): half the writes per row. The confirmed tables have one secondary index, the
// partial index of unspent outputs (0004): each row written is one b-tree insert, plus one for an
// output that outlives its batch, and a spend one update of its output's row (and the removal of
// its unspent entry). A rollback removes the row plan of the undone blocks (service/index/). Their txids are 32-byte blobs, not hex text: smaller keys, a fifth fewer
// b-tree costs per row.
/**
 * Empties these confirmed tables, the tip (chain_blocks) and the mempool tables, and has every
 * watch-mode wallet scanned again from its birthday: the indexer then builds the index again.
 */
async function forgetIndex(db: Kysely<unknown>, tables: readonly string[]): Promise<void> {
  for (const table of [...tables, 'chain_blocks', 'mempool_outputs', 'mempool_spends', 'mempool_history', 'chain_mempool']) {
    await sql`delete from ${sql.table(table)} where true`.execute(db);
  }
  await sql`update watch_wallets set rescan_from = null, checked_height = null, check_error = null where true`.execute(db);
}

function clustered<T extends string, C extends string>(dialect: Dialect, table: CreateTableBuilder<T, C>): CreateTableBuilder<T, C> {
  return dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table;
}

function migrations(dialect: Dialect): Record<string, Migration> {
  const blob = dialect === 'sqlite' ? 'blob' : 'bytea';
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('label', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('revoked_at', 'bigint')
          .execute();

        await db.schema
          .createTable('chain_blocks')
          .addColumn('chain', 'varchar(32)', (c) => c.notNull())
          .addColumn('height', 'integer', (c) => c.notNull())
          .addColumn('hash', 'varchar(64)', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('chain_blocks_pk', ['chain', 'height'])
          .execute();

        await clustered(
          dialect,
          db.schema
            .createTable('chain_outputs')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('txid', sql.raw(blob), (c) => c.notNull())
            .addColumn('vout', 'integer', (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('amount', 'bigint', (c) => c.notNull())
            .addColumn('height', 'integer', (c) => c.notNull())
            .addColumn('position', 'integer', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_outputs_pk', ['chain', 'txid', 'vout']),
        ).execute();

        await clustered(
          dialect,
          db.schema
            .createTable('chain_spends')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('txid', sql.raw(blob), (c) => c.notNull())
            .addColumn('vout', 'integer', (c) => c.notNull())
            .addColumn('spent_txid', sql.raw(blob), (c) => c.notNull())
            .addColumn('height', 'integer', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_spends_pk', ['chain', 'txid', 'vout']),
        ).execute();

        await clustered(
          dialect,
          db.schema
            .createTable('chain_history')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('txid', sql.raw(blob), (c) => c.notNull())
            .addColumn('height', 'integer', (c) => c.notNull())
            .addColumn('position', 'integer', (c) => c.notNull())
            .addColumn('time', 'bigint', (c) => c.notNull())
            .addColumn('delta', 'bigint', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_history_pk', ['chain', 'script', 'txid']),
        ).execute();

        await clustered(
          dialect,
          db.schema
            .createTable('chain_balances')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('confirmed', 'bigint', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_balances_pk', ['chain', 'script']),
        ).execute();

        await db.schema
          .createTable('chain_mempool')
          .addColumn('chain', 'varchar(32)', (c) => c.notNull())
          .addColumn('txid', 'varchar(64)', (c) => c.notNull())
          .addColumn('first_seen', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('chain_mempool_pk', ['chain', 'txid'])
          .execute();
        await db.schema
          .createTable('mempool_outputs')
          .addColumn('chain', 'varchar(32)', (c) => c.notNull())
          .addColumn('txid', 'varchar(64)', (c) => c.notNull())
          .addColumn('vout', 'integer', (c) => c.notNull())
          .addColumn('script', sql.raw(blob), (c) => c.notNull())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('mempool_outputs_pk', ['chain', 'txid', 'vout'])
          .execute();
        await db.schema.createIndex('mempool_outputs_script').on('mempool_outputs').columns(['chain', 'script']).execute();
        await db.schema
          .createTable('mempool_spends')
          .addColumn('chain', 'varchar(32)', (c) => c.notNull())
          .addColumn('txid', 'varchar(64)', (c) => c.notNull())
          .addColumn('vout', 'integer', (c) => c.notNull())
          .addColumn('spent_txid', 'varchar(64)', (c) => c.notNull())
          .addPrimaryKeyConstraint('mempool_spends_pk', ['chain', 'txid', 'vout'])
          .execute();
        await db.schema.createIndex('mempool_spends_spent_txid').on('mempool_spends').columns(['chain', 'spent_txid']).execute();
        await db.schema
          .createTable('mempool_history')
          .addColumn('chain', 'varchar(32)', (c) => c.notNull())
          .addColumn('txid', 'varchar(64)', (c) => c.notNull())
          .addColumn('script', sql.raw(blob), (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addColumn('delta', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('mempool_history_pk', ['chain', 'txid', 'script'])
          .execute();
        await db.schema.createIndex('mempool_history_script').on('mempool_history').columns(['chain', 'script']).execute();
      },
    },
    // Ether and ERC20 (docs/ethereum-index.md). Amounts are decimal text: token amounts exceed
    // 2^63, and text keeps them exact on both stores.
    '0002_evm': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('evm_blocks')
          .addColumn('chain', 'varchar(48)', (c) => c.notNull())
          .addColumn('height', 'integer', (c) => c.notNull())
          .addColumn('hash', 'varchar(66)', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('evm_blocks_pk', ['chain', 'height'])
          .execute();
        await db.schema
          .createTable('evm_transfers')
          .addColumn('chain', 'varchar(48)', (c) => c.notNull())
          .addColumn('txid', 'varchar(66)', (c) => c.notNull())
          .addColumn('log_index', 'integer', (c) => c.notNull())
          .addColumn('token', 'varchar(42)', (c) => c.notNull())
          .addColumn('from_addr', 'varchar(42)', (c) => c.notNull())
          .addColumn('to_addr', 'varchar(42)', (c) => c.notNull())
          .addColumn('amount', 'text', (c) => c.notNull())
          .addColumn('height', 'integer', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('evm_transfers_pk', ['chain', 'txid', 'log_index'])
          .execute();
        await db.schema.createIndex('evm_transfers_from').on('evm_transfers').columns(['chain', 'token', 'from_addr', 'height']).execute();
        await db.schema.createIndex('evm_transfers_to').on('evm_transfers').columns(['chain', 'token', 'to_addr', 'height']).execute();
        await db.schema.createIndex('evm_transfers_height').on('evm_transfers').columns(['chain', 'height']).execute();
        await db.schema
          .createTable('evm_pending_creates')
          .addColumn('chain', 'varchar(48)', (c) => c.notNull())
          .addColumn('from_addr', 'varchar(42)', (c) => c.notNull())
          .addColumn('to_addr', 'varchar(42)', (c) => c.notNull())
          .addColumn('token', 'varchar(42)', (c) => c.notNull())
          .addColumn('amount', 'text', (c) => c.notNull())
          .addColumn('nonce', 'bigint', (c) => c.notNull())
          .addColumn('gas_price', 'text', (c) => c.notNull())
          .addColumn('gas_limit', 'text', (c) => c.notNull())
          .addColumn('chain_id', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('evm_pending_creates_pk', ['chain', 'from_addr', 'to_addr', 'token', 'amount'])
          .execute();
      },
    },
    // A spend is recorded on the output it spends: one row per output instead of two, and an
    // output created and spent within one batch of blocks is written once, already spent.
    '0003_spends_in_outputs': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('chain_outputs').addColumn('spent_txid', sql.raw(blob)).execute();
        await db.schema.alterTable('chain_outputs').addColumn('spent_height', 'integer').execute();
        // One join per output (UPDATE ... FROM: PostgreSQL, and SQLite since 3.33).
        await sql`update chain_outputs set spent_txid = s.spent_txid, spent_height = s.height from chain_spends s
          where s.chain = chain_outputs.chain and s.txid = chain_outputs.txid and s.vout = chain_outputs.vout`.execute(db);
        await db.schema.dropTable('chain_spends').execute();
      },
    },
    // Address queries whose cost follows the page asked for, not the address's history:
    // - chain_history is keyed (chain, script, height, position), the order a page is read in
    //   (newest first is the key read backwards), so the first page is a range read. A tx touches
    //   a script once, so the key is unique; txid becomes a plain column. A txid repeated in a
    //   later block (BIP30) is a row of its own at its own height, no longer merged into the first.
    // - chain_balances.tx_count: the script's history rows, kept with its balance in the same
    //   upsert, so the history total is one key lookup.
    // - a partial index of unspent outputs by script: unspent() reads only those. An output spent
    //   within its own batch is written spent and never enters it.
    '0004_address_queries': {
      async up(db: Kysely<unknown>) {
        if (dialect === 'sqlite') {
          // SQLite cannot change a primary key in place: the clustered table is rebuilt.
          await clustered(
            dialect,
            db.schema
              .createTable('chain_history_by_height')
              .addColumn('chain', 'varchar(32)', (c) => c.notNull())
              .addColumn('script', sql.raw(blob), (c) => c.notNull())
              .addColumn('height', 'integer', (c) => c.notNull())
              .addColumn('position', 'integer', (c) => c.notNull())
              .addColumn('txid', sql.raw(blob), (c) => c.notNull())
              .addColumn('time', 'bigint', (c) => c.notNull())
              .addColumn('delta', 'bigint', (c) => c.notNull())
              .addPrimaryKeyConstraint('chain_history_pk', ['chain', 'script', 'height', 'position']),
          ).execute();
          // In key order: appends to the new b-tree instead of random inserts.
          await sql`insert into chain_history_by_height (chain, script, height, position, txid, time, delta)
            select chain, script, height, position, txid, time, delta from chain_history order by chain, script, height, position`.execute(db);
          await db.schema.dropTable('chain_history').execute();
          await db.schema.alterTable('chain_history_by_height').renameTo('chain_history').execute();
        } else {
          await sql`alter table chain_history drop constraint chain_history_pk, add constraint chain_history_pk primary key (chain, script, height, position)`.execute(db);
        }
        await db.schema.alterTable('chain_balances').addColumn('tx_count', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        // A script whose history sums to zero may have lost its balance row to a rollback: the
        // upsert gives it one back, with its count.
        await sql`insert into chain_balances (chain, script, confirmed, tx_count)
          select chain, script, sum(delta), count(*) from chain_history where true group by chain, script
          on conflict (chain, script) do update set tx_count = excluded.tx_count`.execute(db);
        // Ordered as unspent() answers, so one script's outputs need no sort.
        await sql`create index chain_outputs_unspent on chain_outputs (chain, script, height, position, vout) where spent_txid is null`.execute(db);
      },
    },
    // Watch mode (service/chains/utxo/watch.ts): the wallets registered by API keys, and the
    // scripts derived from their descriptors, which are all the index holds.
    '0005_watch': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('watch_wallets')
          .addColumn('chain', 'varchar(32)', (c) => c.notNull())
          .addColumn('owner', 'varchar(32)', (c) => c.notNull())
          .addColumn('wallet_id', 'varchar(64)', (c) => c.notNull())
          .addColumn('descriptors', 'text', (c) => c.notNull())
          .addColumn('birthday_height', 'integer')
          .addColumn('gap_limit', 'integer', (c) => c.notNull())
          .addColumn('receive_derived', 'integer', (c) => c.notNull())
          .addColumn('change_derived', 'integer', (c) => c.notNull())
          // Blocks from here on must be read again for this wallet's scripts: written in the same
          // transaction as the scripts, cleared once the index is rolled back below it.
          .addColumn('rescan_from', 'integer')
          .addPrimaryKeyConstraint('watch_wallets_pk', ['chain', 'owner', 'wallet_id'])
          .execute();
        await clustered(
          dialect,
          db.schema
            .createTable('watch_scripts')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('owner', 'varchar(32)', (c) => c.notNull())
            .addColumn('wallet_id', 'varchar(64)', (c) => c.notNull())
            .addColumn('branch', 'integer', (c) => c.notNull())
            .addColumn('idx', 'integer', (c) => c.notNull())
            .addPrimaryKeyConstraint('watch_scripts_pk', ['chain', 'script', 'owner', 'wallet_id']),
        ).execute();
      },
    },
    // Scale-out (service/leader): instances sharing a store keep the registrations in memory. Each
    // change to a chain's registrations or derived scripts bumps its generation in the same
    // transaction, so an instance sees with one small read whether its copy is current (the leader
    // scans, every instance answers, whichever registered). The leader's check of each scan
    // against the node's UTXO set is kept with the wallet, so every instance reports it. Each
    // registration already belongs to the API key that made it (watch_wallets.owner, 0005).
    '0006_watch_shared': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('watch_generations')
          .addColumn('chain', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('generation', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.alterTable('watch_wallets').addColumn('checked_height', 'integer').execute();
        await db.schema.alterTable('watch_wallets').addColumn('check_error', 'text').execute();
      },
    },
    // Transaction numbers (service/index/txnum.ts: height * 2^20 + position) in place of txids in
    // every row of the confirmed index, and the block time read from chain_blocks instead of kept
    // on every history row:
    // - chain_outputs keyed (chain, txnum, vout): a batch's outputs append at the right edge;
    //   spend marks carry the spending tx's number;
    // - chain_history keyed (chain, script, txnum): a script's rows in page order;
    // - chain_txids maps a number to its txid (answers name txids), and chain_txid_keys an 8-byte
    //   txid prefix to its numbers (key-only; a collision is resolved by the full txid);
    // - the partial index of unspent outputs keyed (chain, script, txnum, vout).
    // An index written before this migration is not converted: its rows are dropped and the
    // indexer builds the index again from the node (the chain's tip, chain_blocks, is emptied with
    // it, and a watch-mode store scans again from its wallets' birthdays).
    '0007_tx_numbers': {
      async up(db: Kysely<unknown>) {
        await db.schema.dropTable('chain_outputs').execute();
        await db.schema.dropTable('chain_history').execute();
        await forgetIndex(db, ['chain_balances']);
        await clustered(
          dialect,
          db.schema
            .createTable('chain_txids')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('txnum', 'bigint', (c) => c.notNull())
            .addColumn('txid', sql.raw(blob), (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_txids_pk', ['chain', 'txnum']),
        ).execute();
        await clustered(
          dialect,
          db.schema
            .createTable('chain_txid_keys')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('prefix', sql.raw(blob), (c) => c.notNull())
            .addColumn('txnum', 'bigint', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_txid_keys_pk', ['chain', 'prefix', 'txnum']),
        ).execute();
        await clustered(
          dialect,
          db.schema
            .createTable('chain_outputs')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('txnum', 'bigint', (c) => c.notNull())
            .addColumn('vout', 'integer', (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('amount', 'bigint', (c) => c.notNull())
            .addColumn('spent_txnum', 'bigint')
            .addPrimaryKeyConstraint('chain_outputs_pk', ['chain', 'txnum', 'vout']),
        ).execute();
        await clustered(
          dialect,
          db.schema
            .createTable('chain_history')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('txnum', 'bigint', (c) => c.notNull())
            .addColumn('delta', 'bigint', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_history_pk', ['chain', 'script', 'txnum']),
        ).execute();
        // Ordered as unspent() answers (height, position, vout), so one script's outputs need no sort.
        await sql`create index chain_outputs_unspent on chain_outputs (chain, script, txnum, vout) where spent_txnum is null`.execute(db);
      },
    },
    // Script keys (service/index/script-keys.ts): history and balance rows name a script by an
    // 8-byte key, the first 8 bytes of its SHA-256, instead of the whole script:
    // - chain_history keyed (chain, skey, txnum) -> delta;
    // - chain_balances keyed (chain, skey), keeping the key's script so that a writer sees a
    //   collision and every read checks it;
    // - chain_script_keys (chain, script) -> skey, only for a script moved off its own key by a
    //   collision (nearly always empty).
    // Like 0007, an index written before it is not converted: the confirmed index is emptied and the
    // indexer builds it again from the node (a watch-mode store scans again from its wallets' birthdays).
    '0008_script_keys': {
      async up(db: Kysely<unknown>) {
        await db.schema.dropTable('chain_history').execute();
        await db.schema.dropTable('chain_balances').execute();
        await forgetIndex(db, ['chain_outputs', 'chain_txids', 'chain_txid_keys']);
        await clustered(
          dialect,
          db.schema
            .createTable('chain_history')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('skey', sql.raw(blob), (c) => c.notNull())
            .addColumn('txnum', 'bigint', (c) => c.notNull())
            .addColumn('delta', 'bigint', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_history_pk', ['chain', 'skey', 'txnum']),
        ).execute();
        await clustered(
          dialect,
          db.schema
            .createTable('chain_balances')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('skey', sql.raw(blob), (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('confirmed', 'bigint', (c) => c.notNull())
            .addColumn('tx_count', 'bigint', (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_balances_pk', ['chain', 'skey']),
        ).execute();
        await clustered(
          dialect,
          db.schema
            .createTable('chain_script_keys')
            .addColumn('chain', 'varchar(32)', (c) => c.notNull())
            .addColumn('script', sql.raw(blob), (c) => c.notNull())
            .addColumn('skey', sql.raw(blob), (c) => c.notNull())
            .addPrimaryKeyConstraint('chain_script_keys_pk', ['chain', 'script']),
        ).execute();
      },
    },
    // Where each chain's confirmed index is kept (index/index-location.ts): a change of database.index
    // starts an empty index elsewhere, and the log then names the one left behind.
    '0009_index_locations': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('index_locations')
          .addColumn('chain', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('location', 'text', (c) => c.notNull())
          .execute();
      },
    },
    // Watch mode's scans per wallet (issue 33): a wallet registered or rescanned while others are
    // served is read into an index of its own (service/chains/utxo/watch-scans.ts) and answers 503
    // until it is swapped in; the others keep answering. scan_from: where the wallet's pending scan
    // reads from (null: its rows are complete, it follows the tip); scan_number: the scans it has
    // had, so a client tells a new scan from a height gone back.
    '0010_watch_scans': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('watch_wallets').addColumn('scan_from', 'integer').execute();
        await db.schema.alterTable('watch_wallets').addColumn('scan_number', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      },
    },
    // The relay (docs/api-decisions.md §13, docs/relay-threat-model.md): rooms, the devices in
    // them, invitations by the hash of their code, and sealed messages. No name, amount, address
    // or script has a column here: the envelopes are ciphertext.
    '0011_relay': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('relay_rooms')
          .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('owner_device', 'varchar(32)', (c) => c.notNull())
          .addColumn('api_key', 'varchar(32)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('head_seq', 'bigint', (c) => c.notNull())
          .addColumn('head_hash', sql.raw(blob), (c) => c.notNull())
          .execute();
        await db.schema.createIndex('relay_rooms_key').on('relay_rooms').columns(['api_key']).execute();
        await db.schema
          .createTable('relay_devices')
          .addColumn('room', 'varchar(32)', (c) => c.notNull())
          .addColumn('device', 'varchar(32)', (c) => c.notNull())
          .addColumn('sign_key', sql.raw(blob), (c) => c.notNull())
          .addColumn('box_key', sql.raw(blob), (c) => c.notNull())
          .addColumn('joined_at', 'bigint', (c) => c.notNull())
          .addColumn('removed_at', 'bigint')
          .addPrimaryKeyConstraint('relay_devices_pk', ['room', 'device'])
          .execute();
        await db.schema
          .createTable('relay_invitations')
          .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('room', 'varchar(32)', (c) => c.notNull())
          .addColumn('sealed', sql.raw(blob), (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .execute();
        await db.schema.createIndex('relay_invitations_room').on('relay_invitations').columns(['room']).execute();
        await clustered(
          dialect,
          db.schema
            .createTable('relay_messages')
            .addColumn('room', 'varchar(32)', (c) => c.notNull())
            .addColumn('seq', 'bigint', (c) => c.notNull())
            .addColumn('sender', 'varchar(32)', (c) => c.notNull())
            .addColumn('created_at', 'bigint', (c) => c.notNull())
            .addColumn('expires_at', 'bigint', (c) => c.notNull())
            .addColumn('envelope', sql.raw(blob), (c) => c.notNull())
            .addPrimaryKeyConstraint('relay_messages_pk', ['room', 'seq']),
        ).execute();
        await db.schema.createIndex('relay_messages_expiry').on('relay_messages').columns(['expires_at']).execute();
      },
    },
  };
}

/** `schema`: PostgreSQL schema of this store; the migration tables must live there too, or a
 * parallel store in another schema would be mistaken for this one's. `upTo`: stop after this
 * migration (tests build an older store this way, to prove the next migration on it). */
export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect, schema?: string, upTo?: string): Promise<void> {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations(dialect)) };
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = upTo === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(upTo);
    const failed = results?.find((r) => r.status === 'Error');
    if (!error && !failed) return;
    const reason = error instanceof Error ? error.message : String(error ?? '');
    if (!failed && attempt < 20 && otherSchemaDropped(reason, schema)) {
      // a moment apart, so a neighbour dropping its schemas does not land on every look again
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
      continue;
    }
    throw new Error(`database migration${failed ? ` ${failed.migrationName}` : ''} failed: ${reason}`);
  }
}

/**
 * Kysely's check for its migration tables reads every schema of the database by name
 * (has_schema_privilege): one that another store drops meanwhile fails that read, before any
 * migration ran. Seen with test files and services sharing one PostgreSQL; asking again is safe.
 */
function otherSchemaDropped(reason: string, ours: string | undefined): boolean {
  const named = /^schema "([^"]+)" does not exist$/.exec(reason)?.[1];
  return named !== undefined && named !== ours;
}
