// The balance chart's arithmetic, pure: round axis ticks, time ticks, and the step line's path.
// Numbers here only place pixels; every amount a person reads comes from bigint units.

/** Ticks 0..max at a round step (1, 2 or 5 times a power of ten), at most about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  const lo = Math.min(0, min);
  const hi = max > lo ? max : lo + 1;
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = Math.floor(lo / step) * step; v < hi + step - 1e-9 * step; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Evenly spread times across [from, to] (unix seconds), on whole hours or days when the span allows. */
export function timeTicks(from: number, to: number, count = 5): number[] {
  if (to <= from) return [from];
  const span = to - from;
  const grain = span >= 2 * DAY ? DAY : span >= 2 * HOUR ? HOUR : 60;
  const step = Math.max(grain, Math.ceil(span / count / grain) * grain);
  const ticks: number[] = [];
  for (let t = Math.ceil(from / grain) * grain; t <= to; t += step) ticks.push(t);
  return ticks.length ? ticks : [from];
}

/** How a tick reads: days as "31 Jan 2026" over long spans, clock times (UTC) within two days. */
export function timeTickText(t: number, span: number): string {
  const d = new Date(t * 1000);
  if (span >= 2 * DAY) return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: span > 300 * DAY ? 'numeric' : undefined, timeZone: 'UTC' });
  return d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
}

/** A balance as steps: level until the next change, then straight up or down to it. */
export function stepPath(points: readonly { x: number; y: number }[], baseline: number): string {
  if (points.length === 0) return '';
  const [first, ...rest] = points;
  let d = `M${first!.x},${baseline}V${first!.y}`;
  for (const p of rest) d += `H${p.x}V${p.y}`;
  return d;
}
