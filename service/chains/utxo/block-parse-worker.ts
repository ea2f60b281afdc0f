// A parse thread of the indexer (block-parse-pool.ts): a raw block's bytes in (transferred), its compact encoding
// and, for the LevelDB index, its rows out, as buffers handed back whole (transferred, not copied).
// The decoding, the txids' double SHA-256 and the rows' hashes (script keys, txid hashes) are the
// indexer's main cost; here they run beside the thread that reads the node and writes the index.
import { parentPort } from 'node:worker_threads';
import type { BlockCodecChoice } from '../../../shared/coins/block.ts';
import { encodeRawBlockBytes, isCodecGap } from './raw-block.ts';
import { MalformedNodeAnswer } from './verbose-block.ts';
import { RowBuffer, streamRows } from '../../index/level-rows.ts';
import type { ParseAnswer, ParseRequest } from './block-parse-pool.ts';

const rows = new RowBuffer();

parentPort!.on('message', (request: ParseRequest) => {
  let answer: ParseAnswer;
  const transfer: ArrayBuffer[] = [];
  try {
    const parts = encodeRawBlockBytes(request.raw, request.hash, request.height, request.codec satisfies BlockCodecChoice);
    let levelRows: Uint8Array | undefined;
    if (request.levelRows) {
      streamRows([{ height: parts.height, hash: parts.hash, time: parts.time, bytes: parts.bytes }], rows, true);
      levelRows = rows.finish();
      transfer.push(levelRows.buffer as ArrayBuffer);
    }
    transfer.push(parts.bytes.buffer as ArrayBuffer, parts.offsets.buffer as ArrayBuffer);
    answer = { id: request.id, ok: true, parts, ...(levelRows ? { levelRows } : {}) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    answer = { id: request.id, ok: false, kind: isCodecGap(err) ? 'gap' : err instanceof MalformedNodeAnswer ? 'malformed' : 'error', message };
    transfer.length = 0;
  }
  parentPort!.postMessage(answer, transfer);
});
