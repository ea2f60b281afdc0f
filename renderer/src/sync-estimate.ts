// How long the service's index needs to reach the node's tip, from the rate observed between polls
// of its status. Pure: the samples are kept by the caller (sync.tsx).

export interface Sample {
  /** When the status was read (ms since the epoch). */
  at: number;
  indexed: number;
}

/** The most samples kept: the rate is taken over the last few polls, so it follows a changing speed. */
export const WINDOW = 10;

/**
 * Samples closer together than this tell no rate (two polls answered back to back, when the poll's
 * pace changes): the newer replaces the older, so the time left is still being worked out.
 */
export const MIN_GAP_MS = 1_000;

/** `samples` with `next` added: a height going back (a reorganisation, a rebuilt index) starts over. */
export function addSample(samples: readonly Sample[], next: Sample): Sample[] {
  const last = samples.at(-1);
  if (last && next.indexed < last.indexed) return [next];
  if (last && next.at <= last.at) return [...samples];
  if (last && next.at - last.at < MIN_GAP_MS) return [...samples.slice(0, -1), next];
  return [...samples, next].slice(-WINDOW);
}

export type TimeLeft = { kind: 'estimating' } | { kind: 'stalled' } | { kind: 'seconds'; seconds: number };

/** Blocks still to index over the blocks per second seen from the oldest to the newest sample. */
export function timeLeft(samples: readonly Sample[], tip: number): TimeLeft {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || samples.length < 2 || last.at <= first.at) return { kind: 'estimating' };
  const remaining = Math.max(0, tip - last.indexed);
  if (remaining === 0) return { kind: 'seconds', seconds: 0 };
  const perSecond = (last.indexed - first.indexed) / ((last.at - first.at) / 1000);
  if (perSecond <= 0) return { kind: 'stalled' };
  return { kind: 'seconds', seconds: remaining / perSecond };
}

/** "about 3 h 20 min left": rounded to what a person plans with. */
export function describeTimeLeft(left: TimeLeft): string {
  if (left.kind === 'estimating') return 'working out the time left';
  if (left.kind === 'stalled') return 'no progress since the last check';
  const s = left.seconds;
  if (s < 60) return 'less than a minute left';
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `about ${minutes} min left`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `about ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''} left`;
  return `about ${Math.round(hours / 24)} days left`;
}
