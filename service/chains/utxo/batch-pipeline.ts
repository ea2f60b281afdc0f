// Hands blocks to the index writer as soon as it is free. While it writes, the blocks read
// meanwhile gather into the next batch, up to `maxTxs` transactions; then the reader waits. So the
// writer starts on the first block, never idles while blocks wait, and batches grow only as far
// as the writer lags (larger transactions are cheaper per row, and memory stays bounded).
export class BatchPipeline<B extends { readonly txs: readonly unknown[] }> {
  private batch: B[] = [];
  private batchTxs = 0;
  private writing: Promise<void> | null = null;
  private failure: { error: unknown } | null = null;

  /** `write` commits blocks in one transaction; batches are written one at a time, in order. */
  constructor(
    private readonly write: (blocks: B[]) => Promise<void>,
    private readonly maxTxs: number,
  ) {}

  /** Adds the next block. Resolves when the reader may go on; throws a failed write's error. */
  async add(block: B): Promise<void> {
    this.throwIfFailed();
    this.batch.push(block);
    this.batchTxs += block.txs.length;
    this.startWrite();
    while (this.batchTxs >= this.maxTxs && this.writing) {
      await this.writing;
      this.throwIfFailed();
    }
  }

  /** Resolves once every block added is written; throws a failed write's error. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    this.throwIfFailed();
  }

  private startWrite(): void {
    if (this.writing || this.failure || this.batch.length === 0) return;
    const blocks = this.batch;
    this.batch = [];
    this.batchTxs = 0;
    this.writing = this.write(blocks).then(
      () => {
        this.writing = null;
        this.startWrite();
      },
      (error: unknown) => {
        // Nothing after a failed batch is written: the index stays a prefix of the chain.
        this.writing = null;
        this.failure = { error };
      },
    );
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
