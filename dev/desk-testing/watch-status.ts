// Test support: a watching service's answer for a wallet (GET /watch/{coin}/{wallet_id}) mid-scan,
// with the fields a test cares about replaced.
import type { WatchStatus } from '../../shared/api/schemas.ts';

/** Scanning from block 1,000 toward 5,999: 1,234 blocks checked, 3 matched and fetched, with filters. */
export const scanningStatus = (s: Partial<WatchStatus> = {}): WatchStatus => ({
  birthday_height: 1_000,
  scanned_height: 1_500,
  tip_height: 5_999,
  blocks_checked: 1_234,
  blocks_matched: 3,
  blocks_fetched: 3,
  filters: true,
  pruned: false,
  history_from: null,
  state: 'scanning',
  ...s,
});
