// Transaction numbers: the index's rows name a transaction by a number in chain order instead of
// its 32-byte txid. The number is derived, not counted: height * 2^20 + position in the block.
// - Any writer computes it from the block alone: the full index, watch mode (which stores only some
//   txs of some blocks, and whose rescans write older blocks later) and both stores agree on it.
// - A rollback to height h removes exactly the numbers from (h + 1) * 2^20 up: a range of keys.
// - It fits a JS number (2^53) up to height 2^33, and SQLite stores it in 6 bytes below height 2^27.
// - New outputs, keyed (tx number, vout), land at the right edge of the b-tree.
//
// Positions from RESERVED_POSITION up are not positions in the block: they are kept for outputs
// whose block position is unknown (an output read from `scantxoutset` for a block a pruned node no
// longer has). Such an output takes RESERVED_POSITION + k, k counting within its height. A block
// with more transactions than RESERVED_POSITION (983,040; the largest Bitcoin Cash block of 32 MB
// holds at most ~530,000) is refused in clear words.
// Loaded by the SQLite writer thread through Node's type stripping: erasable syntax only.

export const POSITION_BITS = 20;
export const POSITIONS = 2 ** POSITION_BITS;
/** The first position reserved for outputs whose place in their block is unknown. */
export const RESERVED_POSITION = POSITIONS - 2 ** 16;

export function txNumOf(height: number, position: number): number {
  if (position >= RESERVED_POSITION) throw new Error(`block ${height} has more than ${RESERVED_POSITION} transactions: the index numbers at most that many per block`);
  return height * POSITIONS + position;
}

export function heightOfTxNum(txnum: number): number {
  return Math.floor(txnum / POSITIONS);
}

export function positionOfTxNum(txnum: number): number {
  return txnum % POSITIONS;
}

/** The first tx number above `height`: rows of later blocks have numbers from here up. */
export function firstTxNumAbove(height: number): number {
  return (height + 1) * POSITIONS;
}

/** Bytes of a txid's prefix in chain_txid_keys: a collision is resolved by the full txid in chain_txids. */
export const TXID_PREFIX = 8;

export function txidPrefix(txid: Uint8Array): Buffer {
  const b = Buffer.from(txid.buffer, txid.byteOffset, txid.byteLength);
  return b.subarray(0, Math.min(TXID_PREFIX, b.length));
}
