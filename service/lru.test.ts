import { describe, expect, it } from 'vitest';
import { Lru } from './lru.ts';

describe('Lru', () => {
  it('never holds more than its maximum', () => {
    const lru = new Lru<number, number>(10);
    for (let i = 0; i < 1000; i++) {
      lru.set(i, i);
      expect(lru.size).toBeLessThanOrEqual(10);
    }
  });

  it('keeps an entry that is read while others come and go, and drops one that is not', () => {
    const lru = new Lru<string, number>(10);
    lru.set('hot', 1);
    lru.set('cold', 2);
    for (let i = 0; i < 100; i++) {
      lru.set(`k${i}`, i);
      expect(lru.get('hot')).toBe(1);
    }
    expect(lru.get('cold')).toBeUndefined();
  });

  it('keeps every entry set or read within the last max / 2 sets', () => {
    const lru = new Lru<number, number>(20);
    for (let i = 0; i < 200; i++) {
      lru.set(i, i * 2);
      for (let j = Math.max(0, i - 9); j <= i; j++) expect(lru.get(j)).toBe(j * 2);
    }
  });

  it('replaces a value in place and forgets everything on clear', () => {
    const lru = new Lru<string, string>(4);
    lru.set('a', 'x');
    lru.set('b', 'y');
    lru.set('a', 'z');
    expect(lru.get('a')).toBe('z');
    expect(lru.size).toBe(2);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(lru.get('a')).toBeUndefined();
  });
});
