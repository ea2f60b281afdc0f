/**
 * The transaction model and codec of every UTXO coin: Bitcoin's serialization (legacy and
 * segwit) and the Zcash family's overwintered v4 and v5 (tx-zcash.ts). `format` tells them
 * apart; a Tx without one is a Bitcoin-format transaction.
 */
import { ByteReader, ByteWriter, bytesToHex, hexToBytes, reverseBytes } from './bytes.ts';
import { VERSION_GROUP_ID, activeNetworkUpgrade, describeChain } from './coin-table.ts';
import type { ChainParams, TxFormat } from './coin-table.ts';
import { CoinError } from './errors.ts';
import { sha256d } from './hash.ts';
import { checkU32, readCount, readInputs, readOutputs, readVarBytesChecked, writeInputs, writeOutputs } from './tx-transparent.ts';
import type { TxInput, TxOutput } from './tx-transparent.ts';
import { decodeZcashTx, encodeZcashTx, isOverwinteredHeader } from './tx-zcash.ts';
import type { ZcashTx, ZcashV4Tx, ZcashV5Tx } from './tx-zcash.ts';
import { txidDigest } from './zcash/zip244-digests.ts';

export type { TxInput, TxOutput } from './tx-transparent.ts';
export type { JoinSplit, OrchardAction, OrchardBundle, SaplingBundle, SaplingOutput, SaplingSpend, ZcashTx, ZcashV4Tx, ZcashV5Tx } from './tx-zcash.ts';

/** A Bitcoin-rules transaction (legacy or segwit serialization). */
export interface BitcoinTx {
  format?: 'bitcoin';
  /** int32 on the wire, decoded signed; encoding also takes the unsigned form (up to 2^32-1). */
  version: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  locktime: number;
  /**
   * Dash special transactions (DIP2): the payload after the locktime. Their version's low 16 bits
   * are 3 and its high 16 bits the type; the txid covers the payload too.
   */
  extraPayload?: Uint8Array;
}

export type Tx = BitcoinTx | ZcashV4Tx | ZcashV5Tx;

/** The serialization a transaction uses ('bitcoin' when `format` is absent). */
export function txFormatOf(tx: Tx): TxFormat {
  return tx.format ?? 'bitcoin';
}

export function isBitcoinTx(tx: Tx): tx is BitcoinTx {
  return tx.format === undefined || tx.format === 'bitcoin';
}

export function isZcashTx(tx: Tx): tx is ZcashTx {
  return !isBitcoinTx(tx);
}

export function hasWitness(tx: Tx): boolean {
  return tx.inputs.some((i) => (i.witness?.length ?? 0) > 0);
}

function encodeBitcoinTx(tx: BitcoinTx, withWitness: boolean): Uint8Array {
  const w = new ByteWriter();
  if (!Number.isInteger(tx.version) || tx.version < -0x80000000 || tx.version > 0xffffffff) {
    throw new CoinError(`transaction version must be a 32-bit integer, got ${tx.version}`);
  }
  w.writeU32LE(tx.version >>> 0);
  if (withWitness) w.writeU8(0x00).writeU8(0x01);
  writeInputs(w, tx.inputs);
  writeOutputs(w, tx.outputs);
  if (withWitness) {
    for (const input of tx.inputs) {
      const items = input.witness ?? [];
      w.writeVarInt(items.length);
      for (const item of items) w.writeVarBytes(item);
    }
  }
  checkU32(tx.locktime, 'locktime');
  w.writeU32LE(tx.locktime);
  if (tx.extraPayload !== undefined) w.writeVarBytes(tx.extraPayload);
  return w.toBytes();
}

/** DIP2: version 3 (low 16 bits) with a non-zero type (high 16 bits) carries an extra payload. */
const isDashSpecial = (version: number): boolean => (version & 0xffff) >= 3 && version >>> 16 !== 0;

/**
 * Serializes a transaction. For the Bitcoin format the witness serialization (BIP144) is used
 * when an input carries witness data, unless `witness: false` asks for the legacy form (the one
 * txids hash); Zcash formats have no witness.
 */
export function encodeTx(tx: Tx, options: { witness?: boolean } = {}): Uint8Array {
  if (isBitcoinTx(tx)) return encodeBitcoinTx(tx, options.witness !== false && hasWitness(tx));
  return encodeZcashTx(tx);
}

function decodeBitcoinTx(bytes: Uint8Array, allowWitness: boolean, dash = false): BitcoinTx {
  const r = new ByteReader(bytes, 'transaction');
  const tx = readBitcoinTx(r, { allowWitness, dash });
  if (!r.done()) throw new CoinError(`transaction has ${r.remaining()} unexpected trailing byte(s)`);
  return tx;
}

