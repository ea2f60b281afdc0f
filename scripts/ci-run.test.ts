// .ci/run's standalone step, without the installs and the suite: it clones the checked-out commit
// into a folder of its own (nothing beside it), names the command it would run, and cleans up.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

describe('.ci/run --dry-run', () => {
  it('clones HEAD alone into a temporary folder and would run the README test command there', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const out = execFileSync('bash', ['.ci/run', '--dry-run'], { cwd: root, encoding: 'utf8' });
    const testing = /ci: testing ([0-9a-f]{40}) in (\S+) \(nothing beside it\)/.exec(out);
    expect(testing, out).not.toBeNull();
    expect(testing![1]).toBe(head);
    expect(out).toContain('would run: npm ci && npm test');
    expect(existsSync(testing![2]!)).toBe(false);
  });
});
