// A parse thread of the indexer (block-parse-pool.ts): a raw block's bytes in (transferred). For the
// LevelDB index its rows, txids and tx offsets come out, read from the bytes in one pass
// (index/level-raw-rows.ts), with the bytes themselves; for the SQL stores its compact encoding.
// All are handed back whole (transferred, not copied). The decoding, the txids' double SHA-256 and
// the rows' hashes (script keys, txid hashes) are the indexer's main cost; here they run beside
// the thread that reads the node and writes the index.
import { parentPort } from 'node:worker_threads';
import type { BlockCodecChoice } from '../../../shared/coins/block.ts';
import { encodeRawBlockBytes, isCodecGap, rawRowsOf } from './raw-block.ts';
import { MalformedNodeAnswer } from './verbose-block.ts';
import { RawRowReader } from '../../index/level-raw-rows.ts';
import type { ParseAnswer, ParseRequest } from './block-parse-pool.ts';

const reader = new RawRowReader();

parentPort!.on('message', (request: ParseRequest) => {
  let answer: ParseAnswer;
  let transfer: ArrayBuffer[];
  try {
    const codec = request.codec satisfies BlockCodecChoice;
    if (request.levelRows) {
      const rows = rawRowsOf(request.raw, request.hash, request.height, codec, reader);
      transfer = [rows.raw.buffer as ArrayBuffer, rows.txids.buffer as ArrayBuffer, rows.offsets.buffer as ArrayBuffer, rows.rows.buffer as ArrayBuffer];
      answer = { id: request.id, ok: true, rows };
    } else {
      const parts = encodeRawBlockBytes(request.raw, request.hash, request.height, codec);
      transfer = [parts.bytes.buffer as ArrayBuffer, parts.offsets.buffer as ArrayBuffer];
      answer = { id: request.id, ok: true, parts };
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    answer = { id: request.id, ok: false, kind: isCodecGap(err) ? 'gap' : err instanceof MalformedNodeAnswer ? 'malformed' : 'error', message };
    transfer = [];
  }
  parentPort!.postMessage(answer, transfer);
});