/**
 * The transactions of a serialized Bitcoin-format block (the 80-byte header, then the count and the
 * transactions, segwit ones included): BIP158's filters are built from them.
 */
export function decodeBitcoinBlockTxs(bytes: Uint8Array): BitcoinTx[] {
  const r = new ByteReader(bytes, 'block');
  r.readBytes(80);
  const count = readCount(r, 'transactions', 60);
  const txs: BitcoinTx[] = [];
  for (let i = 0; i < count; i++) txs.push(readBitcoinTx(r, { allowWitness: true, dash: false }));
  if (!r.done()) throw new CoinError(`block has ${r.remaining()} unexpected trailing byte(s)`);
  return txs;
}

/** How readBitcoinTx reads: segwit allowed, Dash DIP2 payloads, Litecoin's MWEB flag (0x08). */
export interface BitcoinTxReading {
  allowWitness: boolean;
  dash: boolean;
  mweb?: boolean;
}

/**
 * Where a transaction read from a larger buffer lies, so its txid can be hashed in place: the
 * serialization without witness is [start, start + 4) + [inputsAt, outputsEnd) + [locktimeAt, end)
 * (one contiguous run when the transaction has no segwit or MWEB flag).
 */
export interface TxSpans {
  start: number;
  inputsAt: number;
  outputsEnd: number;
  locktimeAt: number;
  end: number;
  /** Litecoin's HogEx: the MWEB flag with no MWEB transaction; the extension block follows the last one. */
  hogEx: boolean;
}

/** One Bitcoin-format transaction from `r` (block.ts reads blocks with it, recording `spans`). */
export function readBitcoinTx(r: ByteReader, how: BitcoinTxReading, spans?: TxSpans): BitcoinTx {
  const start = r.position;
  const version = r.readI32LE();
  let flag = 0;
  // BIP144: a zero input count is the segwit marker, followed by flag 0x01 (Litecoin's MWEB: 0x08, 0x09).
  if (how.allowWitness && r.remaining() >= 1 && r.peekU8() === 0x00) {
    r.readU8();
    flag = r.readU8();
    const known = how.mweb ? flag === 0x01 || flag === 0x08 || flag === 0x09 : flag === 0x01;
    if (!known) throw new CoinError(`transaction has no inputs or an unknown serialization flag 0x${flag.toString(16)}`);
  }
  const segwit = (flag & 0x01) !== 0;
  const inputsAt = r.position;
  const inputs = readInputs(r);
  if (flag !== 0 && inputs.length === 0) throw new CoinError('transaction is malformed: segwit serialization with no inputs');
  const outputs = readOutputs(r);
  const outputsEnd = r.position;
  if (segwit) {
    for (const input of inputs) {
      const n = readCount(r, 'witness items', 1);
      const items: Uint8Array[] = [];
      for (let k = 0; k < n; k++) items.push(readVarBytesChecked(r, 'a witness item'));
      input.witness = items;
    }
    // Bitcoin Core refuses the segwit form when it carries no witness at all.
    if (!inputs.some((i) => (i.witness?.length ?? 0) > 0)) {
      throw new CoinError('transaction is malformed: segwit serialization with empty witnesses');
    }
  }
  let hogEx = false;
  if ((flag & 0x08) !== 0) {
    // Litecoin Core writes the MWEB part as an optional pointer: 0 (none) marks the HogEx.
    if (r.readU8() !== 0) throw new CoinError('transaction carries an MWEB transaction, which this codec does not read');
    if (outputs.length === 0) throw new CoinError('transaction is malformed: a HogEx without outputs');
    hogEx = true;
  }
  const locktimeAt = r.position;
  const locktime = r.readU32LE();
  const extraPayload = how.dash && isDashSpecial(version) ? readVarBytesChecked(r, 'the special transaction payload') : undefined;
  if (spans) {
    spans.start = start;
    spans.inputsAt = inputsAt;
    spans.outputsEnd = outputsEnd;
    spans.locktimeAt = locktimeAt;
    spans.end = r.position;
    spans.hogEx = hogEx;
  }
  return { version, inputs, outputs, locktime, ...(extraPayload !== undefined ? { extraPayload } : {}) };
}

/** Which codec a coin's transactions need: its table's format (and Dash's special transactions). */
export type TxCodecChoice = Pick<ChainParams, 'txFormat'> & Partial<Pick<ChainParams, 'coin' | 'specialTx'>>;

/**
 * Parses exactly one transaction. Without `chain`, or for a Bitcoin-format coin, it is a legacy
 * or segwit Bitcoin transaction (on Dash also a DIP2 special transaction with its payload). For a Zcash-family coin the header decides: overwintered v4 or
 * v5, or a pre-Overwinter v1 (Bitcoin's layout, no segwit); Sprout v2 and Overwinter v3 are
 * refused.
 */
