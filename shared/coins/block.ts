/**
 * A serialized Bitcoin-format block (what `getblock <hash> 0` answers) read with the transaction
 * codec (tx.ts): its header and its transactions, each with its txid hashed in place from the
 * block's bytes. Which coins' blocks this reads whole is the coin table's `rawBlocks`.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { ByteReader, reversedHex } from './bytes.ts';
import type { ChainParams, RawBlockFormat } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { readCount } from './tx-transparent.ts';
import { readBitcoinTx, type BitcoinTx, type BitcoinTxReading, type TxSpans } from './tx.ts';

export interface BlockHeader {
  version: number;
  /** The previous block's hash, in display (RPC) order; all zeros for a genesis block. */
  previousHash: string;
  merkleRoot: string;
  time: number;
  bits: number;
  nonce: number;
}

export interface BlockTx {
  tx: BitcoinTx;
  /** As nodes show it: sha256d of the serialization without witness, byte-reversed, hex. */
  txid: string;
  /** Litecoin's HogEx transaction (MWEB's peg ledger), the last of an MWEB block. */
  hogEx: boolean;
}

export interface BitcoinBlock {
  header: BlockHeader;
  txs: BlockTx[];
}

const HEADER_SIZE = 80;
/** The smallest serialized transaction: version, one input, one output, locktime. */
const MIN_TX_SIZE = 60;

export type BlockCodecChoice = Pick<ChainParams, 'segwit'> & Partial<Pick<ChainParams, 'specialTx'>> & { rawBlocks: RawBlockFormat };

/** sha256d over the parts, hashed in place (no concatenated copy). */
function sha256dParts(parts: readonly Uint8Array[]): Uint8Array {
  const h = sha256.create();
  for (const p of parts) h.update(p);
  return sha256(h.digest());
}

/**
 * The double SHA-256 the txids are hashed with: this pure module's own by default; the service
 * passes Node's native one (a block of 100k transactions hashes in a fraction of the time).
 */
export interface BlockHashing {
  sha256d?: (parts: readonly Uint8Array[]) => Uint8Array;
}

function readHeader(r: ByteReader): BlockHeader {
  const version = r.readI32LE();
  const previousHash = reversedHex(r.readBytes(32));
  const merkleRoot = reversedHex(r.readBytes(32));
  const time = r.readU32LE();
  const bits = r.readU32LE();
  const nonce = r.readU32LE();
  return { version, previousHash, merkleRoot, time, bits, nonce };
}

/**
 * Reads a whole block. Trailing bytes are refused, except Litecoin's MWEB extension block after a
 * HogEx ('bitcoin-mweb'), which carries no transparent outputs and is left unread.
 */
export function decodeBitcoinBlock(bytes: Uint8Array, chain: BlockCodecChoice, hashing: BlockHashing = {}): BitcoinBlock {
  const hash = hashing.sha256d ?? sha256dParts;
  const r = new ByteReader(bytes, 'block');
  if (bytes.length < HEADER_SIZE) throw new CoinError(`block is truncated: ${bytes.length} bytes, shorter than its ${HEADER_SIZE}-byte header`);
  const header = readHeader(r);
  const count = readCount(r, 'transactions', MIN_TX_SIZE);
  if (count === 0) throw new CoinError('block has no transactions');
  const how: BitcoinTxReading = { allowWitness: chain.segwit, dash: chain.specialTx === 'dash-dip2', mweb: chain.rawBlocks === 'bitcoin-mweb' };
  const spans: TxSpans = { start: 0, inputsAt: 0, outputsEnd: 0, locktimeAt: 0, end: 0, hogEx: false };
  const txs: BlockTx[] = [];
  for (let i = 0; i < count; i++) {
    const tx = readBitcoinTx(r, how, spans);
    const { start, inputsAt, outputsEnd, locktimeAt, end } = spans;
    const parts =
      inputsAt === start + 4 && outputsEnd === locktimeAt
        ? [bytes.subarray(start, end)]
        : [bytes.subarray(start, start + 4), bytes.subarray(inputsAt, outputsEnd), bytes.subarray(locktimeAt, end)];
    if (spans.hogEx && i !== count - 1) throw new CoinError(`block is malformed: transaction ${i} is a HogEx but not the last one`);
    txs.push({ tx, txid: reversedHex(hash(parts)), hogEx: spans.hogEx });
  }
  const extension = how.mweb && count >= 2 && txs[count - 1]!.hogEx;
  if (!r.done() && !extension) throw new CoinError(`block has ${r.remaining()} unexpected trailing byte(s)`);
  return { header, txs };
}
