// The service's own address index of a UTXO chain, keyed by scriptPubKey: confirmed outputs (each
// marked with the tx spending it), per-script history and balances, written a batch of blocks at a
// time inside one database transaction (a crash never leaves half a block); the mempool in tables
// of its own.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Store } from '../store/database.ts';
import { toBigInt, toNumber } from '../store/database.ts';
import type { Database } from '../store/schema.ts';
import { BadCursor, type HistoryRow, type Outpoint, type OutputInfo, type ScriptBalance, type UnspentPage, type UnspentPageRequest, type UnspentRow } from '../chains/backend.ts';
import { outpointKey } from '../chains/backend.ts';
import { asBuffer, encodedOf, hexOf, type IndexedBlock, type IndexedTx, keyOfBlob, txidBlob, txidHexOf } from './blocks.ts';
import { applyBlocksPostgres, lookupSpentPostgres } from './pg-apply.ts';
import { type FoundOutputs, planRows, type RowPlan, spentLookup } from './row-plan.ts';
import { applyEncodedBlocksSqlite, lookupSpentSqlite } from './sqlite-apply.ts';
import { SqliteIndexWriter } from './sqlite-index-writer.ts';
import { confirmedHistoryQuery, confirmedUnspentQuery, pageOrder, type UnspentKey, unspentOrder } from './queries.ts';
import { cursorText, mergeSorted, parseCursor, type SortedRead, type UnspentCursor } from './unspent-page.ts';
import { Lru } from '../lru.ts';
import { scriptKeyOf } from './script-keys.ts';
import { firstTxNumAbove, heightOfTxNum, txidPrefix } from './txnum.ts';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ConfirmedTxReader, LevelIndex, LevelSnapshot } from './level-index.ts';
import type { Logger } from 'pino';
import { type IndexLocation, levelLocation, locationChange } from './index-location.ts';

export type { IndexedBlock, IndexedOutput, IndexedTx } from './blocks.ts';
export type { ConfirmedTxReader, NodeTx } from './level-index.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** The tables of the confirmed index, each keyed by chain first. */
const CONFIRMED_TABLES = ['chain_outputs', 'chain_history', 'chain_balances', 'chain_txids', 'chain_txid_keys', 'chain_script_keys', 'chain_blocks'] as const;

// Bounded statement shapes keep SQLite's statement cache warm: IN lists of at most LOOKUP values
// and inserts in chunks of INSERT rows (the last chunk of a batch is the only odd size).
const LOOKUP = 64;
const INSERT = 100;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}


