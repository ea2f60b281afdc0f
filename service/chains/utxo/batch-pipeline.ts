// Hands blocks to the index writer as soon as it is free. While it writes, the blocks read
// meanwhile gather into the next batch, up to `max` of their weight (the indexer weighs blocks by
// their serialized bytes); then the reader waits. So the writer starts on the first block, never
// idles while blocks wait, and batches grow only as far as the writer lags (larger batches are
// cheaper per row, and memory stays bounded). One block heavier than `max` is a batch of its own.
export class BatchPipeline<B> {
  private batch: B[] = [];
  private batchWeight = 0;
  private writing: Promise<void> | null = null;
  private failure: { error: unknown } | null = null;

  /** `write` commits blocks in one transaction; batches are written one at a time, in order. */
  constructor(
    private readonly write: (blocks: B[]) => Promise<void>,
    private readonly max: number,
    private readonly weigh: (block: B) => number,
  ) {
    if (!(max > 0)) throw new RangeError('a batch bound must be positive');
  }

  /** Adds the next block. Resolves when the reader may go on; throws a failed write's error. */
  async add(block: B): Promise<void> {
    this.throwIfFailed();
    this.batch.push(block);
    this.batchWeight += this.weigh(block);
    this.startWrite();
    while (this.batchWeight >= this.max && this.writing) {
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
    this.batchWeight = 0;
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
