import { describe, expect, it } from 'vitest';
import { addSample, describeTimeLeft, MIN_GAP_MS, timeLeft, WINDOW, type Sample } from './sync-estimate.ts';

describe('time left to index', () => {
  it('says it is working out the time left until two samples', () => {
    expect(timeLeft([], 1000)).toEqual({ kind: 'estimating' });
    expect(describeTimeLeft(timeLeft([{ at: 0, indexed: 10 }], 1000))).toBe('working out the time left');
  });

  it('divides the blocks left by the rate observed between the oldest and newest sample', () => {
    // 100 blocks in 10 s = 10 blocks/s; 900 left -> 90 s.
    const samples = [
      { at: 0, indexed: 100 },
      { at: 5_000, indexed: 130 },
      { at: 10_000, indexed: 200 },
    ];
    expect(timeLeft(samples, 1100)).toEqual({ kind: 'seconds', seconds: 90 });
    expect(describeTimeLeft(timeLeft(samples, 1100))).toBe('about 2 min left');
    expect(timeLeft(samples, 200)).toEqual({ kind: 'seconds', seconds: 0 });
  });

  it('says when nothing moved, and words long waits in hours and days', () => {
    expect(describeTimeLeft(timeLeft([{ at: 0, indexed: 5 }, { at: 4_000, indexed: 5 }], 10))).toBe('no progress since the last check');
    expect(describeTimeLeft({ kind: 'seconds', seconds: 30 })).toBe('less than a minute left');
    expect(describeTimeLeft({ kind: 'seconds', seconds: 3 * 3600 + 20 * 60 })).toBe('about 3 h 20 min left');
    expect(describeTimeLeft({ kind: 'seconds', seconds: 2 * 3600 })).toBe('about 2 h left');
    expect(describeTimeLeft({ kind: 'seconds', seconds: 5 * 86_400 })).toBe('about 5 days left');
  });

  it('keeps a window of samples and starts over when the height goes back', () => {
    let s: Sample[] = [];
    for (let i = 0; i < WINDOW + 5; i++) s = addSample(s, { at: i * 1000, indexed: i * 10 });
    expect(s).toHaveLength(WINDOW);
    expect(s[0]).toEqual({ at: 5000, indexed: 50 });
    expect(addSample(s, { at: 99_000, indexed: 3 })).toEqual([{ at: 99_000, indexed: 3 }]);
    // A poll answered twice at the same instant adds nothing.
    expect(addSample(s, { at: s.at(-1)!.at, indexed: 500 })).toEqual(s);
  });

  it('takes two polls answered back to back as one: no rate, so no "no progress" before there is one', () => {
    const once = addSample([], { at: 0, indexed: 120 });
    const twice = addSample(once, { at: MIN_GAP_MS - 1, indexed: 120 });
    expect(twice).toEqual([{ at: MIN_GAP_MS - 1, indexed: 120 }]);
    expect(describeTimeLeft(timeLeft(twice, 900))).toBe('working out the time left');
    expect(addSample(twice, { at: 2 * MIN_GAP_MS, indexed: 140 })).toHaveLength(2);
  });
});
