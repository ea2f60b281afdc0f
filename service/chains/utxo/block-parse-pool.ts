// The indexer's parse threads: raw blocks are decoded, hashed and turned into index rows on every
// core (block-parse-worker.ts), while the main thread reads the node and writes the batches in
// height order. Each answer is awaited in the order the blocks were asked for, so the order of
// the writes does not depend on which thread finished first.
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { BlockCodecChoice } from '../../../shared/coins/block.ts';
import { bytesOfHex, readBlockOf, readBlockOfRows, type RawBlockParts, type RawRowsParts } from './raw-block.ts';
import { MalformedNodeAnswer, type ReadBlock } from './verbose-block.ts';

export interface ParseRequest {
  id: number;
  /** The serialized block (bytesOfHex), in an ArrayBuffer of its own: transferred, not copied. */
  raw: Uint8Array;
  hash: string;
  height: number;
  codec: BlockCodecChoice;
  /** Read it for the LevelDB index: its rows from the raw bytes (index/level-raw-rows.ts), no compact encoding. */
  levelRows: boolean;
}

export type ParseAnswer =
  | { id: number; ok: true; parts: RawBlockParts }
  | { id: number; ok: true; rows: RawRowsParts }
  | { id: number; ok: false; kind: 'gap' | 'malformed' | 'error'; message: string };

/** The codec could not read the block (a transaction form it does not know): read it as verbose JSON instead. */
export const CODEC_GAP = Symbol('codec gap');

// From source the worker is TypeScript: Node's own type stripping loads it (its imports use
// erasable syntax only), where the tsx loader would add a hooks thread and its caches to every
// parse thread (older Nodes fall back to it). In the desktop app's bundle (electron.vite.config.ts)
// it is the JavaScript file beside this code.
const fromSource = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSource ? './block-parse-worker.ts' : './block-parse-worker.mjs', import.meta.url);
const nodeStripsTypes = (process.features as { typescript?: string | false }).typescript === 'strip';
// A profiled process (the bench's --cpu-prof) profiles its parse threads too, a file each.
const profiling = process.execArgv.filter((a) => a === '--cpu-prof' || a.startsWith('--cpu-prof-'));
const workerExecArgv = (): string[] => [...(fromSource && !nodeStripsTypes ? ['--import', createRequire(import.meta.url).resolve('tsx')] : []), ...profiling];

/**
 * One thread a core but one, at least one and at most 8: the main thread (the node's answers, the
 * writes) keeps a core busy itself. On 2 cores a second parse thread was no faster and cost ~90 MB.
 */
export const defaultParseThreads = (): number => Math.max(1, Math.min(8, availableParallelism() - 1));

/** Each parse thread's young generation, MB. */
const PARSE_YOUNG_MB = 8;

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (a: ParseAnswer) => void; reject: (err: Error) => void }>;
}

export class BlockParsePool {
  private readonly threads: (Thread | null)[];
  private nextId = 1;

  constructor(threads = defaultParseThreads()) {
    this.threads = Array.from({ length: Math.max(1, threads) }, () => null);
  }

  /** The block read from its raw hex on a parse thread, or CODEC_GAP. In the order asked, whatever thread takes it. */
  async parse(hex: unknown, hash: string, height: number, codec: BlockCodecChoice, levelRows: boolean): Promise<ReadBlock | typeof CODEC_GAP> {
    // hex to bytes here (native, fast; a bad answer refused in words), so the thread is handed
    // the bytes' buffer, not a copy of a string twice their size
    const bytes = bytesOfHex(hex, `block ${height} (${hash})`);
    const raw = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : Uint8Array.prototype.slice.call(bytes);
    const thread = this.leastBusy();
    const id = this.nextId++;
    const answer = await new Promise<ParseAnswer>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.ref();
      thread.worker.postMessage({ id, raw, hash, height, codec, levelRows } satisfies ParseRequest, [raw.buffer as ArrayBuffer]);
    });
    if (answer.ok) return 'rows' in answer ? readBlockOfRows(answer.rows, codec) : readBlockOf(answer.parts);
    if (answer.kind === 'gap') return CODEC_GAP;
    throw answer.kind === 'malformed' ? new MalformedNodeAnswer(answer.message) : new Error(answer.message);
  }

  private leastBusy(): Thread {
    let best = 0;
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[i];
      if (!t) {
        best = i;
        break;
      }
      if (t.pending.size < this.threads[best]!.pending.size) best = i;
    }
    return (this.threads[best] ??= this.start(best));
  }

  private start(slot: number): Thread {
    const worker = new Worker(workerUrl, {
      execArgv: workerExecArgv(),
      // a block's objects die young: a small young generation keeps each thread's heap from ballooning
      resourceLimits: { maxYoungGenerationSizeMb: PARSE_YOUNG_MB },
    });
    const thread: Thread = { worker, pending: new Map() };
    worker.unref(); // an idle parse thread keeps no process alive
    worker.on('message', (answer: ParseAnswer) => {
      const waiting = thread.pending.get(answer.id);
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      waiting?.resolve(answer);
    });
    const fail = (err: Error) => {
      if (this.threads[slot] === thread) this.threads[slot] = null; // the next block starts a new one
      for (const w of thread.pending.values()) w.reject(new Error(`a block parse thread stopped: ${err.message}`));
      thread.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`it exited with code ${code}`)));
    return thread;
  }

  /** Ends the threads (blocks still being parsed fail). */
  async close(): Promise<void> {
    const running = this.threads.filter((t): t is Thread => t !== null);
    this.threads.fill(null);
    await Promise.all(running.map((t) => t.worker.terminate()));
  }
}
