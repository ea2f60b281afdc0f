import { describe, expect, it } from 'vitest';
import { notFinalWords, watchScanComplete } from './figures-final.ts';

const ready = { state: 'ready' as const, scanned_height: 300 };

describe('watchScanComplete', () => {
  it('is true only when the service is ready, whatever block it is applying (the lag is the coin\'s)', () => {
    expect(watchScanComplete(ready)).toBe(true);
    expect(watchScanComplete({ ...ready, state: 'scanning' })).toBe(false);
    // A new block being applied: still ready, still complete (the figures do not flip each block).
    expect(watchScanComplete({ ...ready, scanned_height: 299 })).toBe(true);
    expect(watchScanComplete({ ...ready, scanned_height: null })).toBe(false);
    expect(watchScanComplete({ ...ready, state: 'error' })).toBe(false);
  });
});

describe('notFinalWords: one predicate for the card, the page and the books', () => {
  it('is null only when the index is current, the walk is done and the scan complete', () => {
    expect(notFinalWords({ indexed: true, walk: null, watch: { complete: true } })).toBeNull();
    expect(notFinalWords({ indexed: true, walk: null, watch: null })).toBeNull();
  });
  it('says why when any of the three is not', () => {
    expect(notFinalWords({ indexed: false, walk: null, watch: { complete: true } })).toBe("the service's index is catching up with the node");
    expect(notFinalWords({ indexed: true, walk: { checked: 1200, of: 1240 }, watch: { complete: true } })).toBe('the desk is still finding which addresses are used (1,200 of at least 1,240 checked)');
    // The walk done, the service still reading (a rescan, a window extended): not final either.
    expect(notFinalWords({ indexed: true, walk: null, watch: { complete: false } })).toBe("the service is still reading this wallet's blocks");
  });
});
