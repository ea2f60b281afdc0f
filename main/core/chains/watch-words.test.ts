// A watched wallet's scan in words (watchWords, pure): scanning with its progress, a node without
// block filters, a pruned node's history limit, a stopped scan, a finished one.
import { describe, expect, it } from 'vitest';
import { scanningStatus as status } from '../../../dev/desk-testing/watch-status.ts';
import { watchWords } from '../wallets/birthday.ts';

describe('a watched scan in words', () => {
  it('says how far a scan has got, and that it reads every block without filters', () => {
    expect(watchWords(status({}))).toEqual({ state: 'scanning', words: 'Scanning from block 1000: 501 of 5,000 blocks read, 3 matched', historyLimit: null, complete: false });
    expect(watchWords(status({ filters: false })).words).toBe('Scanning from block 1000: 501 of 5,000 blocks read, 3 matched; the node has no block filters (-blockfilterindex=1), so every block from the birthday is read');
    expect(watchWords(status({ tip_height: null })).words).toBe('Scanning from block 1000: read to block 1500, 3 matched (the node has not told its tip yet)');
  });

  it('never counts past the chain: a scan that started over looked at blocks again (issue 31: "1,117 of 537 blocks checked")', () => {
    const again = status({ birthday_height: 477, scanned_height: 900, tip_height: 1_013, blocks_checked: 1_117 });
    expect(watchWords(again).words).toBe('Scanning from block 477: 424 of 537 blocks read, 3 matched');
    expect(watchWords(status({ birthday_height: 477, scanned_height: null, tip_height: 1_013 })).words).toBe('Scanning from block 477: 0 of 537 blocks read, 3 matched');
  });

  it("states a pruned node's history limit, a stopped scan's reason, and a finished scan", () => {
    // Only a finished scan claims anything complete, and only for the addresses it watches.
    expect(watchWords(status({ pruned: true, history_from: 4_000 })).historyLimit).toBeNull();
    expect(watchWords(status({ state: 'ready', pruned: true, history_from: 4_000, watched: { receive: 46, change: 20 } })).historyLimit).toBe(
      'unspent outputs complete for receive addresses 0 to 45 and change addresses 0 to 19; history from block 4000 (the node is pruned: what was received and spent before it is not listed)',
    );
    expect(watchWords(status({ state: 'error', error: "the unspent outputs differ from the node's scantxoutset" })).words).toBe("The scan stopped: the unspent outputs differ from the node's scantxoutset");
    expect(watchWords(status({ state: 'ready', scanned_height: 5_999 })).words).toBe("Watched from block 1000: read to block 5999, the node's tip (3 blocks fetched)");
    expect(watchWords(status({ state: 'ready', scanned_height: 5_999, blocks_fetched: 1 })).words).toBe("Watched from block 1000: read to block 5999, the node's tip (1 block fetched)");
    expect(watchWords(status({ state: 'ready', scanned_height: 5_999, blocks_fetched: 12_345 })).words).toContain('(12,345 blocks fetched)');
  });
});
