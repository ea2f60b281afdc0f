// The EVM index in the store: blocks written (for reorgs), Ether and ERC20 transfers, and the
// transactions create chose for sign_and_send. Addresses are lower-case hex with 0x.
import type { Store } from './database.ts';
import { toBigInt, toNumber } from './database.ts';

export interface EvmBlock {
  height: number;
  hash: string;
  time: number;
}

export interface EvmTransfer {
  txid: string;
  /** -1 for the transaction's Ether value */
  logIndex: number;
  /** contract address, '' for Ether */
  token: string;
  from: string;
  to: string;
  amount: bigint;
  height: number;
  time: number;
}

export interface EvmHistoryRow {
  txid: string;
  address: string;
  delta: bigint;
  height: number;
  time: number;
}

export interface PendingCreate {
  from: string;
  to: string;
  token: string;
  amount: bigint;
  nonce: bigint;
  gasPrice: bigint;
  gasLimit: bigint;
  chainId: bigint;
}

const WRITE_CHUNK = 200;

export class EvmIndexStore {
  constructor(
    private readonly store: Store,
    readonly chain: string,
  ) {}

  async tip(): Promise<EvmBlock | null> {
    const row = await this.store.db
      .selectFrom('evm_blocks')
      .select(['height', 'hash', 'time'])
      .where('chain', '=', this.chain)
      .orderBy('height', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { height: toNumber(row.height), hash: row.hash, time: toNumber(row.time) } : null;
  }

  async blockHash(height: number): Promise<string | null> {
    const row = await this.store.db
      .selectFrom('evm_blocks')
      .select('hash')
      .where('chain', '=', this.chain)
      .where('height', '=', height)
      .executeTakeFirst();
    return row?.hash ?? null;
  }

  /** Writes blocks and their transfers in one transaction, so a crash never leaves half a batch. */
  async write(blocks: readonly EvmBlock[], transfers: readonly EvmTransfer[]): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < blocks.length; i += WRITE_CHUNK) {
        await trx
          .insertInto('evm_blocks')
          .values(blocks.slice(i, i + WRITE_CHUNK).map((b) => ({ chain: this.chain, height: b.height, hash: b.hash, time: b.time })))
          .execute();
      }
      for (let i = 0; i < transfers.length; i += WRITE_CHUNK) {
        await trx
          .insertInto('evm_transfers')
          .values(
            transfers.slice(i, i + WRITE_CHUNK).map((t) => ({
              chain: this.chain,
              txid: t.txid,
              log_index: t.logIndex,
              token: t.token,
              from_addr: t.from,
              to_addr: t.to,
              amount: t.amount.toString(),
              height: t.height,
              time: t.time,
            })),
          )
          .execute();
      }
    });
  }

  /** Forgets every block above `height` and what it wrote (a reorg's fork point). */
  async rollbackAbove(height: number): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('evm_transfers').where('chain', '=', this.chain).where('height', '>', height).execute();
      await trx.deleteFrom('evm_blocks').where('chain', '=', this.chain).where('height', '>', height).execute();
    });
  }

  /**
   * Net effect of each transaction on each queried address, newest first. Amounts are summed in
   * JavaScript (they are text in the store); the cost grows with the addresses' transfer count.
   */
  async history(addresses: readonly string[], token: string): Promise<EvmHistoryRow[]> {
    if (addresses.length === 0) return [];
    const rows = await this.store.db
      .selectFrom('evm_transfers')
      .select(['txid', 'log_index', 'from_addr', 'to_addr', 'amount', 'height', 'time'])
      .where('chain', '=', this.chain)
      .where('token', '=', token)
      .where((eb) => eb.or([eb('from_addr', 'in', addresses), eb('to_addr', 'in', addresses)]))
      .execute();
    const wanted = new Set(addresses);
    const byKey = new Map<string, EvmHistoryRow>();
    const add = (txid: string, address: string, delta: bigint, height: number, time: number) => {
      const key = `${txid}/${address}`;
      const e = byKey.get(key);
      if (e) e.delta += delta;
      else byKey.set(key, { txid, address, delta, height, time });
    };
    for (const r of rows) {
      const amount = BigInt(r.amount);
      const height = toNumber(r.height);
      const time = toNumber(r.time);
      if (wanted.has(r.from_addr)) add(r.txid, r.from_addr, -amount, height, time);
      if (wanted.has(r.to_addr)) add(r.txid, r.to_addr, amount, height, time);
    }
    return [...byKey.values()]
      .filter((e) => e.delta !== 0n)
      .sort((a, b) => b.height - a.height || (a.txid < b.txid ? 1 : a.txid > b.txid ? -1 : 0) || (a.address < b.address ? -1 : 1));
  }

  async savePending(p: PendingCreate): Promise<void> {
    const row = {
      chain: this.chain,
      from_addr: p.from,
      to_addr: p.to,
      token: p.token,
      amount: p.amount.toString(),
      nonce: p.nonce.toString(),
      gas_price: p.gasPrice.toString(),
      gas_limit: p.gasLimit.toString(),
      chain_id: p.chainId.toString(),
      created_at: Date.now(),
    };
    await this.store.db
      .insertInto('evm_pending_creates')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['chain', 'from_addr', 'to_addr', 'token', 'amount']).doUpdateSet({
          nonce: row.nonce,
          gas_price: row.gas_price,
          gas_limit: row.gas_limit,
          chain_id: row.chain_id,
          created_at: row.created_at,
        }),
      )
      .execute();
  }

  async pending(key: { from: string; to: string; token: string; amount: bigint }): Promise<PendingCreate | null> {
    const row = await this.store.db
      .selectFrom('evm_pending_creates')
      .selectAll()
      .where('chain', '=', this.chain)
      .where('from_addr', '=', key.from)
      .where('to_addr', '=', key.to)
      .where('token', '=', key.token)
      .where('amount', '=', key.amount.toString())
      .executeTakeFirst();
    if (!row) return null;
    return {
      from: row.from_addr,
      to: row.to_addr,
      token: row.token,
      amount: BigInt(row.amount),
      nonce: toBigInt(row.nonce),
      gasPrice: BigInt(row.gas_price),
      gasLimit: BigInt(row.gas_limit),
      chainId: toBigInt(row.chain_id),
    };
  }

  async deletePending(key: { from: string; to: string; token: string; amount: bigint }): Promise<void> {
    await this.store.db
      .deleteFrom('evm_pending_creates')
      .where('chain', '=', this.chain)
      .where('from_addr', '=', key.from)
      .where('to_addr', '=', key.to)
      .where('token', '=', key.token)
      .where('amount', '=', key.amount.toString())
      .execute();
  }
}
