import { describe, expect, it } from 'vitest';
import { niceTicks, stepPath, timeTicks, timeTickText } from './chart-scale.ts';

describe('the balance chart scales', () => {
  it('ticks at round steps from zero past the largest value', () => {
    expect(niceTicks(0, 4.5)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(niceTicks(0, 0.0003)).toEqual([0, 0.0001, 0.0002, 0.0003]);
    expect(niceTicks(0, 360)).toEqual([0, 100, 200, 300, 400]);
    expect(niceTicks(0, 0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
  it('spreads time ticks on whole days over long spans, and reads them as dates or clock times', () => {
    const from = Date.UTC(2026, 0, 1, 13) / 1000;
    const ticks = timeTicks(from, from + 30 * 86400);
    expect(ticks.every((t) => t % 86400 === 0)).toBe(true);
    expect(timeTickText(ticks[0]!, 30 * 86400)).toBe('2 Jan');
    expect(timeTickText(from, 3600)).toBe('13:00');
  });
  it('draws steps: level until the next change', () => {
    expect(stepPath([{ x: 0, y: 50 }, { x: 10, y: 20 }], 100)).toBe('M0,100V50H10V20');
  });
});
