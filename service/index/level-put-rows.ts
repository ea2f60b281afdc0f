// The writer's half of the LevelDB rows (level-rows.ts): a batch's blocks' rows, made on a parse
// thread from raw bytes (level-raw-rows.ts) or by streamRows, copied into the store's write batch in
// height order, with the check across the batch's blocks that no output is spent twice. Apart from
// level-rows.ts because naming a double spend reads raw blocks again, and the raw reader builds on
// level-rows.ts's encodings.
import type { EncodedBlock } from './blocks.ts';
import { RawRowReader } from './level-raw-rows.ts';
import { HASH_KEY, readOrderedVarint, streamRows, TAG, type Writes } from './level-rows.ts';

/** Rows are copied into these (one a length, reused) before they go to the batch, which copies them: no view a row. */
const keyScratch: Buffer[] = [];
const valueScratch: Buffer[] = [];
/** Values longer than this (T rows) go as views of the row buffer. */
const SCRATCH_VALUE = 16;

/**
 * Puts the rows of `blocks` (each made from its raw bytes, level-raw-rows.ts, or by streamRows)
 * into `out`, in order. Each block's own rows were checked for an output spent twice; across the
 * blocks the S rows say it: a number a spend (53 bits of the spent outpoint's hash and vout) is
 * looked up, and when two meet the blocks are read again to tell a double spend (named in
 * streamRows' words) from two outpoints that only share the number.
 */
export function putRows(blocks: readonly (EncodedBlock & { levelRows: Uint8Array })[], out: Writes): void {
  const spent = blocks.length > 1 ? new Set<number>() : null;
  for (const block of blocks) {
    const b = Buffer.from(block.levelRows.buffer, block.levelRows.byteOffset, block.levelRows.byteLength);
    for (let at = 0; at < b.length; ) {
      const keyLength = b[at]!;
      const keyAt = at + 1;
      const keyEnd = keyAt + keyLength;
      const valueLength = b.readUInt32LE(keyEnd);
      const valueAt = keyEnd + 4;
      if (spent && b[keyAt] === TAG.spending) {
        const first = b[keyAt + 1 + HASH_KEY]!;
        const vout = first < 0x80 ? first : readOrderedVarint(b, keyAt + 1 + HASH_KEY)[0];
        const fingerprint = ((b.readUInt32LE(keyAt + 1) ^ vout) >>> 0) * 0x200000 + (b.readUInt32LE(keyAt + 5) & 0x1fffff);
        if (spent.has(fingerprint)) nameDoubleSpend(blocks); // throws when it is one
        spent.add(fingerprint);
      }
      const k = (keyScratch[keyLength] ??= Buffer.allocUnsafeSlow(keyLength));
      for (let i = 0; i < keyLength; i++) k[i] = b[keyAt + i]!;
      let v: Buffer;
      if (valueLength <= SCRATCH_VALUE) {
        v = valueScratch[valueLength] ??= Buffer.allocUnsafeSlow(valueLength);
        for (let i = 0; i < valueLength; i++) v[i] = b[valueAt + i]!;
      } else v = b.subarray(valueAt, valueAt + valueLength);
      out.put(k, v);
      at = valueAt + valueLength;
    }
  }
}

/** Reads the blocks' spends again, by outpoint: throws on the first spent twice, in streamRows' words. */
function nameDoubleSpend(blocks: readonly EncodedBlock[]): void {
  const seen = new Map<string, number>();
  const reader = new RawRowReader();
  const ignore: Writes = { put: () => undefined, del: () => undefined };
  for (const block of blocks) {
    if (block.raw) reader.read(block.raw.bytes, block.height, block.raw.chain, seen);
    else streamRows([block], ignore, true, seen);
  }
}
