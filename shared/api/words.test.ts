import { describe, expect, it } from 'vitest';
import { editDistance, nearestWord, plural } from './words.ts';

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

describe('nearestWord: what a mistyped name most likely meant', () => {
  it('counts a swap of neighbours as one edit and ignores case', () => {
    expect(editDistance('netwrok', 'network')).toBe(1);
    expect(editDistance('litecion', 'litecoin')).toBe(1);
    expect(editDistance('cookiefile', 'cookieFile')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('finds the closest known word, and none when all are far', () => {
    expect(nearestWord('litecion', ['bitcoin', 'litecoin', 'dogecoin'])).toBe('litecoin');
    expect(nearestWord('netwrok', ['network', 'backend', 'usdRate'])).toBe('network');
    expect(nearestWord('cookiefile', ['url', 'username', 'password', 'cookieFile'])).toBe('cookieFile');
    expect(nearestWord('index', ['network', 'backend', 'usdRate'])).toBeNull();
    expect(nearestWord('prot', ['port', 'host'])).toBe('port');
    expect(nearestWord('x', [])).toBeNull();
  });
});
