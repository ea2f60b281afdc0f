// The service's own address index of a UTXO chain: outputs, spends and per-address history,
// written a block at a time inside one database transaction so a crash never leaves half a block.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Store } from './database.ts';
import { toBigInt, toNullableNumber, toNumber } from './database.ts';
import type { Database } from './schema.ts';

export interface IndexedOutput {
  vout: number;
  address: string;
  scriptHex: string;
  amount: bigint;
}

export interface Outpoint {
  txid: string;
  vout: number;
}

export interface IndexedTx {
  txid: string;
  /** Spent outpoints; coinbase inputs are left out. */
  inputs: Outpoint[];
  /** Only outputs that render to an address of the coin. */
  outputs: IndexedOutput[];
}

export interface IndexedBlock {
  height: number;
  hash: string;
  time: number;
  txs: IndexedTx[];
}

export interface AddressBalance {
  address: string;
  confirmed: bigint;
  unconfirmed: bigint;
}

export interface HistoryRow {
  address: string;
  txid: string;
  height: number | null;
  time: number;
  delta: bigint;
}

export interface UnspentRow {
  txid: string;
  vout: number;
  address: string;
  scriptHex: string;
  amount: bigint;
  height: number | null;
}

type Db = Kysely<Database> | Transaction<Database>;

