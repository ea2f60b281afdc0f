/**
 * The transparent parts every transaction format shares (inputs, outputs and their wire form),
 * and the strict readers the codecs use. Bitcoin and Zcash serialize them identically.
 */
import { ByteWriter, reverseBytes } from './bytes.ts';
import type { ByteReader } from './bytes.ts';
import { CoinError } from './errors.ts';

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

/** Bitcoin Core's MAX_SIZE for any single length: larger is never a real transaction. */
export const MAX_SIZE = 0x02000000;
/** Smallest serialized input (outpoint 36 + empty script 1 + sequence 4) and output (8 + 1). */
const MIN_INPUT_SIZE = 41;
const MIN_OUTPUT_SIZE = 9;

export function checkU32(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new CoinError(`${what} must be a 32-bit unsigned integer, got ${v}`);
}

/** A count of items of at least `minItemSize` bytes each: refused when they cannot fit. */
export function readCount(r: ByteReader, what: string, minItemSize: number): number {
  const n = r.readVarInt();
  if (n > MAX_SIZE || n * minItemSize > r.remaining()) {
    throw new CoinError(`transaction is malformed: ${n} ${what} cannot fit in the ${r.remaining()} bytes left`);
  }
  return n;
}

export function readVarBytesChecked(r: ByteReader, what: string): Uint8Array {
  const n = r.readVarInt();
  if (n > MAX_SIZE) throw new CoinError(`transaction is malformed: ${what} of ${n} bytes`);
  return r.readBytes(n);
}

/** The 36-byte outpoint (txid in wire order, output index) an input spends. */
export function encodeOutpoint(input: TxInput, index: number): Uint8Array {
  if (input.prevTxid.length !== 32) throw new CoinError(`input ${index}: previous txid must be 32 bytes, got ${input.prevTxid.length}`);
  checkU32(input.vout, `input ${index}: output index`);
  return new ByteWriter().writeBytes(reverseBytes(input.prevTxid)).writeU32LE(input.vout).toBytes();
}

export function writeOutput(w: ByteWriter, output: TxOutput, index: number): void {
  if (output.value < 0n || output.value > 0xffffffffffffffffn) throw new CoinError(`output ${index}: value out of range: ${output.value}`);
  w.writeU64LE(output.value).writeVarBytes(output.script);
}

/** One output as serialized (value, script with its length): what output hashes commit to. */
export function encodeOutput(output: TxOutput, index: number): Uint8Array {
  const w = new ByteWriter();
  writeOutput(w, output, index);
  return w.toBytes();
}

export function writeInputs(w: ByteWriter, inputs: readonly TxInput[]): void {
  w.writeVarInt(inputs.length);
  inputs.forEach((input, i) => {
    w.writeBytes(encodeOutpoint(input, i));
    checkU32(input.sequence, `input ${i}: sequence`);
    w.writeVarBytes(input.scriptSig).writeU32LE(input.sequence);
  });
}

export function writeOutputs(w: ByteWriter, outputs: readonly TxOutput[]): void {
  w.writeVarInt(outputs.length);
  outputs.forEach((output, i) => writeOutput(w, output, i));
}

export function readInputs(r: ByteReader): TxInput[] {
  const n = readCount(r, 'inputs', MIN_INPUT_SIZE);
  const inputs: TxInput[] = [];
  for (let i = 0; i < n; i++) {
    const prevTxid = reverseBytes(r.readBytes(32));
    const vout = r.readU32LE();
    const scriptSig = readVarBytesChecked(r, 'an input script');
    const sequence = r.readU32LE();
    inputs.push({ prevTxid, vout, scriptSig, sequence });
  }
  return inputs;
}

export function readOutputs(r: ByteReader): TxOutput[] {
  const n = readCount(r, 'outputs', MIN_OUTPUT_SIZE);
  const outputs: TxOutput[] = [];
  for (let i = 0; i < n; i++) {
    const value = r.readU64LE();
    const script = readVarBytesChecked(r, 'an output script');
    outputs.push({ value, script });
  }
  return outputs;
}
