// A hand-made chain's blocks standing for the node the LevelDB index reads txs from
// (ConfirmedTxReader, level-index.ts): the unit tests' txids hash nothing, so no node could hold
// them; the regtest tests give the index a real litecoind (service/chains/utxo/node-txs.ts).
import type { ConfirmedTxReader, IndexedBlock, IndexedTx } from '../index/utxo-index.ts';

/** Reads each tx asked from the block `blockOf` gives for its hash (null: no such block or tx), as a node keeps stale blocks too. */
export function handMadeNode(blockOf: (hash: string) => IndexedBlock | undefined): ConfirmedTxReader {
  return async (asked) =>
    asked.map(({ txid, blockHash }) => {
      const tx = blockOf(blockHash)?.txs.find((t) => t.txid === txid);
      return tx ? { txid: tx.txid, outputs: tx.outputs } : null;
    });
}

/**
 * The txs of the blocks a test gives it, by block hash and txid: a test's node. Tests name blocks
 * by height alone (two branches' blocks share a hash), so a tx is kept under its block's hash and
 * its txid, the last one given winning.
 */
export class HandMadeBlocks {
  private readonly txs = new Map<string, IndexedTx>();
  readonly read: ConfirmedTxReader = async (asked) =>
    asked.map(({ txid, blockHash }) => {
      const tx = this.txs.get(`${blockHash}:${txid}`);
      return tx ? { txid: tx.txid, outputs: tx.outputs } : null;
    });

  /** Keeps `b`'s txs and gives it back. */
  add(b: IndexedBlock): IndexedBlock {
    for (const tx of b.txs) this.txs.set(`${b.hash}:${tx.txid}`, tx);
    return b;
  }
}
