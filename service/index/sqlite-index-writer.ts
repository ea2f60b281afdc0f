// The main thread's side of the index writer thread: batches go out in order, each answered when
// committed. One thread per SQLite file, shared by the chains indexed into it.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type EncodedBlock, encodedOf, type IndexedBlock } from './blocks.ts';
import { DEFAULT_INDEX_CACHES, type IndexCaches } from './cache-budget.ts';

export interface ApplyRequest {
  id: number;
  chain: string;
  /** Encoded (blocks.ts): cloning a few buffers, not many small objects. */
  blocks: readonly EncodedBlock[];
  confirmedMempoolTxids: readonly string[];
}

export type ApplyResult = { id: number; ok: true } | { id: number; ok: false; message: string };
/** What the thread says: once that it is ready (modules loaded, connection open), then each result. */
export type WriterMessage = { ready: true } | ApplyResult;

// From source the worker is TypeScript: Node's own type stripping loads it (half the start-up of
// the tsx loader, which older Nodes fall back to); its imports use erasable syntax only. In the
// desktop app's bundle (electron.vite.config.ts) it is the JavaScript file beside this code.
const fromSource = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSource ? './sqlite-index-worker.ts' : './sqlite-index-worker.mjs', import.meta.url);
const nodeStripsTypes = (process.features as { typescript?: string | false }).typescript === 'strip';
const workerExecArgv = (): string[] => (fromSource && !nodeStripsTypes ? ['--import', createRequire(import.meta.url).resolve('tsx')] : []);

export class SqliteIndexWriter {
  private worker: Worker | null = null;
  private ready: Promise<void> = Promise.resolve();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();

  constructor(
    private readonly path: string,
    private readonly caches: IndexCaches = DEFAULT_INDEX_CACHES,
  ) {}

  /** Starts the thread ahead of the first batch; resolves once it can write (or has failed to start). */
  warmUp(): Promise<void> {
    this.start();
    return this.ready;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerUrl, {
      workerData: { path: this.path, caches: this.caches },
      execArgv: workerExecArgv(),
      // a batch is a few MB: a small young generation keeps the thread's heap from ballooning
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    let markReady = () => {};
    this.ready = new Promise<void>((resolve) => (markReady = resolve));
    worker.on('message', (message: WriterMessage) => {
      if ('ready' in message) {
        if (this.pending.size === 0) worker.unref(); // idle until a batch arrives
        return markReady();
      }
      const result = message;
      const waiting = this.pending.get(result.id);
      this.pending.delete(result.id);
      if (this.pending.size === 0) worker.unref(); // an idle writer keeps no process alive
      if (!waiting) return;
      if (result.ok) waiting.resolve();
      else waiting.reject(new Error(`index write failed: ${result.message}`));
    });
    const fail = (err: Error) => {
      markReady(); // nobody waits for a thread that will not come; the next batch reports the error
      for (const w of this.pending.values()) w.reject(new Error(`index writer stopped: ${err.message}`));
      this.pending.clear();
      this.worker = null; // the next batch starts a new one
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(new Error(`exit code ${code}`));
    });
    // Referenced until it says it is ready: whoever awaits warmUp() keeps the process alive.
    this.worker = worker;
    return worker;
  }

  apply(chain: string, blocks: readonly IndexedBlock[], confirmedMempoolTxids: readonly string[]): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const worker = this.start();
      worker.ref(); // a batch being written keeps the process alive until it is answered
      worker.postMessage({ id, chain, blocks: blocks.map(encodedOf), confirmedMempoolTxids } satisfies ApplyRequest);
    });
  }

  /**
   * The chain's rows were replaced on another connection (a watch scan's index swapped in): the
   * thread's young outputs of it are forgotten before its next batch (messages keep their order).
   */
  forget(chain: string): void {
    this.worker?.postMessage({ forget: chain });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref(); // stay alive until the writer has closed its connection
    worker.postMessage('close');
    await exited;
  }
}