const CHUNK = 400;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class UtxoIndexStore {
  constructor(
    private readonly store: Store,
    readonly chain: string,
  ) {}

  async tip(): Promise<{ height: number; hash: string } | null> {
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
    const row = await this.store.db
      .selectFrom('chain_blocks')
      .select('hash')
      .where('chain', '=', this.chain)
      .where('height', '=', height)
      .executeTakeFirst();
    return row?.hash ?? null;
  }

  /** Applies one block. Mempool entries of its transactions are replaced by the confirmed ones. */
  async applyBlock(block: IndexedBlock, mempoolTxids: ReadonlySet<string>): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      const confirmedFromMempool = block.txs.map((t) => t.txid).filter((id) => mempoolTxids.has(id));
      if (confirmedFromMempool.length > 0) await this.deleteMempoolTxs(trx, confirmedFromMempool);
      await this.writeTxs(trx, block.txs, block.height, block.time);
      await trx
        .insertInto('chain_blocks')
        .values({ chain: this.chain, height: block.height, hash: block.hash, time: block.time })
        .execute();
    });
  }

  async applyMempoolTx(tx: IndexedTx, firstSeen: number): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      await this.writeTxs(trx, [tx], null, firstSeen);
      await trx
        .insertInto('chain_mempool')
        .values({ chain: this.chain, txid: tx.txid, first_seen: firstSeen })
        .onConflict((oc) => oc.columns(['chain', 'txid']).doNothing())
        .execute();
    });
  }

  async removeMempoolTxs(txids: readonly string[]): Promise<void> {
    if (txids.length === 0) return;
    await this.store.db.transaction().execute((trx) => this.deleteMempoolTxs(trx, txids));
  }

  async mempoolTxids(): Promise<Set<string>> {
    const rows = await this.store.db.selectFrom('chain_mempool').select('txid').where('chain', '=', this.chain).execute();
    return new Set(rows.map((r) => r.txid));
  }

  /** Undoes every block above `height` and forgets the mempool (it is re-read from the node). */
  async rollbackTo(height: number): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      const c = this.chain;
      await trx.deleteFrom('chain_outputs').where('chain', '=', c).where('height', '>', height).execute();
      await trx.deleteFrom('chain_spends').where('chain', '=', c).where('height', '>', height).execute();
      await trx.deleteFrom('chain_history').where('chain', '=', c).where('height', '>', height).execute();
      await trx.deleteFrom('chain_blocks').where('chain', '=', c).where('height', '>', height).execute();
      await trx.deleteFrom('chain_outputs').where('chain', '=', c).where('height', 'is', null).execute();
      await trx.deleteFrom('chain_spends').where('chain', '=', c).where('height', 'is', null).execute();
      await trx.deleteFrom('chain_history').where('chain', '=', c).where('height', 'is', null).execute();
      await trx.deleteFrom('chain_mempool').where('chain', '=', c).execute();
    });
  }

  private async deleteMempoolTxs(trx: Db, txids: readonly string[]): Promise<void> {
    const c = this.chain;
    for (const part of chunks(txids)) {
      await trx.deleteFrom('chain_outputs').where('chain', '=', c).where('txid', 'in', part).where('height', 'is', null).execute();
      await trx.deleteFrom('chain_spends').where('chain', '=', c).where('spent_txid', 'in', part).where('height', 'is', null).execute();
      await trx.deleteFrom('chain_history').where('chain', '=', c).where('txid', 'in', part).where('height', 'is', null).execute();
      await trx.deleteFrom('chain_mempool').where('chain', '=', c).where('txid', 'in', part).execute();
    }
  }

  /** Writes outputs, spends and history of txs in order; `height` null means mempool. */
  private async writeTxs(trx: Db, txs: readonly IndexedTx[], height: number | null, time: number): Promise<void> {
    const c = this.chain;
    const known = await this.lookupOutputs(trx, txs);
    const outputRows: Database['chain_outputs'][] = [];
    const spendRows: Database['chain_spends'][] = [];
    const historyRows: Database['chain_history'][] = [];

    txs.forEach((tx, position) => {
      const deltas = new Map<string, bigint>();
      for (const input of tx.inputs) {
        const prev = known.get(`${input.txid}:${input.vout}`);
        if (!prev) continue; // not an output of an address we render
        deltas.set(prev.address, (deltas.get(prev.address) ?? 0n) - prev.amount);
        spendRows.push({ chain: c, txid: input.txid, vout: input.vout, spent_txid: tx.txid, height });
      }
      for (const out of tx.outputs) {
        deltas.set(out.address, (deltas.get(out.address) ?? 0n) + out.amount);
        known.set(`${tx.txid}:${out.vout}`, { address: out.address, amount: out.amount });
        outputRows.push({ chain: c, txid: tx.txid, vout: out.vout, address: out.address, script: out.scriptHex, amount: out.amount, height, position });
      }
      for (const [address, delta] of deltas) {
        historyRows.push({ chain: c, address, txid: tx.txid, height, position, time, delta });
      }
    });

    for (const part of chunks(outputRows)) {
      await trx
        .insertInto('chain_outputs')
        .values(part)
        .onConflict((oc) =>
          oc.columns(['chain', 'txid', 'vout']).doUpdateSet((eb) => ({
            address: eb.ref('excluded.address'),
            script: eb.ref('excluded.script'),
            amount: eb.ref('excluded.amount'),
            height: eb.ref('excluded.height'),
            position: eb.ref('excluded.position'),
          })),
        )
        .execute();
    }
    for (const part of chunks(spendRows)) {
      await trx
        .insertInto('chain_spends')
        .values(part)
        .onConflict((oc) =>
          // A confirmed spend replaces a conflicting mempool spend; a mempool spend never replaces a confirmed one.
          height === null
            ? oc.columns(['chain', 'txid', 'vout']).doNothing()
            : oc.columns(['chain', 'txid', 'vout']).doUpdateSet((eb) => ({
                spent_txid: eb.ref('excluded.spent_txid'),
                height: eb.ref('excluded.height'),
              })),
        )
        .execute();
    }
    for (const part of chunks(historyRows)) {
      await trx
        .insertInto('chain_history')
        .values(part)
        .onConflict((oc) =>
          oc.columns(['chain', 'address', 'txid']).doUpdateSet((eb) => ({
            height: eb.ref('excluded.height'),
            position: eb.ref('excluded.position'),
            time: eb.ref('excluded.time'),
            delta: eb.ref('excluded.delta'),
          })),
        )
        .execute();
    }
  }

  /** Address and amount of every already-indexed output the given txs spend. */
  private async lookupOutputs(trx: Db, txs: readonly IndexedTx[]): Promise<Map<string, { address: string; amount: bigint }>> {
    const own = new Set(txs.map((t) => t.txid));
    const wanted = new Set<string>();
    for (const tx of txs) for (const input of tx.inputs) if (!own.has(input.txid)) wanted.add(input.txid);
    const found = new Map<string, { address: string; amount: bigint }>();
    for (const part of chunks([...wanted])) {
      const rows = await trx
        .selectFrom('chain_outputs')
        .select(['txid', 'vout', 'address', 'amount'])
        .where('chain', '=', this.chain)
        .where('txid', 'in', part)
        .execute();
      for (const r of rows) found.set(`${r.txid}:${toNumber(r.vout)}`, { address: r.address, amount: toBigInt(r.amount) });
    }
    return found;
  }

  // ---- queries --------------------------------------------------------------------------------

  async balances(addresses: readonly string[]): Promise<AddressBalance[]> {
    const sums = new Map<string, { confirmed: bigint; unconfirmed: bigint }>();
    for (const part of chunks(addresses)) {
      const rows = await this.store.db
        .selectFrom('chain_history')
        .select((eb) => [
          'address',
          eb.fn.sum<string>(sql`case when height is null then 0 else delta end`).as('confirmed'),
          eb.fn.sum<string>(sql`case when height is null then delta else 0 end`).as('unconfirmed'),
        ])
        .where('chain', '=', this.chain)
        .where('address', 'in', part)
        .groupBy('address')
        .execute();
      for (const r of rows) sums.set(r.address, { confirmed: toBigInt(r.confirmed), unconfirmed: toBigInt(r.unconfirmed) });
    }
    return addresses.map((address) => ({ address, confirmed: 0n, unconfirmed: 0n, ...sums.get(address) }));
  }

  async history(addresses: readonly string[], limit: number, offset: number): Promise<{ total: number; rows: HistoryRow[] }> {
    const base = this.store.db.selectFrom('chain_history').where('chain', '=', this.chain).where('address', 'in', addresses);
    const count = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .select(['address', 'txid', 'height', 'time', 'delta'])
      .orderBy(sql`case when height is null then 0 else 1 end`)
      .orderBy('height', 'desc')
      .orderBy('position', 'desc')
      .orderBy('time', 'desc')
      .orderBy('txid')
      .orderBy('address')
      .limit(limit)
      .offset(offset)
      .execute();
    return {
      total: toNumber(count.n),
      rows: rows.map((r) => ({ address: r.address, txid: r.txid, height: toNullableNumber(r.height), time: toNumber(r.time), delta: toBigInt(r.delta) })),
    };
  }

  /** Outputs not spent by any confirmed or mempool transaction, oldest first, mempool last. */
  async unspent(addresses: readonly string[]): Promise<UnspentRow[]> {
    const rows = await this.store.db
      .selectFrom('chain_outputs as o')
      .leftJoin('chain_spends as s', (join) =>
        join.onRef('s.chain', '=', 'o.chain').onRef('s.txid', '=', 'o.txid').onRef('s.vout', '=', 'o.vout'),
      )
      .select(['o.txid', 'o.vout', 'o.address', 'o.script', 'o.amount', 'o.height'])
      .where('o.chain', '=', this.chain)
      .where('o.address', 'in', addresses)
      .where('s.txid', 'is', null)
      .orderBy(sql`case when o.height is null then 1 else 0 end`)
      .orderBy('o.height')
      .orderBy('o.position')
      .orderBy('o.vout')
      .execute();
    return rows.map((r) => ({
      txid: r.txid,
      vout: toNumber(r.vout),
      address: r.address,
      scriptHex: r.script,
      amount: toBigInt(r.amount),
      height: toNullableNumber(r.height),
    }));
  }

  async mempoolCount(): Promise<number> {
    const row = await this.store.db
      .selectFrom('chain_mempool')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('chain', '=', this.chain)
      .executeTakeFirstOrThrow();
    return toNumber(row.n);
  }
}