const key = outpointKey;
const blob = asBuffer;
const bytes = (v: unknown): Uint8Array => {
  if (v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  throw new TypeError('script column is not binary');
};

// One writer thread per SQLite file, shared by the chains indexed into it, closed with the store.
const writers = new WeakMap<Store, SqliteIndexWriter>();

function writerOf(store: Store): SqliteIndexWriter | undefined {
  if (store.sqlitePath === undefined) return undefined;
  let writer = writers.get(store);
  if (!writer) {
    const created = new SqliteIndexWriter(store.sqlitePath, store.indexCaches);
    writers.set(store, (writer = created));
    store.onClose(() => created.close());
  }
  return writer;
}

// One LevelDB full index per chain of a store that has an index folder, closed with the store.
const levels = new WeakMap<Store, Map<string, Promise<LevelIndex>>>();

/** A chain's folder under the store's index folder (database.index). */
const levelFolder = (dir: string, chain: string): string => join(dir, chain);

/** The LevelDB full index of a chain of this store, opened on first use; undefined when the store has no index folder. */
export function levelIndexOf(store: Store, chain: string): Promise<LevelIndex> | undefined {
  const dir = store.levelIndexDir;
  if (dir === undefined) return undefined;
  let byChain = levels.get(store);
  if (!byChain) levels.set(store, (byChain = new Map()));
  let level = byChain.get(chain);
  if (!level) {
    // loaded only here: a store without an index folder never loads the native module
    const opened = import('./level-index.ts').then((m) => m.LevelIndex.open(levelFolder(dir, chain), { caches: store.indexCaches }));
    byChain.set(chain, (level = opened));
    store.onClose(async () => (await opened.catch(() => null))?.close());
  }
  return level;
}

/**
 * The confirmed index as one query reads it (UtxoIndexStore.consistently): the LevelDB index on one
 * snapshot, or the SQL tables.
 */
interface ConfirmedReader {
  balanceRows(scripts: readonly Uint8Array[]): Promise<Map<string, { confirmed: bigint; txCount: number; key: Buffer }>>;
  unspent(scripts: readonly Uint8Array[], page: { after: UnspentKey | null; limit: number }): ReturnType<UtxoIndexStore['confirmedUnspent']>;
  /** Those of these confirmed outputs that pay one of `scripts` (the SQL stores: any script) and that no confirmed tx spends. */
  unspentAt(scripts: readonly Uint8Array[], outpoints: readonly Outpoint[]): Promise<UnspentRow[]>;
  page(counts: ReadonlyMap<string, { rows: number; key: Buffer }>, limit: number, skip: number): ReturnType<UtxoIndexStore['confirmedPage']>;
  /** Those of these txids (of mempool rows read before) that the index holds as confirmed: their mempool rows are skipped. */
  holds(txids: Iterable<string>): Promise<Set<string>>;
}

/** By the script's hex, from a map by keyOfBlob(script). */
function byHex<T>(byKey: ReadonlyMap<string, T>): Map<string, T> {
  return new Map([...byKey].map(([k, v]) => [Buffer.from(k, 'latin1').toString('hex'), v]));
}

export class UtxoIndexStore {
  /**
   * Balances change only when this store writes, so they are remembered until the next write.
   * Valid only in the process that writes the index: a scale-out follower (service/leader) turns
   * it off, since another instance's writes would never clear it.
   */
  private readonly balanceCache = new Lru<string, ScriptBalance>(20_000);
  private caching = true;

  /**
   * `watch`: the index of watch mode, which writes only some blocks, and out of order: never in
   * LevelDB. `nodeTxs`: reads confirmed txs from the chain's node, for the LevelDB index, which
   * keeps no output's script (the mempool's spent outputs and outputs() ask it; level-index.ts).
   */
  constructor(
    private readonly store: Store,
    readonly chain: string,
    private readonly options: { watch?: boolean; nodeTxs?: ConfirmedTxReader } = {},
  ) {}

  private generation = 0;

  /**
   * For tests: `betweenCommits` runs where the LevelDB index and the SQL file's mempool are each
   * committed and the other is not yet (a block applied, a rollback), so a test reads there.
   */
  readonly testKnobs: {
    betweenCommits: ((step: 'apply' | 'rollback') => Promise<void>) | null;
    /** Runs in a query after its mempool rows are read, before the confirmed index is (consistently). */
    afterMempoolRead: (() => Promise<void>) | null;
  } = { betweenCommits: null, afterMempoolRead: null };

  private changed(): void {
    this.generation++;
    this.balanceCache.clear();
    this.movedRead = null;
  }

  /** The whole of chain_script_keys as last read, while caching (see keysOf). */
  private movedRead: Promise<Map<string, Buffer>> | null = null;

  /** On while this process writes the index; off (and emptied) while another does. */
  set cacheBalances(on: boolean) {
    this.caching = on;
    this.changed(); // also keeps a read begun before the switch from filling the cache
  }

  /** The LevelDB full index holding this chain's confirmed rows, or undefined when the store's tables do. */
  private get level(): Promise<LevelIndex> | undefined {
    return this.options.watch ? undefined : levelIndexOf(this.store, this.chain);
  }

  async tip(): Promise<{ height: number; hash: string } | null> {
    const level = this.level;
    if (level) return (await level).tip();
    return this.tablesTip();
  }

  /**
   * Says it (index-location.ts) when this chain's index is no longer where it was last written (a
   * change of database.index), and records where it is now. The writer calls it before indexing.
   */
  async settleLocation(log: Logger): Promise<void> {
    const dir = this.options.watch ? undefined : this.store.levelIndexDir;
    const current: IndexLocation = dir === undefined ? 'tables' : levelLocation(levelFolder(dir, this.chain));
    const row = await this.store.db.selectFrom('index_locations').select('location').where('chain', '=', this.chain).executeTakeFirst();
    const recorded = row?.location ?? null;
    if (recorded === current) return;
    const currentTip = (await this.tip())?.height ?? null;
    const tablesTip = current === 'tables' ? currentTip : ((await this.tablesTip())?.height ?? null);
    const change = locationChange({ chain: this.chain, recorded, current, currentTip, tablesTip, ...(this.store.sqlitePath ? { sqlitePath: this.store.sqlitePath } : {}) });
    if (change) log.warn(change.fields, change.message);
    await this.store.db
      .insertInto('index_locations')
      .values({ chain: this.chain, location: current })
      .onConflict((oc) => oc.column('chain').doUpdateSet({ location: current }))
      .execute();
  }

  /** The tip of the index in the store's own tables (whatever holds the confirmed index). */
  private async tablesTip(): Promise<{ height: number; hash: string } | null> {
    const row = await this.store.db
      .selectFrom('chain_blocks')
      .select(['height', 'hash'])
      .where('chain', '=', this.chain)
      .orderBy('height', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { height: toNumber(row.height), hash: row.hash } : null;
  }

  async blockHash(height: number): Promise<string | null> {
    const level = this.level;
    if (level) return (await level).blockHash(height);
    const row = await this.store.db
      .selectFrom('chain_blocks')
      .select('hash')
      .where('chain', '=', this.chain)
      .where('height', '=', height)
      .executeTakeFirst();
    return row?.hash ?? null;
  }

  /** Opens the LevelDB index, when this chain has one: refused in words when another process holds it. */
  async open(): Promise<void> {
    await this.level;
  }

  /** Readies the writer thread (when the store has one); resolves once it can write. */
  prepareForBatches(): Promise<void> {
    const level = this.level;
    if (level) return level.then(() => undefined);
    return writerOf(this.store)?.warmUp() ?? Promise.resolve();
  }

  /** This chain's confirmed rows are in the LevelDB index: the indexer's parse threads make its rows (level-rows.ts). */
  writesLevelRows(): boolean {
    return !this.options.watch && this.store.levelIndexDir !== undefined;
  }

  /** After a long catch-up: the LevelDB index merges its sorted runs (the SQL stores have nothing to do). */
  async compactAfterCatchUp(): Promise<void> {
    const level = this.level;
    if (level) await (await level).compact();
  }

  /** Applies consecutive blocks in one transaction. Mempool entries of their txs are dropped. */
  async applyBlocks(blocks: readonly IndexedBlock[], mempoolTxids: ReadonlySet<string>): Promise<void> {
    if (blocks.length === 0) return;
    // (an empty mempool, as in an initial sync, asks no txid: a parse thread's block reads each from its bytes when asked)
    const confirmed = mempoolTxids.size === 0 ? [] : blocks.flatMap((b) => b.txs.map((t) => t.txid)).filter((id) => mempoolTxids.has(id));
    const { sqlite, pgPool } = this.store;
    const level = this.level;
    const writer = level ? undefined : writerOf(this.store);
    if (level) {
      await (await level).apply(blocks.map(encodedOf));
      await this.testKnobs.betweenCommits?.('apply');
      if (confirmed.length > 0) await this.store.db.transaction().execute((trx) => this.deleteMempoolTxs(trx, confirmed));
    } else if (writer) {
      await writer.apply(this.chain, blocks, confirmed);
    } else if (pgPool) {
      await applyBlocksPostgres(pgPool, this.chain, blocks.map(encodedOf), confirmed);
    } else if (sqlite) {
      // an in-memory store: its one connection is the one Kysely's transaction holds
      await this.store.db.transaction().execute(async () => applyEncodedBlocksSqlite(sqlite, this.chain, blocks.map(encodedOf), confirmed));
    } else {
      throw new Error('this store has no index write path');
    }
    this.changed();
  }

  async applyBlock(block: IndexedBlock, mempoolTxids: ReadonlySet<string>): Promise<void> {
    return this.applyBlocks([block], mempoolTxids);
  }

  async applyMempoolTx(tx: IndexedTx, firstSeen: number): Promise<void> {
    const c = this.chain;
    await this.store.db.transaction().execute(async (trx) => {
      const spent = await this.lookupOutputs(trx, tx.inputs);
      const deltas = new Map<string, { script: Uint8Array; delta: bigint }>();
      const add = (script: Uint8Array, amount: bigint) => {
        const k = hexOf(script);
        const d = deltas.get(k);
        if (d) d.delta += amount;
        else deltas.set(k, { script, delta: amount });
      };
      const spends: Database['mempool_spends'][] = [];
      for (const input of tx.inputs) {
        const prev = spent.get(key(input.txid, input.vout));
        if (!prev) continue;
        add(prev.script, -prev.amount);
        spends.push({ chain: c, txid: input.txid, vout: input.vout, spent_txid: tx.txid });
      }
      for (const out of tx.outputs) add(out.script, out.amount);
      for (const part of chunks(tx.outputs, INSERT)) {
        await trx
          .insertInto('mempool_outputs')
          .values(part.map((o) => ({ chain: c, txid: tx.txid, vout: o.vout, script: blob(o.script), amount: o.amount })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      for (const part of chunks(spends, INSERT)) await trx.insertInto('mempool_spends').values(part).onConflict((oc) => oc.doNothing()).execute();
      for (const part of chunks([...deltas.values()], INSERT)) {
        await trx
          .insertInto('mempool_history')
          .values(part.map((d) => ({ chain: c, txid: tx.txid, script: blob(d.script), time: firstSeen, delta: d.delta })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      await trx.insertInto('chain_mempool').values({ chain: c, txid: tx.txid, first_seen: firstSeen }).onConflict((oc) => oc.doNothing()).execute();
    });
    this.changed();
  }

  async removeMempoolTxs(txids: readonly string[]): Promise<void> {
    if (txids.length === 0) return;
    await this.store.db.transaction().execute((trx) => this.deleteMempoolTxs(trx, txids));
    this.changed();
  }

  async mempoolTxids(): Promise<Set<string>> {
    const rows = await this.store.db.selectFrom('chain_mempool').select('txid').where('chain', '=', this.chain).execute();
    return new Set(rows.map((r) => r.txid));
  }

  async mempoolCount(): Promise<number> {
    const row = await this.store.db
      .selectFrom('chain_mempool')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('chain', '=', this.chain)
      .executeTakeFirstOrThrow();
    return toNumber(row.n);
  }

  /**
   * Undoes every block above `height` and forgets the mempool (it is re-read from the node).
   * `content` gives an undone block's transactions (the node keeps stale blocks): the row plan of
   * the undone blocks is computed again, as when they were written, and removed by key. Without it
   * (a pruned node), the tables are scanned by height.
   */
  async rollbackTo(height: number, content: (hash: string) => Promise<IndexedBlock | null> = () => Promise.resolve(null)): Promise<void> {
    const c = this.chain;
    const level = this.level;
    if (level) {
      const index = await level;
      const { blocks, missing } = await this.contentOf(await index.blocksAbove(height), content);
      if (missing) {
        throw new Error(`the node does not have block ${missing.height} (${missing.hash}), which the index must undo; the LevelDB index finds a block's rows only from its content: index again from an unpruned node`);
      }
      // The mempool first: in between, the old chain with no mempool (consistently()).
      await index.rollbackTo(height, blocks.map(encodedOf), async () => {
        await this.store.db.transaction().execute((trx) => this.forgetMempool(trx));
        await this.testKnobs.betweenCommits?.('rollback');
      });
      this.changed();
      return;
    }
    const undone = await this.store.db
      .selectFrom('chain_blocks')
      .select(['height', 'hash'])
      .where('chain', '=', c)
      .where('height', '>', height)
      .orderBy('height')
      .execute();
    const { blocks, missing } = await this.contentOf(undone.map((b) => ({ height: toNumber(b.height), hash: b.hash })), content);
    // Outputs the undone blocks spend are still indexed (older blocks wrote them): found as when applied.
    const plan = missing === null && blocks.length > 0 ? await this.planOf(blocks) : null;
    await this.store.db.transaction().execute(async (trx) => {
      if (plan) await this.undoPlan(trx, plan, height);
      else await this.undoByScan(trx, height);
      await trx.deleteFrom('chain_blocks').where('chain', '=', c).where('height', '>', height).execute();
      // A script left with no history; one with history and a zero balance keeps its count.
      await trx.deleteFrom('chain_balances').where('chain', '=', c).where('tx_count', '=', 0).execute();
      // a moved script's key is kept while it has rows (script-keys.ts)
      await trx
        .deleteFrom('chain_script_keys')
        .where('chain', '=', c)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('chain_balances as b').select('b.skey').whereRef('b.chain', '=', 'chain_script_keys.chain').whereRef('b.skey', '=', 'chain_script_keys.skey'))),
        )
        .execute();
      await this.forgetMempool(trx);
    });
    this.changed();
  }

  /** The undone blocks' content, from the node, up to the first it does not have (`missing`). */
  private async contentOf(
    undone: readonly { height: number; hash: string }[],
    content: (hash: string) => Promise<IndexedBlock | null>,
  ): Promise<{ blocks: IndexedBlock[]; missing: { height: number; hash: string } | null }> {
    const blocks: IndexedBlock[] = [];
    for (const b of undone) {
      const block = await content(b.hash).catch(() => null);
      if (!block || block.hash !== b.hash) return { blocks, missing: b };
      blocks.push(block);
    }
    return { blocks, missing: null };
  }

  /**
   * This chain's rows become those of `other` (a watch scan's index of the same store, read to the
   * node's tip): in one transaction of `trx`'s, with whatever else the caller writes there. Both
   * mempools are dropped: the indexer reads the node's again.
   */
  async takeRowsOf(other: UtxoIndexStore, also: (trx: Transaction<Database>) => Promise<void>): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      await this.deleteRows(trx);
      await other.forgetMempool(trx);
      for (const table of CONFIRMED_TABLES) await trx.updateTable(table).set({ chain: this.chain }).where('chain', '=', other.chain).execute();
      await also(trx);
    });
    this.changed();
    other.changed();
    writerOf(this.store)?.forget(this.chain);
    writerOf(this.store)?.forget(other.chain);
  }

  /** Drops every row of the chain, confirmed and mempool (a watch scan's index starting over). */
  async clear(): Promise<void> {
    await this.store.db.transaction().execute((trx) => this.deleteRows(trx));
    this.changed();
    writerOf(this.store)?.forget(this.chain);
  }

  private async deleteRows(trx: Db): Promise<void> {
    for (const table of CONFIRMED_TABLES) await trx.deleteFrom(table).where('chain', '=', this.chain).execute();
    await this.forgetMempool(trx);
  }

  /** Every mempool row of the chain: a rollback forgets the mempool, which is read again from the node. */
  private async forgetMempool(trx: Db): Promise<void> {
    for (const table of ['mempool_outputs', 'mempool_spends', 'mempool_history', 'chain_mempool'] as const) {
      await trx.deleteFrom(table).where('chain', '=', this.chain).execute();
    }
  }

  /** The row plan of blocks already written, with the spent outputs found by the store's own lookup. */
  private async planOf(blocks: readonly IndexedBlock[]): Promise<RowPlan> {
    const encoded = blocks.map(encodedOf);
    const lookup = spentLookup(encoded);
    const { sqlite, pgPool } = this.store;
    let found: FoundOutputs;
    if (pgPool) found = await lookupSpentPostgres(pgPool, this.chain, lookup);
    else if (sqlite) found = lookupSpentSqlite(sqlite, this.chain, lookup);
    else throw new Error('this store has no index write path');
    return planRows(encoded, lookup, found);
  }

  /** Deletes exactly the rows the plan wrote; the undone blocks' outputs and txids are a range of tx numbers. */
  private async undoPlan(trx: Db, plan: RowPlan, height: number): Promise<void> {
    const c = this.chain;
    const above = firstTxNumAbove(height);
    await trx.deleteFrom('chain_outputs').where('chain', '=', c).where('txnum', '>=', above).execute();
    for (const s of plan.spends) {
      await trx
        .updateTable('chain_outputs')
        .set({ spent_txnum: null })
        .where('chain', '=', c)
        .where('txnum', '=', s.txnum)
        .where('vout', '=', s.vout)
        .where('spent_txnum', '=', s.spentTxnum)
        .execute();
    }
    const moved = await this.movedKeys(trx);
    for (const h of plan.history) {
      await trx
        .deleteFrom('chain_history')
        .where('chain', '=', c)
        .where('skey', '=', moved.get(h.scriptKey) ?? h.skey)
        .where('txnum', '=', h.txnum)
        .execute();
    }
    for (const t of plan.txs) await trx.deleteFrom('chain_txid_keys').where('chain', '=', c).where('prefix', '=', t.prefix).where('txnum', '=', t.txnum).execute();
    await trx.deleteFrom('chain_txids').where('chain', '=', c).where('txnum', '>=', above).execute();
    for (const b of plan.balances) await this.subtractBalance(trx, moved.get(b.scriptKey) ?? b.skey, b.delta, BigInt(b.rows));
  }

  /** The slow way, for blocks the node can no longer give: find rows by tx number in full scans. */
  private async undoByScan(trx: Db, height: number): Promise<void> {
    const c = this.chain;
    const above = firstTxNumAbove(height);
    const undo = await trx
      .selectFrom('chain_history')
      .select((eb) => ['skey', eb.fn.sum<string>('delta').as('delta'), eb.fn.countAll<string>().as('rows')])
      .where('chain', '=', c)
      .where('txnum', '>=', above)
      .groupBy('skey')
      .execute();
    for (const u of undo) await this.subtractBalance(trx, bytes(u.skey), toBigInt(u.delta), toBigInt(u.rows));
    await trx.deleteFrom('chain_outputs').where('chain', '=', c).where('txnum', '>=', above).execute();
    await trx.updateTable('chain_outputs').set({ spent_txnum: null }).where('chain', '=', c).where('spent_txnum', '>=', above).execute();
    await trx.deleteFrom('chain_history').where('chain', '=', c).where('txnum', '>=', above).execute();
    await trx.deleteFrom('chain_txid_keys').where('chain', '=', c).where('txnum', '>=', above).execute();
    await trx.deleteFrom('chain_txids').where('chain', '=', c).where('txnum', '>=', above).execute();
  }

  /** Takes undone history off a script's balance row (which its history rows imply). */
  private async subtractBalance(trx: Db, skey: Uint8Array, delta: bigint, rows: bigint): Promise<void> {
    await trx
      .updateTable('chain_balances')
      .set({ confirmed: sql`confirmed - ${delta}`, tx_count: sql`tx_count - ${rows}` })
      .where('chain', '=', this.chain)
      .where('skey', '=', blob(skey))
      .execute();
  }

  /** The scripts a key collision moved off their own key, by keyOfBlob(script): nearly always none. */
  private async movedKeys(db: Db, scripts?: readonly Uint8Array[]): Promise<Map<string, Buffer>> {
    const moved = new Map<string, Buffer>();
    const read = (part?: Uint8Array[]) => {
      let q = db.selectFrom('chain_script_keys').select(['script', 'skey']).where('chain', '=', this.chain);
      if (part) q = q.where('script', 'in', part);
      return q.execute();
    };
    const rows = scripts === undefined ? await read() : (await Promise.all(chunks(scripts.map(blob), LOOKUP).map(read))).flat();
    for (const r of rows) moved.set(keyOfBlob(bytes(r.script)), blob(bytes(r.skey)));
    return moved;
  }

  /**
   * Each script's key (script-keys.ts), by the script's hex: its own unless a collision moved it.
   * While this process writes the index, the moved keys (nearly always none) are read once per
   * write, like the balances, instead of once per query.
   */
  private async keysOf(scripts: readonly Uint8Array[]): Promise<Map<string, Buffer>> {
    let moved: Map<string, Buffer>;
    if (this.caching) moved = await (this.movedRead ??= this.movedKeys(this.store.db));
    else moved = await this.movedKeys(this.store.db, scripts);
    return new Map(scripts.map((s) => [hexOf(s), moved.get(keyOfBlob(s)) ?? scriptKeyOf(s)]));
  }

  /**
   * The balance rows of these scripts, by the script's hex: read by key, each row checked against
   * its script (a key's row may be another script's, whose own key it is).
   */
  private async balanceRows(scripts: readonly Uint8Array[], snapshot?: LevelSnapshot): Promise<Map<string, { confirmed: bigint; txCount: number; key: Buffer }>> {
    const level = this.level;
    if (level) return byHex(await (await level).balances(scripts, snapshot));
    const keys = await this.keysOf(scripts);
    const out = new Map<string, { confirmed: bigint; txCount: number; key: Buffer }>();
    for (const part of chunks([...keys.values()], LOOKUP)) {
      const rows = await this.store.db.selectFrom('chain_balances').select(['skey', 'script', 'confirmed', 'tx_count']).where('chain', '=', this.chain).where('skey', 'in', part).execute();
      for (const r of rows) {
        const hex = hexOf(bytes(r.script));
        const key = keys.get(hex);
        if (key && key.equals(bytes(r.skey))) out.set(hex, { confirmed: toBigInt(r.confirmed), txCount: toNumber(r.tx_count), key });
      }
    }
    return out;
  }

  private async deleteMempoolTxs(trx: Db, txids: readonly string[]): Promise<void> {
    const c = this.chain;
    for (const part of chunks(txids, LOOKUP)) {
      await trx.deleteFrom('mempool_outputs').where('chain', '=', c).where('txid', 'in', part).execute();
      await trx.deleteFrom('mempool_spends').where('chain', '=', c).where('spent_txid', 'in', part).execute();
      await trx.deleteFrom('mempool_history').where('chain', '=', c).where('txid', 'in', part).execute();
      await trx.deleteFrom('chain_mempool').where('chain', '=', c).where('txid', 'in', part).execute();
    }
  }

  /** Script and amount of these outputs, confirmed or in the mempool, by outpointKey (for the mempool and outputs()). */
  private async lookupOutputs(trx: Db, outpoints: readonly Outpoint[]): Promise<Map<string, OutputInfo>> {
    const found = new Map<string, OutputInfo>();
    for (const part of chunks([...new Set(outpoints.map((o) => o.txid))], LOOKUP)) {
      const byNumber = await this.confirmedTxNumbers(trx, part);
      const wanted = outpoints.flatMap((o) => {
        const txnum = byNumber.get(o.txid);
        return txnum === undefined ? [] : [{ txnum, vout: o.vout }];
      });
      if (wanted.length > 0) {
        const txidOf = new Map([...byNumber].map(([txid, n]) => [n, txid]));
        for (const r of await this.confirmedOutputsOf(trx, wanted)) found.set(key(txidOf.get(r.txnum)!, r.vout), { script: r.script, amount: r.amount });
      }
      const pending = await trx.selectFrom('mempool_outputs').select(['txid', 'vout', 'script', 'amount']).where('chain', '=', this.chain).where('txid', 'in', part).execute();
      for (const r of pending) found.set(key(r.txid, toNumber(r.vout)), { script: bytes(r.script), amount: toBigInt(r.amount) });
    }
    return found;
  }

  /** The node reader the LevelDB index needs for outputs by outpoint, or a refusal in words. */
  private nodeTxs(): ConfirmedTxReader {
    const read = this.options.nodeTxs;
    if (!read) throw new Error(`the LevelDB index of ${this.chain} reads outputs by outpoint from the chain's node, and this index was opened without one`);
    return read;
  }

  /** These confirmed outputs (tx number, vout), spent or not (the SQL stores answer every output of their txs). */
  private async confirmedOutputsOf(trx: Db, wanted: readonly { txnum: number; vout: number }[]): Promise<{ txnum: number; vout: number; script: Uint8Array; amount: bigint }[]> {
    const level = this.level;
    if (level) return (await (await level).outputsOf(wanted, this.nodeTxs())).map((r) => ({ ...r, script: bytes(r.script) }));
    const numbers = [...new Set(wanted.map((w) => w.txnum))];
    const rows = await trx.selectFrom('chain_outputs').select(['txnum', 'vout', 'script', 'amount']).where('chain', '=', this.chain).where('txnum', 'in', numbers).execute();
    return rows.map((r) => ({ txnum: toNumber(r.txnum), vout: toNumber(r.vout), script: bytes(r.script), amount: toBigInt(r.amount) }));
  }

  /**
   * The tx number of each of these txids the confirmed index holds, found by the txid's prefix
   * and checked against the whole txid; of a txid confirmed twice (BIP30), the later.
   */
  private async confirmedTxNumbers(trx: Db, txids: readonly string[], snapshot?: LevelSnapshot): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const level = this.level;
    if (level) {
      const numbers = await (await level).confirmedTxNumbers(txids.map((t) => asBuffer(txidBlob(t))), snapshot);
      for (const t of txids) {
        const n = numbers.get(keyOfBlob(txidBlob(t)));
        if (n !== undefined) out.set(t, n);
      }
      return out;
    }
    const wanted = new Map(txids.map((t) => [keyOfBlob(txidBlob(t)), t]));
    const prefixes = [...new Map(txids.map((t) => txidPrefix(txidBlob(t))).map((p) => [keyOfBlob(p), p])).values()];
    for (const part of chunks(prefixes, LOOKUP)) {
      const rows = await trx
        .selectFrom('chain_txid_keys as k')
        .innerJoin('chain_txids as t', (j) => j.onRef('t.chain', '=', 'k.chain').onRef('t.txnum', '=', 'k.txnum'))
        .select(['k.txnum', 't.txid'])
        .where('k.chain', '=', this.chain)
        .where('k.prefix', 'in', part)
        .execute();
      for (const r of rows) {
        const txid = wanted.get(keyOfBlob(bytes(r.txid)));
        const n = toNumber(r.txnum);
        if (txid !== undefined && n > (out.get(txid) ?? -1)) out.set(txid, n);
      }
    }
    return out;
  }

  // ---- queries --------------------------------------------------------------------------------

  /** Balances of the given scripts, in their order. */
  async balances(scripts: readonly Uint8Array[]): Promise<ScriptBalance[]> {
    if (!this.caching) return this.readBalances(scripts);
    const cached = scripts.map((s) => this.balanceCache.get(hexOf(s)));
    if (cached.every((b) => b !== undefined)) return cached;
    const generation = this.generation;
    const fresh = await this.readBalances(scripts);
    // a write that landed during the read may not be in it: remember only what is still current
    if (generation === this.generation) scripts.forEach((s, i) => this.balanceCache.set(hexOf(s), fresh[i]!));
    return fresh;
  }

  /**
   * Reads the mempool rows a query needs (`mempool`), then the confirmed index (`confirmed`: the
   * LevelDB index on one snapshot), then the mempool rows again, as one state of both: the mempool
   * rows of a tx the confirmed index holds are skipped (holds()), and a query whose mempool rows
   * changed meanwhile is read again. The LevelDB index and the SQL file's mempool are two commits:
   * - a block is written to LevelDB first, then its txs' mempool rows are deleted: between the
   *   two (or after a crash there) they are a confirmed tx's rows, skipped;
   * - a rollback forgets the mempool first, then undoes blocks in LevelDB: between the two, the
   *   old chain with no mempool; a rollback begun during a read (the mempool forgotten and read
   *   again as it was) has it read again too.
   * The SQL stores commit a block with its mempool deletion, and the second read catches a commit
   * that lands between their statements.
   */
  private async consistently<S, T>(mempool: () => Promise<S>, confirmed: (rows: S, reader: ConfirmedReader) => Promise<T>): Promise<T> {
    const level = this.level ? await this.level : undefined;
    for (;;) {
      const rollbacks = level?.rollbacks;
      const rows = await mempool();
      await this.testKnobs.afterMempoolRead?.();
      const snapshot = level?.snapshot();
      try {
        const answer = await confirmed(rows, this.confirmedReader(snapshot));
        if (level?.rollbacks === rollbacks && isDeepStrictEqual(await mempool(), rows)) return answer;
      } finally {
        await snapshot?.close();
      }
    }
  }

  private confirmedReader(snapshot?: LevelSnapshot): ConfirmedReader {
    return {
      balanceRows: (scripts) => this.balanceRows(scripts, snapshot),
      unspent: (scripts, page) => this.confirmedUnspent(scripts, page, snapshot),
      unspentAt: (scripts, outpoints) => this.confirmedUnspentAt(scripts, outpoints, snapshot),
      page: (counts, limit, skip) => this.confirmedPage(counts, limit, skip, snapshot),
      holds: async (txids) => {
        const distinct = [...new Set(txids)];
        const found = new Set<string>();
        for (const part of chunks(distinct, LOOKUP)) for (const t of (await this.confirmedTxNumbers(this.store.db, part, snapshot)).keys()) found.add(t);
        return found;
      },
    };
  }

  /** The mempool_history rows of these scripts, one per tx and script. */
  private async mempoolHistory(list: readonly Uint8Array[]): Promise<{ script: Uint8Array; txid: string; time: number; delta: bigint }[]> {
    const rows: { script: Uint8Array; txid: string; time: number; delta: bigint }[] = [];
    for (const part of chunks(list, LOOKUP)) {
      // in a set order: consistently() compares two reads
      const read = await this.store.db
        .selectFrom('mempool_history')
        .select(['script', 'txid', 'time', 'delta'])
        .where('chain', '=', this.chain)
        .where('script', 'in', part)
        .orderBy('txid')
        .orderBy('script')
        .execute();
      for (const r of read) rows.push({ script: bytes(r.script), txid: r.txid, time: toNumber(r.time), delta: toBigInt(r.delta) });
    }
    return rows;
  }

  private async readBalances(scripts: readonly Uint8Array[]): Promise<ScriptBalance[]> {
    return this.consistently(
      () => this.mempoolHistory(scripts.map(blob)),
      async (pending, confirmedIndex) => {
        const confirmed = new Map<string, bigint>();
        const unconfirmed = new Map<string, bigint>();
        for (const [hex, b] of await confirmedIndex.balanceRows(scripts)) confirmed.set(hex, b.confirmed);
        const skip = await confirmedIndex.holds(pending.map((r) => r.txid));
        for (const r of pending) {
          if (skip.has(r.txid)) continue;
          const hex = hexOf(r.script);
          unconfirmed.set(hex, (unconfirmed.get(hex) ?? 0n) + r.delta);
        }
        return scripts.map((s) => ({ confirmed: confirmed.get(hexOf(s)) ?? 0n, unconfirmed: unconfirmed.get(hexOf(s)) ?? 0n }));
      },
    );
  }

  /** Mempool entries first (newest first), then confirmed ones, newest block first. */
  async history(scripts: readonly Uint8Array[], limit: number, offset: number): Promise<{ total: number; rows: HistoryRow[] }> {
    const list = scripts.map(blob);
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return this.consistently(
      () => this.mempoolHistory(list),
      async (all, confirmed) => {
        const skip = await confirmed.holds(all.map((r) => r.txid));
        // newest first, then by txid and script bytes (hex order is byte order)
        const pending = all.filter((r) => !skip.has(r.txid)).sort((a, b) => b.time - a.time || cmp(a.txid, b.txid) || cmp(hexOf(a.script), hexOf(b.script)));
        const counts = await this.historyCounts(list, confirmed);
        let total = pending.length;
        for (const n of counts.values()) total += n.rows;
        const rows: HistoryRow[] = pending.slice(offset, offset + limit).map((r) => ({ ...r, height: null }));
        const remaining = limit - rows.length;
        if (remaining > 0) {
          for (const r of await confirmed.page(counts, remaining, Math.max(0, offset - pending.length))) {
            rows.push({ script: bytes(r.script), txid: txidHexOf(r.txid), height: heightOfTxNum(toNumber(r.txnum)), time: toNumber(r.time), delta: toBigInt(r.delta) });
          }
        }
        return { total, rows };
      },
    );
  }

  /** History rows and key of each script with any, by the script's hex (chain_balances.tx_count). */
  private async historyCounts(list: readonly Uint8Array[], confirmed: ConfirmedReader): Promise<Map<string, { rows: number; key: Buffer }>> {
    const counts = new Map<string, { rows: number; key: Buffer }>();
    for (const [hex, b] of await confirmed.balanceRows(list)) if (b.txCount > 0) counts.set(hex, { rows: b.txCount, key: b.key });
    return counts;
  }

  /**
   * Rows skip..skip+limit of the scripts' confirmed history. A script with more rows than the page
   * reaches is read alone, as a range of its key cut at the page's end; the others are read
   * together (all their rows are within reach anyway); the parts are merged in page order.
   */
  private async confirmedPage(counts: ReadonlyMap<string, { rows: number; key: Buffer }>, limit: number, skip: number, snapshot?: LevelSnapshot) {
    const level = this.level;
    if (level) return (await level).historyPage([...counts].map(([hex, n]) => ({ script: Buffer.from(hex, 'hex'), key: n.key })), limit, skip, snapshot);
    const reach = skip + limit;
    const scriptOf = new Map([...counts].map(([hex, n]) => [keyOfBlob(n.key), Buffer.from(hex, 'hex')]));
    const large: Buffer[] = [];
    const small: Buffer[] = [];
    for (const n of counts.values()) (n.rows > reach ? large : small).push(n.key);
    const parts = [...large.map((k) => [k]), ...(small.length > 0 ? [small] : [])];
    const c = this.chain;
    const named = (rows: Awaited<ReturnType<ReturnType<typeof confirmedHistoryQuery>['execute']>>) =>
      rows.map((r) => ({ script: scriptOf.get(keyOfBlob(bytes(r.skey)))!, txnum: r.txnum, txid: r.txid, time: r.time, delta: r.delta }));
    if (parts.length === 0) return [];
    if (parts.length === 1 && parts[0]!.length === 1) return named(await confirmedHistoryQuery(this.store.db, c, parts[0]!, { limit, offset: skip }).execute());
    const read = await Promise.all(
      parts.map(async (p) => {
        const rows = await confirmedHistoryQuery(this.store.db, c, p, { limit: reach }).execute();
        // Rows of one tx are in key order here but in script order on the page: the part's last
        // tx is read whole, so a cut through it cannot drop a row the page holds.
        const last = rows.length === reach && p.length > 1 ? rows[rows.length - 1]! : undefined;
        if (!last) return rows;
        const tied = await confirmedHistoryQuery(this.store.db, c, p, { txnum: toNumber(last.txnum) }).execute();
        return [...rows.filter((r) => toNumber(r.txnum) !== toNumber(last.txnum)), ...tied];
      }),
    );
    return named(read.flat())
      .map((r) => ({ r, k: { txnum: toNumber(r.txnum), txid: r.txid, script: r.script } }))
      .sort((a, b) => pageOrder(a.k, b.k))
      .slice(skip, reach)
      .map((x) => x.r);
  }

  /**
   * A page of the outputs not spent by any confirmed or mempool transaction: oldest first, mempool
   * last. Both parts are read by key after the cursor and cut at limit + 1 rows at the store (the
   * extra row says whether there is more), so a page costs its own rows whatever the address holds.
   */
  async unspent(scripts: readonly Uint8Array[], page: UnspentPageRequest): Promise<UnspentPage> {
    const list = scripts.map(blob);
    const c = this.chain;
    const cursor = page.after ? parseCursor(page.after) : null;
    if (page.after && !cursor) throw new BadCursor(page.after);
    const inMempool = cursor !== null && !cursor.confirmed;
    const limit = page.limit;
    return this.consistently(
      async () => {
        let q = this.store.db
          .selectFrom('mempool_outputs as o')
          .innerJoin('chain_mempool as m', (j) => j.onRef('m.chain', '=', 'o.chain').onRef('m.txid', '=', 'o.txid'))
          .select(['o.txid', 'o.vout', 'o.script', 'o.amount', 'm.first_seen'])
          .where('o.chain', '=', c)
          .where('o.script', 'in', list);
        if (cursor && !cursor.confirmed) q = q.where(sql<boolean>`(m.first_seen, o.txid, o.vout) > (${cursor.firstSeen}, ${cursor.txid}, ${cursor.vout})`);
        const pending = (await q.orderBy('m.first_seen').orderBy('o.txid').orderBy('o.vout').limit(limit + 1).execute()).map((r) => ({
          txid: r.txid,
          vout: toNumber(r.vout),
          script: bytes(r.script),
          amount: toBigInt(r.amount),
          firstSeen: toNumber(r.first_seen),
        }));
        // A mempool tx spending one of these scripts' outputs has a history row on its script.
        const spenders = [...new Set((await this.mempoolHistory(list)).map((r) => r.txid))];
        const spends: { txid: string; vout: number; spentTxid: string }[] = [];
        for (const part of chunks(spenders, LOOKUP)) {
          const rows = await this.store.db.selectFrom('mempool_spends').select(['txid', 'vout', 'spent_txid']).where('chain', '=', c).where('spent_txid', 'in', part).orderBy('txid').orderBy('vout').execute();
          for (const r of rows) spends.push({ txid: r.txid, vout: toNumber(r.vout), spentTxid: r.spent_txid });
        }
        return { pending, spends };
      },
      async ({ pending, spends }, confirmed) => {
        const confirmedRows = inMempool ? [] : await confirmed.unspent(list, { after: cursor?.confirmed ? cursor : null, limit: limit + 1 });
        const read: { row: UnspentRow; at: UnspentCursor }[] = [
          ...confirmedRows.map(({ txnum, ...r }) => ({ row: { ...r, height: heightOfTxNum(txnum) }, at: { confirmed: true as const, txnum, vout: r.vout } })),
          ...pending.map(({ firstSeen, ...r }) => ({ row: { ...r, height: null }, at: { confirmed: false as const, firstSeen, txid: r.txid, vout: r.vout } })),
        ];
        const kept = read.slice(0, limit);
        const next = read.length > limit ? cursorText(kept[kept.length - 1]!.at) : null;
        const skip = await confirmed.holds([...kept.filter((r) => r.row.height === null).map((r) => r.row.txid), ...spends.map((s) => s.spentTxid)]);
        const spentInMempool = new Set(spends.filter((s) => !skip.has(s.spentTxid)).map((s) => key(s.txid, s.vout)));
        const rows = kept.map((r) => r.row).filter((r) => !(r.height === null && skip.has(r.txid)) && !spentInMempool.has(key(r.txid, r.vout)));
        return { rows, next };
      },
    );
  }

  /**
   * Those of `outpoints` that are unspent outputs (confirmed or in the mempool, not spent by either),
   * by outpointKey: each looked up by its key, whatever its address holds besides (coin control
   * names a few outputs of an address that may have hundreds of thousands). The LevelDB index
   * answers only outputs paying one of `scripts` (it looks them up by script); the SQL stores any,
   * which the caller filters.
   */
  async unspentAt(scripts: readonly Uint8Array[], outpoints: readonly Outpoint[]): Promise<Map<string, UnspentRow>> {
    const wanted = new Set(outpoints.map((o) => key(o.txid, o.vout)));
    const txids = [...new Set(outpoints.map((o) => o.txid))].sort();
    const c = this.chain;
    return this.consistently(
      async () => {
        const pending: UnspentRow[] = [];
        const spends: { k: string; spender: string }[] = [];
        for (const part of chunks(txids, LOOKUP)) {
          const outs = await this.store.db.selectFrom('mempool_outputs').select(['txid', 'vout', 'script', 'amount']).where('chain', '=', c).where('txid', 'in', part).orderBy('txid').orderBy('vout').execute();
          for (const r of outs) if (wanted.has(key(r.txid, toNumber(r.vout)))) pending.push({ txid: r.txid, vout: toNumber(r.vout), script: bytes(r.script), amount: toBigInt(r.amount), height: null });
          const spent = await this.store.db.selectFrom('mempool_spends').select(['txid', 'vout', 'spent_txid']).where('chain', '=', c).where('txid', 'in', part).orderBy('txid').orderBy('vout').execute();
          for (const r of spent) if (wanted.has(key(r.txid, toNumber(r.vout)))) spends.push({ k: key(r.txid, toNumber(r.vout)), spender: r.spent_txid });
        }
        return { pending, spends };
      },
      async ({ pending, spends }, confirmed) => {
        const rows = await confirmed.unspentAt(scripts, outpoints);
        const skip = await confirmed.holds([...pending.map((r) => r.txid), ...spends.map((s) => s.spender)]);
        const spentInMempool = new Set(spends.filter((s) => !skip.has(s.spender)).map((s) => s.k));
        const out = new Map<string, UnspentRow>();
        for (const r of [...rows, ...pending.filter((r) => !skip.has(r.txid))]) if (!spentInMempool.has(key(r.txid, r.vout))) out.set(key(r.txid, r.vout), r);
        return out;
      },
    );
  }

  /** Those of these outpoints whose confirmed output no confirmed tx spends (LevelDB: of these scripts). */
  private async confirmedUnspentAt(scripts: readonly Uint8Array[], outpoints: readonly Outpoint[], snapshot?: LevelSnapshot): Promise<UnspentRow[]> {
    const wanted = new Set(outpoints.map((o) => key(o.txid, o.vout)));
    const out: UnspentRow[] = [];
    for (const part of chunks([...new Set(outpoints.map((o) => o.txid))], LOOKUP)) {
      const byNumber = await this.confirmedTxNumbers(this.store.db, part, snapshot);
      const txidOf = new Map([...byNumber].map(([txid, n]) => [n, txid]));
      const asked = outpoints.flatMap((o) => (byNumber.has(o.txid) && wanted.has(key(o.txid, o.vout)) ? [{ txnum: byNumber.get(o.txid)!, vout: o.vout }] : []));
      if (asked.length === 0) continue;
      const level = this.level;
      const rows = level
        ? await (await level).unspentAt(asked, scripts, snapshot)
        : (await this.store.db.selectFrom('chain_outputs').select(['txnum', 'vout', 'script', 'amount']).where('chain', '=', this.chain).where('txnum', 'in', [...txidOf.keys()]).where('spent_txnum', 'is', null).execute()).map((r) => ({
            txnum: toNumber(r.txnum),
            vout: toNumber(r.vout),
            script: r.script,
            amount: toBigInt(r.amount),
          }));
      for (const r of rows) {
        const txid = txidOf.get(r.txnum)!;
        if (wanted.has(key(txid, r.vout))) out.push({ txid, vout: r.vout, script: bytes(r.script), amount: r.amount, height: heightOfTxNum(r.txnum) });
      }
    }
    return out;
  }

  /** Those of `scripts` with any history, confirmed or in the mempool, by hex. */
  async usedScripts(scripts: readonly Uint8Array[]): Promise<Set<string>> {
    return this.consistently(
      () => this.mempoolHistory(scripts.map(blob)),
      async (pending, confirmed) => {
        const used = new Set<string>();
        for (const [hex, b] of await confirmed.balanceRows(scripts)) if (b.txCount > 0) used.add(hex);
        const skip = await confirmed.holds(pending.map((r) => r.txid));
        for (const r of pending) if (!skip.has(r.txid)) used.add(hexOf(r.script));
        return used;
      },
    );
  }

  /**
   * Up to `limit` outputs of the scripts that no confirmed tx spends, after `after`, oldest first:
   * each script's are a range of the partial index of unspent outputs (LevelDB: of its U keys), cut
   * at the cursor and the limit, and the scripts' reads merged (unspent-page.ts).
   */
  async confirmedUnspent(scripts: readonly Uint8Array[], page: { after: UnspentKey | null; limit: number }, snapshot?: LevelSnapshot): Promise<(Omit<UnspentRow, 'height'> & { txnum: number })[]> {
    const level = this.level;
    if (level) {
      const rows = await (await level).unspent(scripts, page, snapshot);
      return rows.map((r) => ({ txid: txidHexOf(r.txid), vout: r.vout, script: bytes(r.script), amount: r.amount, txnum: r.txnum }));
    }
    // One script a query: SQLite has no statistics (the service never runs ANALYZE), and for an IN
    // list its planner prefers the primary key's chain prefix (every output of the chain) to the
    // partial index; one script's rows are a range of that index in page order in both stores.
    const distinct = [...new Map(scripts.map((s) => [hexOf(s), blob(s)])).values()];
    const sources = distinct.map(
      (script): SortedRead<Omit<UnspentRow, 'height'> & { txnum: number }> =>
        async (last, n) =>
          (await confirmedUnspentQuery(this.store.db, this.chain, script, this.store.dialect, { after: last ?? page.after, limit: n }).execute()).map((r) => ({
            txid: txidHexOf(r.txid),
            vout: toNumber(r.vout),
            script: bytes(r.script),
            amount: toBigInt(r.amount),
            txnum: toNumber(r.txnum),
          })),
    );
    return sources.length === 0 ? [] : mergeSorted(sources, unspentOrder, page.limit);
  }

  /** Height of the block that confirmed this tx, or null when the index has no row of it. */
  async confirmedHeight(txid: string): Promise<number | null> {
    const n = (await this.confirmedTxNumbers(this.store.db, [txid])).get(txid);
    return n === undefined ? null : heightOfTxNum(n);
  }

  /** The mempool transaction spending each of these outpoints, by outpointKey (absent: none known). */
  async mempoolSpenders(outpoints: readonly Outpoint[]): Promise<Map<string, string>> {
    const wanted = new Set(outpoints.map((o) => key(o.txid, o.vout)));
    return this.consistently(
      async () => {
        const spends: { k: string; spender: string }[] = [];
        for (const part of chunks([...new Set(outpoints.map((o) => o.txid))], LOOKUP)) {
          const rows = await this.store.db.selectFrom('mempool_spends').select(['txid', 'vout', 'spent_txid']).where('chain', '=', this.chain).where('txid', 'in', part).orderBy('txid').orderBy('vout').execute();
          for (const r of rows) spends.push({ k: key(r.txid, toNumber(r.vout)), spender: r.spent_txid });
        }
        return spends.filter((s) => wanted.has(s.k));
      },
      async (spends, confirmed) => {
        // a spender the index holds as confirmed spends the output in a block, not in the mempool
        const skip = await confirmed.holds(spends.map((s) => s.spender));
        return new Map(spends.filter((s) => !skip.has(s.spender)).map((s) => [s.k, s.spender]));
      },
    );
  }


  /** Amount and script of outputs by outpoint, confirmed or in the mempool, spent or not. */
  async outputs(outpoints: readonly Outpoint[]): Promise<Map<string, OutputInfo>> {
    return this.lookupOutputs(this.store.db, outpoints);
  }
}

