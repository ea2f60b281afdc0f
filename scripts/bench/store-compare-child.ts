// A child of store-compare.ts: replays the recorded row stream into one store in a fresh folder
// (its own process, so its memory is its own), compacts it, and reads back the sampled answers.
import { childMain } from './child.ts';
import { memoryOf, ownCpuMs, sampleOwnMemoryPeak } from './machine.ts';
import { answersOf, batchesOf, folderBytes, openCompareStore, readRecording, replayBatch, versionRow, type Samples, type StoreKind, type StoreRun } from './store-compare-lib.ts';

export interface StoreCompareInput {
  store: StoreKind;
  recording: string;
  folder: string;
  batchBytes: number;
  samples: Samples;
}

/** The process's own memory at its highest since this child started. */
const ownPeak = sampleOwnMemoryPeak();

async function work(raw: unknown): Promise<StoreRun> {
  const input = raw as StoreCompareInput;
  const store = await openCompareStore(input.store, input.folder);
  try {
    const [vk, vv] = versionRow();
    await store.writeBatch((out) => (out.put(vk, vv), 1));
    let rows = 1;
    let txs = 0;
    let batches = 0;
    const cpu = ownCpuMs();
    const main = process.threadCpuUsage();
    const started = performance.now();
    for (const blocks of batchesOf(readRecording(input.recording), input.batchBytes)) {
      rows += await store.writeBatch((out) => replayBatch(blocks, out));
      for (const b of blocks) txs += b.txs;
      batches++;
    }
    const writeMs = performance.now() - started;
    const writeCpuMs = ownCpuMs() - cpu;
    const mainUsage = process.threadCpuUsage(main);
    const writeMainCpuMs = (mainUsage.user + mainUsage.system) / 1000;
    const loadPeakAnonKb = ownPeak();
    const loadPeakRssKb = memoryOf('self').peakKb;
    const bytesBefore = await folderBytes(input.folder);
    const compactCpu = ownCpuMs();
    const compactStarted = performance.now();
    await store.compact();
    const compactMs = performance.now() - compactStarted;
    const compactCpuMs = ownCpuMs() - compactCpu;
    const bytesAfter = await folderBytes(input.folder);
    // the peaks of the load and the compaction, before the answers' full scan
    const peakAnonKb = ownPeak();
    const peakRssKb = memoryOf('self').peakKb;
    const { answers, keyBytes, valueBytes } = await answersOf(store, input.samples);
    return { store: input.store, rows, txs, batches, writeMs, writeCpuMs, writeMainCpuMs, bytesBefore, compactMs, compactCpuMs, bytesAfter, loadPeakRssKb, loadPeakAnonKb, peakRssKb, peakAnonKb, compaction: store.compaction, answers, keyBytes, valueBytes };
  } finally {
    await store.close();
  }
}

childMain(work);
