import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from './node-flags.ts';

describe('service node flags', () => {
  it('every script that runs the service runs with them (the bench measures with them too)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    for (const script of ['service', 'countersign', 'demo', 'demo:service', 'web']) {
      for (const flag of SERVICE_NODE_FLAGS) expect(pkg.scripts[script]).toContain(flag);
    }
  });
});