export function decodeTx(bytes: Uint8Array): BitcoinTx;
export function decodeTx(bytes: Uint8Array, chain: TxCodecChoice | undefined): Tx;
export function decodeTx(bytes: Uint8Array, chain?: TxCodecChoice): Tx {
  if (chain === undefined || chain.txFormat === 'bitcoin') return decodeBitcoinTx(bytes, true, chain?.specialTx === 'dash-dip2');
  if (isOverwinteredHeader(bytes)) return decodeZcashTx(bytes);
  const tx = decodeBitcoinTx(bytes, false);
  if (tx.version !== 1) {
    throw new CoinError(`unsupported Zcash transaction version ${tx.version} (only v1, Sapling v4 and NU5 v5 transactions are supported)`);
  }
  return tx;
}

export function decodeTxHex(hex: string, field?: string): BitcoinTx;
export function decodeTxHex(hex: string, field: string | undefined, chain: TxCodecChoice | undefined): Tx;
export function decodeTxHex(hex: string, field?: string, chain?: TxCodecChoice): Tx {
  return decodeTx(hexToBytes(hex, field), chain);
}

export function encodeTxHex(tx: Tx, options: { witness?: boolean } = {}): string {
  return bytesToHex(encodeTx(tx, options));
}

/**
 * The txid as shown by nodes and explorers: for v5 the ZIP-244 txid digest, otherwise sha256d
 * of the serialization without witness; either byte-reversed, as zcashd and Bitcoin Core show it.
 */
export function txidHex(tx: Tx): string {
  const digest = tx.format === 'zcash-v5' ? txidDigest(tx) : sha256d(encodeTx(tx, { witness: false }));
  return bytesToHex(reverseBytes(digest));
}

/**
 * The wtxid (BIP141): sha256d of the full serialization, witnesses included, byte-reversed. Equal
 * to the txid for a transaction without witnesses. Bitcoin format only.
 */
export function wtxidHex(tx: BitcoinTx): string {
  return bytesToHex(reverseBytes(sha256d(encodeTx(tx))));
}

/** BIP141 weight: the serialization without witnesses counts 4 per byte, the witness part 1. */
export function txWeight(tx: BitcoinTx): number {
  return encodeTx(tx, { witness: false }).length * 3 + encodeTx(tx).length;
}

/** Virtual size: weight / 4, rounded up (what fee rates per virtual byte multiply). */
export function txVsize(tx: BitcoinTx): number {
  return Math.ceil(txWeight(tx) / 4);
}

export interface TransparentTxParts {
  inputs: TxInput[];
  outputs: TxOutput[];
  /**
   * Zcash only: the height of the block the transaction is meant for (tip height + 1). It picks
   * the consensus branch id a v5 transaction carries.
   */
  height?: number;
}

/**
 * A transparent-only transaction in the coin's own format, as the service builds it: the
 * table's version, locktime 0; for Zcash coins expiry height 0 (never expires, so days of
 * co-signing cannot void a payment) and no shielded parts.
 */
export function newTransparentTx(params: ChainParams, parts: TransparentTxParts): Tx {
  const { inputs, outputs } = parts;
  // Bitcoin-format transactions leave `format` out, as decodeTx does.
  if (params.txFormat === 'bitcoin') return { version: params.txVersion, inputs, outputs, locktime: 0 };
  const sapling = { valueBalance: 0n, spends: [], outputs: [] };
  if (params.txFormat === 'zcash-v4') {
    return { format: 'zcash-v4', version: 4, versionGroupId: VERSION_GROUP_ID['zcash-v4'], inputs, outputs, locktime: 0, expiryHeight: 0, sapling, joinSplits: [] };
  }
  if (parts.height === undefined) {
    throw new CoinError(`${describeChain(params)} transactions carry the network upgrade's branch id: the chain height is needed to build one`);
  }
  // activeNetworkUpgrade returns an element of the list, so indexOf finds it.
  const upgrade = activeNetworkUpgrade(params, parts.height);
  const since = params.networkUpgrades.findIndex((u) => u.name === params.txFormatSince);
  if (since >= 0 && params.networkUpgrades.indexOf(upgrade) < since) {
    throw new CoinError(`${describeChain(params)} at height ${parts.height} is before ${params.txFormatSince}: v5 transactions are not valid there yet`);
  }
  return {
    format: 'zcash-v5',
    version: 5,
    versionGroupId: VERSION_GROUP_ID['zcash-v5'],
    consensusBranchId: upgrade.branchId,
    locktime: 0,
    expiryHeight: 0,
    inputs,
    outputs,
    sapling,
  };
}
