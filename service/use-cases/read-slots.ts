// A bound on the address reads that answer in pages (unspent outputs, history): each page is bounded,
// but a thousand pages read at once would still be a thousand pages in the heap at once (issue 33:
// 1,000 requests for one address each held a 1,000-row page and took a 192 MB heap down). Reads
// beyond the slots wait their turn, holding nothing but their request.
export class ReadSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(slots: number) {
    this.free = slots;
  }

  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await read();
    } finally {
      // the slot passes straight to the next in line, or is freed
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/**
 * Pages read at once in this process. Two cores serve them no faster than a few at a time, and
 * each holds at most 1,000 rows until its answer is written.
 */
export const pageReads = new ReadSlots(8);
