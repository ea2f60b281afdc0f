import { describe, expect, it } from 'vitest';
import type { ChainScanView } from '../../main/bridge/contract.ts';
import { watchScanWords } from './scan-progress.ts';

const scan = (s: Partial<ChainScanView>): ChainScanView => ({
  coin: 'litecoin',
  network: 'regtest',
  wallets: 2,
  scanned_height: 1_234,
  from: 1_000,
  tip_height: 5_000,
  blocks_checked: 235,
  blocks_matched: 12,
  filters: true,
  ...s,
});

describe("a chain's watch scan in the sync bar", () => {
  it('says the wallets, the block reached of the tip, the blocks matched and the time left', () => {
    expect(watchScanWords(scan({}), 'about 3 min left')).toEqual({ line: 'Scanning litecoin for 2 wallets: block 1,234 of 5,000, 12 blocks matched, about 3 min left', note: null });
    expect(watchScanWords(scan({ wallets: 1, blocks_matched: 1 }), 'working out the time left').line).toBe('Scanning litecoin for 1 wallet: block 1,234 of 5,000, 1 block matched, working out the time left');
  });

  it('says a node without block filters reads every block from the birthday, and counts no matches', () => {
    expect(watchScanWords(scan({ filters: false, blocks_matched: 0 }), 'about 1 h left')).toEqual({
      line: 'Scanning litecoin for 2 wallets: block 1,234 of 5,000, about 1 h left',
      note: 'without block filters: reading every block from the birthday',
    });
  });

  it('starts before the birthday until a block is held, and says an unknown tip', () => {
    expect(watchScanWords(scan({ scanned_height: null }), 'x').line).toBe('Scanning litecoin for 2 wallets: block 999 of 5,000, 12 blocks matched, x');
    expect(watchScanWords(scan({ tip_height: null }), 'x').line).toBe('Scanning litecoin for 2 wallets: block 1,234 (the node has not told its tip yet), 12 blocks matched');
  });
});
