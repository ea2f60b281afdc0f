// A chain's watch scan in the sync bar's words (issue 25): how far it has read, what it matched,
// and the time left from the rate the bar observed. Pure: sync.tsx keeps the samples.
import type { ChainScanView } from '../../main/bridge/contract.ts';
import { plural } from '../../shared/api/words.ts';

const n = (x: number) => x.toLocaleString('en-US');

/** The height the scan has reached: the block before its start until it holds one. */
export const scanHeight = (scan: ChainScanView): number => scan.scanned_height ?? Math.max(0, scan.from - 1);

export interface ScanWords {
  /** "Scanning litecoin for 2 wallets: block 1,234 of 5,000, 12 blocks matched, about 3 min left" */
  line: string;
  /** Without block filters: why it is slow (null with filters). */
  note: string | null;
}

/** `timeLeft` is describeTimeLeft's words ("about 3 min left", "working out the time left"). */
export function watchScanWords(scan: ChainScanView, timeLeft: string): ScanWords {
  const wallets = `${n(scan.wallets)} wallet${scan.wallets === 1 ? '' : 's'}`;
  const at = scan.tip_height === null ? `block ${n(scanHeight(scan))} (the node has not told its tip yet)` : `block ${n(scanHeight(scan))} of ${n(scan.tip_height)}`;
  // Without filters nothing is matched: every block is read, so the count would only mislead.
  const matched = scan.filters ? `, ${plural(scan.blocks_matched, 'block')} matched` : '';
  const left = scan.tip_height === null ? '' : `, ${timeLeft}`;
  return {
    line: `Scanning ${scan.coin} for ${wallets}: ${at}${matched}${left}`,
    note: scan.filters ? null : 'without block filters: reading every block from the birthday',
  };
}
