import { describe, expect, it } from 'vitest';
import { plural } from './words.ts';

describe('plural: a count and its noun', () => {
  it('groups thousands the way the vault form does, and says one in the singular', () => {
    expect(plural(51840, 'block')).toBe('51,840 blocks');
    expect(plural(65535, 'block')).toBe('65,535 blocks');
    expect(plural(1, 'block')).toBe('1 block');
    expect(plural(0, 'block')).toBe('0 blocks');
    expect(plural(2_500_000n, 'block')).toBe('2,500,000 blocks');
    expect(plural(1n, 'block')).toBe('1 block');
    expect(plural(2, 'child', 'children')).toBe('2 children');
  });
});
