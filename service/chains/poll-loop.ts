// The follow-the-node loop every indexer shares: full passes one at a time, repeated on an
// interval, backing off while the node fails, stoppable at once.
export interface PollLoopOptions {
  pollIntervalMs: number;
  /** Longest wait between passes while failing. */
  maxBackoffMs?: number;
  onError(message: string, firstInARow: boolean): void;
  onRecovered?(): void;
  /**
   * Failures that end by themselves within seconds (a node warming up after a restart): retried
   * about once a second instead of backing off, so the index follows the node as soon as it answers.
   */
  isPassing?(err: unknown): boolean;
}

/** Retry of a passing failure: about once a second (never slower than the regular poll). */
export const BRISK_RETRY_MS = 1_000;

/** How long to wait before the next pass. Pure. */
export function nextDelayMs(o: Pick<PollLoopOptions, 'pollIntervalMs' | 'maxBackoffMs'>, failures: number, passing: boolean): number {
  if (failures > 0 && passing) return Math.min(BRISK_RETRY_MS, o.pollIntervalMs);
  return Math.min(o.pollIntervalMs * 2 ** Math.min(failures, 5), o.maxBackoffMs ?? 60_000);
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
    const pass = this.pass()
      .then(() => {
        // Any pass that succeeds, the loop's or a caller's, ends a failure.
        if (this.error !== null) this.o.onRecovered?.();
        this.error = null;
      })
      .finally(() => {
        this.syncing = null;
      });
    this.syncing = pass;
    return pass;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let passing = false;
    while (this.running) {
      try {
        await this.sync();
        failures = 0;
      } catch (err) {
        failures++;
        passing = this.o.isPassing?.(err) ?? false;
        const message = err instanceof Error ? err.message : String(err);
        this.o.onError(message, this.error !== message);
        this.error = message;
      }
      if (!this.running) break;
      const delay = nextDelayMs(this.o, failures, passing);
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
