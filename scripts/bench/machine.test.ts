import { describe, expect, it } from 'vitest';
import { cpuMsOf, ownCpuMs, statCpuMs } from './machine.ts';

describe('CPU time from /proc', () => {
  it('reads utime and stime after a command name holding spaces and parentheses', () => {
    const stat = '4242 (lite coind) (x)) S 1 4242 4242 0 -1 4194560 1200 0 0 0 73 12 0 0 20 0 9 0 5000 900000000 30000 18446744073709551615';
    expect(statCpuMs(stat)).toBe((73 + 12) * 10);
  });

  it('refuses a line that is not a stat line', () => {
    expect(() => statCpuMs('Name: node')).toThrow(/not a \/proc\/<pid>\/stat line/);
  });

  it('agrees with the process accounting of this process, to a tick', () => {
    let x = 0;
    for (let i = 0; i < 5e6; i++) x += i % 7; // some CPU time to account
    const before = ownCpuMs();
    const fromProc = cpuMsOf(process.pid);
    const after = ownCpuMs();
    expect(x).toBeGreaterThan(0);
    expect(fromProc).toBeGreaterThanOrEqual(before - 20);
    expect(fromProc).toBeLessThanOrEqual(after + 20);
  });
});
