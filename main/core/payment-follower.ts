// Follows every broadcast payment to confirmation in the background, so the Payments list, a
// wallet's open payments and the audit log change state without anyone opening the payment. One
// follower per desk, started with it; each pass asks the service as opening the payment would
// (followPayment), one payment after the other, and the next pass is scheduled only when this one
// is done, so a slow service never piles passes up. The timer is injected: tests fire it by hand.
import { followPayment } from './payments/submit.ts';
import { droppedButOpen, recheckDropped } from './payments/dropped.ts';
import type { CoreDeps } from './wallets/wallets.ts';

/** The desk's cadence: the status bar asks the service every 10 s once the index is current. */
export const FOLLOW_EVERY_MS = 10_000;

export interface FollowerTimer {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimer: FollowerTimer = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** One pass: every payment broadcast now, and every dropped one not final, followed once. Returns the ids whose state changed. */
export async function followBroadcastPayments(deps: CoreDeps): Promise<string[]> {
  const changed: string[] = [];
  for (const p of deps.store.payments().filter((q) => q.state === 'broadcast')) {
    // An earlier payment's pass may have settled this one (a replacement confirming drops it).
    if (deps.store.payment(p.id)?.state !== 'broadcast') continue;
    const after = await followPayment(deps, p.id);
    if (after.state !== 'broadcast') changed.push(p.id);
  }
  // Dropped payments not final yet: a miner may still take one (dropped.ts).
  for (const p of deps.store.payments().filter(droppedButOpen)) {
    try {
      if ((await recheckDropped(deps, p.id)).state === 'confirmed') changed.push(p.id);
    } catch (err) {
      // As followPayment: a service that cannot answer changes nothing; the next pass asks again.
      if (!(err instanceof Error)) throw err;
    }
  }
  return changed;
}

export interface PaymentFollower {
  /** Resolves once the pass under way, if any, is done. */
  settled(): Promise<void>;
  /** No pass after this; resolves once the one under way is done. */
  stop(): Promise<void>;
}

export function startPaymentFollower(deps: CoreDeps, options: { everyMs?: number; timer?: FollowerTimer; report?: (err: unknown) => void } = {}): PaymentFollower {
  const timer = options.timer ?? realTimer;
  const everyMs = options.everyMs ?? FOLLOW_EVERY_MS;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let handle: unknown;
  const pass = () => {
    running = followBroadcastPayments(deps)
      .then(
        () => undefined,
        // followPayment keeps a service failure to itself; anything else is a defect worth a log line, not a dead follower.
        (err: unknown) => options.report?.(err),
      )
      .finally(() => {
        if (!stopped) handle = timer.set(pass, everyMs);
      });
  };
  handle = timer.set(pass, everyMs);
  return {
    settled: () => running,
    stop: async () => {
      stopped = true;
      timer.clear(handle);
      await running;
    },
  };
}
