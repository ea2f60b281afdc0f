import { ByteReader, ByteWriter, bytesToHex, hexToBytes, reverseBytes } from './bytes.ts';
import { CoinError } from './errors.ts';
import { sha256d } from './hash.ts';

export interface TxInput {
  /** 32 bytes in display (RPC) order, as txids are shown; reversed on the wire. */
  prevTxid: Uint8Array;
  vout: number;
  scriptSig: Uint8Array;
  sequence: number;
  witness?: Uint8Array[];
}

export interface TxOutput {
  value: bigint;
  script: Uint8Array;
}

/** A Bitcoin-rules transaction (legacy or segwit serialization). */
export interface Tx {
  /** int32 on the wire, decoded signed; encoding also takes the unsigned form (up to 2^32-1). */
  version: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  locktime: number;
}

/** Bitcoin Core's MAX_SIZE for any single length: larger is never a real transaction. */
const MAX_SIZE = 0x02000000;
/** Smallest serialized input (outpoint 36 + empty script 1 + sequence 4) and output (8 + 1). */
const MIN_INPUT_SIZE = 41;
const MIN_OUTPUT_SIZE = 9;

export function hasWitness(tx: Tx): boolean {
  return tx.inputs.some((i) => (i.witness?.length ?? 0) > 0);
}

function checkU32(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new CoinError(`${what} must be a 32-bit unsigned integer, got ${v}`);
}

/**
 * Serializes a transaction. The witness serialization (BIP144) is used when an input carries
 * witness data, unless `witness: false` asks for the legacy form (the one txids hash).
 */
export function encodeTx(tx: Tx, options: { witness?: boolean } = {}): Uint8Array {
  const withWitness = options.witness !== false && hasWitness(tx);
  const w = new ByteWriter();
  if (!Number.isInteger(tx.version) || tx.version < -0x80000000 || tx.version > 0xffffffff) {
    throw new CoinError(`transaction version must be a 32-bit integer, got ${tx.version}`);
  }
  w.writeU32LE(tx.version >>> 0);
  if (withWitness) w.writeU8(0x00).writeU8(0x01);
  w.writeVarInt(tx.inputs.length);
  tx.inputs.forEach((input, i) => {
    if (input.prevTxid.length !== 32) throw new CoinError(`input ${i}: previous txid must be 32 bytes, got ${input.prevTxid.length}`);
    checkU32(input.vout, `input ${i}: output index`);
    checkU32(input.sequence, `input ${i}: sequence`);
    w.writeBytes(reverseBytes(input.prevTxid)).writeU32LE(input.vout).writeVarBytes(input.scriptSig).writeU32LE(input.sequence);
  });
  w.writeVarInt(tx.outputs.length);
  tx.outputs.forEach((output, i) => {
    if (output.value < 0n || output.value > 0xffffffffffffffffn) throw new CoinError(`output ${i}: value out of range: ${output.value}`);
    w.writeU64LE(output.value).writeVarBytes(output.script);
  });
  if (withWitness) {
    for (const input of tx.inputs) {
      const items = input.witness ?? [];
      w.writeVarInt(items.length);
      for (const item of items) w.writeVarBytes(item);
    }
  }
  checkU32(tx.locktime, 'locktime');
  w.writeU32LE(tx.locktime);
  return w.toBytes();
}

function readCount(r: ByteReader, what: string, minItemSize: number): number {
  const n = r.readVarInt();
  if (n > MAX_SIZE || n * minItemSize > r.remaining()) {
    throw new CoinError(`transaction is malformed: ${n} ${what} cannot fit in the ${r.remaining()} bytes left`);
  }
  return n;
}

function readVarBytesChecked(r: ByteReader, what: string): Uint8Array {
  const n = r.readVarInt();
  if (n > MAX_SIZE) throw new CoinError(`transaction is malformed: ${what} of ${n} bytes`);
  return r.readBytes(n);
}

/** Parses a legacy or segwit transaction; anything but exactly one transaction is a CoinError. */
export function decodeTx(bytes: Uint8Array): Tx {
  const r = new ByteReader(bytes, 'transaction');
  const version = r.readI32LE();
  let segwit = false;
  // BIP144: a zero input count is the segwit marker, followed by flag 0x01.
  if (r.remaining() >= 1 && bytes[r.position] === 0x00) {
    r.readU8();
    const flag = r.readU8();
    if (flag !== 0x01) throw new CoinError(`transaction has no inputs or an unknown serialization flag 0x${flag.toString(16)}`);
    segwit = true;
  }
  const inputs: TxInput[] = [];
  const nIn = readCount(r, 'inputs', MIN_INPUT_SIZE);
  for (let i = 0; i < nIn; i++) {
    const prevTxid = reverseBytes(r.readBytes(32));
    const vout = r.readU32LE();
    const scriptSig = readVarBytesChecked(r, 'an input script');
    const sequence = r.readU32LE();
    inputs.push({ prevTxid, vout, scriptSig, sequence });
  }
  if (segwit && nIn === 0) throw new CoinError('transaction is malformed: segwit serialization with no inputs');
  const outputs: TxOutput[] = [];
  const nOut = readCount(r, 'outputs', MIN_OUTPUT_SIZE);
  for (let i = 0; i < nOut; i++) {
    const value = r.readU64LE();
    const script = readVarBytesChecked(r, 'an output script');
    outputs.push({ value, script });
  }
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
  const locktime = r.readU32LE();
  if (!r.done()) throw new CoinError(`transaction has ${r.remaining()} unexpected trailing byte(s)`);
  return { version, inputs, outputs, locktime };
}

export function decodeTxHex(hex: string, field?: string): Tx {
  return decodeTx(hexToBytes(hex, field));
}

export function encodeTxHex(tx: Tx, options: { witness?: boolean } = {}): string {
  return bytesToHex(encodeTx(tx, options));
}

/** The txid as shown by nodes and explorers: sha256d of the non-witness form, reversed. */
export function txidHex(tx: Tx): string {
  return bytesToHex(reverseBytes(sha256d(encodeTx(tx, { witness: false }))));
}
