// v1 history entries (spec section 9): one per transaction with its inputs and outputs, rebuilt
// from the transaction's bytes and the outputs it spends. Amounts of spent outputs come from the
// index, or from the previous transaction when the index no longer holds them.
import { scriptToAddress } from '../../shared/coins/address.ts';
import { bytesToHex } from '../../shared/coins/bytes.ts';
import { decodeTx, type Tx } from '../../shared/coins/tx.ts';
import type { HistoryTxV1 } from '../../shared/api/schemas-v1.ts';
import { type HistoryRow, outpointKey, type UtxoBackend } from '../chains/backend.ts';
import { ApiError } from '../errors.ts';
import { parseAddressList } from './address-list.ts';
import { refuseToken, type TokenQuery } from './address-queries.ts';
import { pageReads } from './read-slots.ts';

const COINBASE_TXID = '00'.repeat(32);

function isCoinbase(tx: Tx): boolean {
  return tx.inputs.length === 1 && bytesToHex(tx.inputs[0]!.prevTxid) === COINBASE_TXID && tx.inputs[0]!.vout === 0xffffffff;
}

async function transaction(backend: UtxoBackend, txid: string, cache: Map<string, Tx>): Promise<Tx> {
  const known = cache.get(txid);
  if (known) return known;
  const bytes = await backend.rawTransaction(txid);
  if (!bytes) throw new ApiError(502, `transaction ${txid} is in the ${backend.params.coin} index but its bytes are not available`);
  const tx = decodeTx(bytes, backend.params);
  cache.set(txid, tx);
  return tx;
}

/** Entries for the rows of one history page, each transaction once, in the page's order. */
async function v1Entries(backend: UtxoBackend, rows: readonly HistoryRow[]): Promise<HistoryTxV1[]> {
  const { params } = backend;
  const address = (script: Uint8Array) => scriptToAddress(params, script) ?? '';
  const firstRows = [...new Map(rows.map((r) => [r.txid, r])).values()];
  const txs = new Map<string, Tx>();
  const entries: HistoryTxV1[] = [];
  for (const row of firstRows) {
    const tx = await transaction(backend, row.txid, txs);
    const vouts = tx.outputs.map((o) => ({ amount: o.value, address: address(o.script) }));
    const total_out = vouts.reduce((t, o) => t + o.amount, 0n);
    let vins: HistoryTxV1['vins'] = [];
    if (!isCoinbase(tx)) {
      const outpoints = tx.inputs.map((i) => ({ txid: bytesToHex(i.prevTxid), vout: i.vout }));
      const spent = await backend.outputs(outpoints);
      vins = [];
      for (const o of outpoints) {
        let prev = spent.get(outpointKey(o.txid, o.vout));
        if (!prev) {
          const out = (await transaction(backend, o.txid, txs)).outputs[o.vout];
          if (!out) throw new ApiError(502, `transaction ${row.txid} spends ${o.txid}:${o.vout}, which does not exist`);
          prev = { script: out.script, amount: out.value };
        }
        vins.push({ amount: prev.amount, address: address(prev.script) });
      }
    }
    const total_in = vins.reduce((t, i) => t + i.amount, 0n);
    entries.push({
      blockheight: row.height ?? -1,
      time: row.time,
      total_out,
      total_in,
      fees: total_in > total_out ? total_in - total_out : 0n,
      vins,
      vouts,
      txid: row.txid,
    });
  }
  return entries;
}

/** One page of the addresses' history as v1 entries (v1 has no ethereum history). */
export async function v1History(backend: UtxoBackend, addresses: string, query: TokenQuery & { limit: number; offset: number }) {
  refuseToken(query, backend.params.coin);
  const queried = parseAddressList(backend, addresses);
  // the entries (every input and output of each transaction) are built inside the slot too: they are the page's bulk
  return pageReads.run(async () => {
    const page = await backend.history(queried.map((q) => q.script), query.limit, query.offset);
    return { total_txs: page.total, txs: await v1Entries(backend, page.rows) };
  });
}
