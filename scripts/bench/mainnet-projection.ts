// Projects a measured index curve to a mainnet-sized chain, with the arithmetic printed beside the
// answer so an operator can redo it. Pure: the scale bench passes its measured points in.
//
// Model: beyond the last measured size n1, the rate follows the power law through the last two
// points, r(n) = r1 * (n / n1)^-k. A rising curve (k < 0) is taken as flat (k = 0): a projection
// should not promise a speed-up the chain has not shown. The time from n1 to N is the integral of
// dn / r(n) = n1 / r1 * (X^(k+1) - 1) / (k+1), X = N / n1. Disk is the last bytes per transaction
// times N (bytes per transaction have fallen with size so far, so this leans high).

export interface CurvePoint {
  /** Transactions in the index at this point. */
  txs: number;
  /** Transactions per second over the window that ended here. */
  rate: number;
  bytesPerTx: number;
}

export interface MainnetChain {
  name: string;
  txs: number;
  /** Where the figure comes from, printed with it. */
  source: string;
}

export const MAINNETS: readonly MainnetChain[] = [
  { name: 'Bitcoin mainnet', txs: 1_200_000_000, source: 'about 1.2 billion, the figure issue 26 states' },
  { name: 'Litecoin mainnet', txs: 300_000_000, source: 'assumed about 300 million: an estimate, not a count' },
];

export interface Projection {
  chain: MainnetChain;
  /** Decay exponent used (0 when the curve is flat or rising). */
  k: number;
  seconds: number;
  /** The same chain at the last measured rate, for comparison. */
  flatSeconds: number;
  bytes: number;
  arithmetic: string;
}

const DAY = 86_400;

function duration(s: number): string {
  if (s >= 2 * DAY) return `${(s / DAY).toFixed(1)} days`;
  if (s >= 2 * 3600) return `${(s / 3600).toFixed(1)} hours`;
  return `${(s / 60).toFixed(0)} minutes`;
}

function size(bytes: number): string {
  return bytes >= 1e12 ? `${(bytes / 1e12).toFixed(2)} TB` : `${(bytes / 1e9).toFixed(0)} GB`;
}

/**
 * `measuredSeconds` is the time the index took to hold `points.at(-1).txs` transactions (the whole
 * measured chain); `points` are in ascending size, at least one.
 */
export function projectToMainnet(points: readonly CurvePoint[], measuredSeconds: number, chain: MainnetChain): Projection {
  const last = points.at(-1);
  if (!last) throw new Error('projectToMainnet: no measured points');
  const prev = points.length > 1 ? points.at(-2)! : undefined;
  const fitted = prev && prev.txs < last.txs ? -Math.log(last.rate / prev.rate) / Math.log(last.txs / prev.txs) : 0;
  const k = Math.max(0, fitted);
  const x = Math.max(1, chain.txs / last.txs);
  const beyond = (last.txs / last.rate) * ((x ** (k + 1) - 1) / (k + 1));
  const seconds = measuredSeconds + beyond;
  const flatSeconds = measuredSeconds + (chain.txs - Math.min(chain.txs, last.txs)) / last.rate;
  const bytes = last.bytesPerTx * chain.txs;
  const round = (n: number): string => Math.round(n).toLocaleString('en-US');
  const fit = prev
    ? `k = -ln(${round(last.rate)}/${round(prev.rate)}) / ln(${round(last.txs)}/${round(prev.txs)}) = ${fitted.toFixed(3)}${fitted < 0 ? ', a rising curve taken as flat (k = 0)' : ''}`
    : 'k = 0 (one point)';
  const arithmetic =
    `${fit}; time = ${round(measuredSeconds)} s measured + ${round(last.txs)}/${round(last.rate)} x (${x.toFixed(0)}^${(k + 1).toFixed(3)} - 1)/${(k + 1).toFixed(3)} s = ${round(seconds)} s; ` +
    `disk = ${round(last.bytesPerTx)} B/tx x ${round(chain.txs)}`;
  return { chain, k, seconds, flatSeconds, bytes, arithmetic };
}

/** One line per chain, for the bench's output. */
export function projectionLines(store: string, points: readonly CurvePoint[], measuredSeconds: number): string[] {
  return MAINNETS.map((chain) => {
    const p = projectToMainnet(points, measuredSeconds, chain);
    return (
      `${store} -> ${chain.name} (${chain.source}): ${duration(p.seconds)} (${duration(p.flatSeconds)} if the last rate held), ${size(p.bytes)} on disk\n` +
      `    ${p.arithmetic}`
    );
  });
}
