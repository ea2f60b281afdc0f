import { describe, expect, it } from 'vitest';
import { BroadcastSpends, MAX_PASSES } from './broadcast-spends.ts';

describe('outputs spent by our broadcasts', () => {
  it('are excluded until a pass that started after the broadcast finds the transaction in the index', () => {
    const spends = new BroadcastSpends();
    spends.add('t1', ['a:0', 'b:1'], 7); // pass 7 was under way at broadcast
    expect([spends.isSpent('a:0'), spends.isSpent('b:1'), spends.isSpent('c:0')]).toEqual([true, true, false]);
    // pass 7 read the mempool before the broadcast: what it knows settles nothing
    expect(spends.settleable(7)).toEqual([]);
    spends.settle(7, new Set(['t1']));
    expect(spends.isSpent('a:0')).toBe(true);
    // pass 8 started after it: not seen yet (a block raced the mempool read), then seen
    expect(spends.settleable(8)).toEqual(['t1']);
    spends.settle(8, new Set());
    expect(spends.isSpent('a:0')).toBe(true);
    spends.settle(9, new Set(['t1']));
    expect([spends.size, spends.isSpent('a:0')]).toEqual([0, false]);
  });

  it(`end after ${MAX_PASSES} passes that never see the transaction (the node dropped it)`, () => {
    const spends = new BroadcastSpends();
    spends.add('t1', ['a:0'], 0);
    for (let pass = 1; pass < MAX_PASSES; pass++) spends.settle(pass, new Set());
    expect(spends.isSpent('a:0')).toBe(true);
    spends.settle(MAX_PASSES, new Set());
    expect(spends.isSpent('a:0')).toBe(false);
  });

  it('a later broadcast spending the same output (a replacement) keeps its claim when the first one ends', () => {
    const spends = new BroadcastSpends();
    spends.add('t1', ['a:0'], 1);
    spends.add('t2', ['a:0', 'b:0'], 3);
    spends.settle(2, new Set(['t1']));
    expect([spends.isSpent('a:0'), spends.isSpent('b:0')]).toEqual([true, true]);
    spends.settle(4, new Set(['t2']));
    expect(spends.size).toBe(0);
  });
});
