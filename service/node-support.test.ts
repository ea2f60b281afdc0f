import { describe, expect, it } from 'vitest';
import { nodeRefusal, requiredNodeMajor } from './node-support.ts';

describe('the Node version check', () => {
  it("reads package.json's engines range", () => {
    expect(requiredNodeMajor('>=22')).toBe(22);
    expect(requiredNodeMajor(' >= v24.1')).toBe(24);
    expect(() => requiredNodeMajor('^22')).toThrow(/not of the form/);
  });

  it('accepts the required major and later ones', () => {
    expect(nodeRefusal('22.0.0', 22, '/x/node')).toBeNull();
    expect(nodeRefusal('24.3.1', 22, '/x/node')).toBeNull();
  });

  it('refuses an older Node in words: which one, what is needed, what to run instead', () => {
    const said = nodeRefusal('20.19.2', 22, '/usr/bin/node');
    expect(said).toMatch(/^Node 20\.19\.2 \(\/usr\/bin\/node\) cannot run Countersign: it needs Node >= 22/);
    expect(said).toMatch(/node_modules\/\.bin\/node/);
    expect(nodeRefusal('garbage', 22, '/usr/bin/node')).not.toBeNull();
  });
});
