// Waits in tests for something that happens on its own (an election, an index catching up):
// polls until the probe gives a value, and fails naming what never came.

/** Polls `probe` every `everyMs` until it returns neither undefined nor false; gives up after `deadlineMs`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, { deadlineMs = 90_000, everyMs = 50 } = {}): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
