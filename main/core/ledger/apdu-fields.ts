// The fields the Ledger apps' transaction commands carry: fixed-width integers (little-endian as
// transactions serialize them, big-endian where the apps' own headers want them) and the outputs
// block that HASH INPUT FINALIZE FULL takes. One definition for the device flows and their tests.
import { concatBytes, encodeCompactSize, type TxOutput } from '../../../shared/coins/index.ts';

function u32(n: number, littleEndian: boolean): Uint8Array {
  const o = new Uint8Array(4);
  new DataView(o.buffer).setUint32(0, n, littleEndian);
  return o;
}

export const u32le = (n: number): Uint8Array => u32(n, true);
export const u32be = (n: number): Uint8Array => u32(n, false);

export function u64le(v: bigint): Uint8Array {
  const o = new Uint8Array(8);
  new DataView(o.buffer).setBigUint64(0, v, true);
  return o;
}

/** The outputs as a transaction serializes them: count, then value and script of each. */
export function serializeOutputs(outputs: readonly TxOutput[]): Uint8Array {
  return concatBytes(encodeCompactSize(outputs.length), ...outputs.flatMap((o) => [u64le(o.value), encodeCompactSize(o.script.length), o.script]));
}
