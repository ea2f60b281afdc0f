// The balance over time as a step line drawn here in SVG (no chart library): round amounts up the
// left, dates (or UTC clock times over a short span) along the bottom, the last point marked and
// written out in full so it can be read against the balance on the screen.
import { niceTicks, stepPath, timeTickText, timeTicks } from '../chart-scale.ts';

export interface ChartPoint {
  /** Unix seconds. */
  time: number;
  /** Only to place the point. */
  value: number;
}

const W = 900;
const H = 260;
const M = { left: 86, right: 28, top: 34, bottom: 40 };

export function BalanceChart(props: { points: readonly ChartPoint[]; lastText: string; tickText: (v: number) => string; unitName: string; testId: string; title: string }) {
  const { points, lastText, tickText, unitName, testId, title } = props;
  if (points.length === 0) return <p className="muted">No confirmed transactions yet: the chart starts with the first.</p>;
  const t0 = points[0]!.time;
  const tLast = points[points.length - 1]!.time;
  // The line runs from the first transaction to now; a single instant gets a minute to stand in.
  const t1 = tLast > t0 ? tLast : t0 + 60;
  const values = points.map((p) => p.value);
  const yTicks = niceTicks(Math.min(...values), Math.max(...values));
  const yMin = yTicks[0]!;
  const yMax = yTicks[yTicks.length - 1]!;
  const x = (t: number) => M.left + ((t - t0) / (t1 - t0)) * (W - M.left - M.right);
  const y = (v: number) => H - M.bottom - ((v - yMin) / (yMax - yMin || 1)) * (H - M.top - M.bottom);
  const xy = points.map((p) => ({ x: Number(x(p.time).toFixed(1)), y: Number(y(p.value).toFixed(1)) }));
  const last = xy[xy.length - 1]!;
  const line = stepPath(xy, y(0));
  const span = t1 - t0;
  const xTicks = timeTicks(t0, t1);
  const day = new Date(t0 * 1000).toISOString().slice(0, 10);
  return (
    <svg className="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: now ${lastText}`} data-testid={testId}>
      <title>{title}</title>
      <text x={M.left} y={16} className="tick">
        {unitName}
      </text>
      {yTicks.map((v) => (
        <g key={v}>
          <line className="grid" x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} />
          <text className="tick" x={M.left - 8} y={y(v) + 4} textAnchor="end">
            {tickText(v)}
          </text>
        </g>
      ))}
      <line className="axis" x1={M.left} x2={W - M.right} y1={y(yMin)} y2={y(yMin)} />
      {xTicks.map((t) => (
        <text key={t} className="tick" x={x(t)} y={H - M.bottom + 18} textAnchor="middle">
          {timeTickText(t, span)}
        </text>
      ))}
      <text className="tick" x={W - M.right} y={H - 6} textAnchor="end">
        {span >= 2 * 86400 ? 'date (UTC)' : `time (UTC) on ${day}`}
      </text>
      <path className="area" d={`${line}V${y(yMin)}H${xy[0]!.x}Z`} />
      <path className="line" d={line} />
      <circle className="last" cx={last.x} cy={last.y} r={5} data-testid={`${testId}-last`} data-value={lastText} />
      {/* Beside the point, on the side with room: left of it near the right edge, right of it otherwise. */}
      <text className="last-label" x={last.x > W / 2 ? last.x - 10 : last.x + 10} y={Math.max(last.y - 10, M.top - 4)} textAnchor={last.x > W / 2 ? 'end' : 'start'}>
        {lastText}
      </text>
    </svg>
  );
}
