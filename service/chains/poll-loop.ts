// The follow-the-node loop every indexer shares: full passes one at a time, repeated on an
// interval, backing off while the node fails, stoppable at once.
export interface PollLoopOptions {
  pollIntervalMs: number;
  /** Longest wait between passes while failing. */
  maxBackoffMs?: number;
  onError(message: string, firstInARow: boolean): void;
  onRecovered?(): void;
}

export class PollLoop {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private syncing: Promise<void> | null = null;
  /** The last pass's error, null once a pass succeeds. */
  error: string | null = null;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly o: PollLoopOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.syncing?.catch(() => undefined);
  }

  /** A full pass that starts after this call: afterwards the index reflects the node as of now. */
  async sync(): Promise<void> {
    while (this.syncing) await this.syncing.catch(() => undefined);
    const pass = this.pass().finally(() => {
      this.syncing = null;
    });
    this.syncing = pass;
    return pass;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        await this.sync();
        if (this.error !== null) this.o.onRecovered?.();
        this.error = null;
        failures = 0;
      } catch (err) {
        failures++;
        const message = err instanceof Error ? err.message : String(err);
        this.o.onError(message, this.error !== message);
        this.error = message;
      }
      if (!this.running) break;
      const delay = Math.min(this.o.pollIntervalMs * 2 ** Math.min(failures, 5), this.o.maxBackoffMs ?? 60_000);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
