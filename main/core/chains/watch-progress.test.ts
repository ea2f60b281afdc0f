// A chain's watch scan summed up from its wallets' statuses (chainScans, pure): only wallets still
// scanning count, the scan starts at the lowest birthday, and a node without filters is said.
import { describe, expect, it } from 'vitest';
import { scanningStatus as status } from '../../../dev/desk-testing/watch-status.ts';
import { chainScans } from './watch-progress.ts';

const ltc = { coin: 'litecoin', network: 'regtest' } as const;
const btc = { coin: 'bitcoin', network: 'regtest' } as const;

describe("the chains' watch scans", () => {
  it('counts the wallets each chain is scanning for, from the lowest birthday, with the newest figures', () => {
    const scans = chainScans([
      { wallet: ltc, status: status({}) },
      { wallet: ltc, status: status({ birthday_height: 200, scanned_height: 1_501, blocks_checked: 1_235, blocks_matched: 4 }) },
      { wallet: ltc, status: status({ state: 'ready' }) },
      { wallet: btc, status: status({ filters: false, birthday_height: null, blocks_matched: 0 }) },
    ]);
    expect(scans).toEqual([
      { coin: 'litecoin', network: 'regtest', wallets: 2, scanned_height: 1_501, from: 200, tip_height: 5_999, blocks_checked: 1_235, blocks_matched: 4, filters: true },
      { coin: 'bitcoin', network: 'regtest', wallets: 1, scanned_height: 1_500, from: 0, tip_height: 5_999, blocks_checked: 1_234, blocks_matched: 0, filters: false },
    ]);
  });

  it("starts at a rescan's first block, and a wallet waiting for the next scan (no height yet) does not pull the height back", () => {
    const scans = chainScans([
      { wallet: ltc, status: status({ birthday_height: 100, scan: 2, scan_from: 900, scanned_height: 950 }) },
      { wallet: ltc, status: status({ birthday_height: 1_000, scan: 1, scan_from: 1_000, scanned_height: null }) },
    ]);
    expect(scans[0]).toMatchObject({ wallets: 2, from: 900, scanned_height: 950 });
  });

  it('has no scan for a chain whose wallets are all ready or stopped', () => {
    expect(chainScans([{ wallet: ltc, status: status({ state: 'ready' }) }, { wallet: ltc, status: status({ state: 'error', error: 'x' }) }])).toEqual([]);
  });
});
