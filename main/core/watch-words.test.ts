// A watched wallet's scan in words (watchWords, pure): scanning with its progress, a node without
// block filters, a pruned node's history limit, a stopped scan, a finished one.
import { describe, expect, it } from 'vitest';
import { scanningStatus as status } from '../../dev/desk-testing/watch-status.ts';
import { watchWords } from './wallet-birthday.ts';

describe('a watched scan in words', () => {
  it('says how far a scan has got, and that it reads every block without filters', () => {
    expect(watchWords(status({}))).toEqual({ state: 'scanning', words: 'Scanning from block 1000: 1,234 of 5,000 blocks checked, 3 matched', historyLimit: null });
    expect(watchWords(status({ filters: false })).words).toBe('Scanning from block 1000: 1,234 of 5,000 blocks checked, 3 matched; the node has no block filters (-blockfilterindex=1), so every block from the birthday is read');
    expect(watchWords(status({ tip_height: null })).words).toBe('Scanning from block 1000: 1,234 blocks checked, 3 matched (the node has not told its tip yet)');
  });

  it("states a pruned node's history limit, a stopped scan's reason, and a finished scan", () => {
    expect(watchWords(status({ pruned: true, history_from: 4_000 })).historyLimit).toBe('history before block 4000 is not available from this node (it is pruned); balances and unspent outputs are complete');
    expect(watchWords(status({ state: 'error', error: "the unspent outputs differ from the node's scantxoutset" })).words).toBe("The scan stopped: the unspent outputs differ from the node's scantxoutset");
    expect(watchWords(status({ state: 'ready', scanned_height: 5_999 })).words).toBe("Watched from block 1000: read to block 5999, the node's tip (3 blocks fetched)");
    expect(watchWords(status({ state: 'ready', scanned_height: 5_999, blocks_fetched: 1 })).words).toBe("Watched from block 1000: read to block 5999, the node's tip (1 block fetched)");
    expect(watchWords(status({ state: 'ready', scanned_height: 5_999, blocks_fetched: 12_345 })).words).toContain('(12,345 blocks fetched)');
  });
});
