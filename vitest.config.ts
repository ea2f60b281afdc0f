import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongFirstSequencer from './scripts/vitest-sequencer.ts';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'service/**/*.test.ts', 'main/**/*.test.ts', 'scripts/**/*.test.ts', 'dev/**/*.test.ts', 'renderer/**/*.test.ts', 'e2e/**/*.test.ts'],
    pool: 'forks',
    // vitest runs (cores - 1) files at a time: one on CI's 2 cores. Most test time is spent waiting on
    // litecoind, a service's poll or Chromium, not computing, so two files at a time overlap the
    // waits. Every file is parallel-safe (own ports, temp folders, PostgreSQL schemas).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongFirstSequencer },
    // One renderer build per run for every browser test file (e2e/browser.ts), not one per file.
    globalSetup: ['./e2e/renderer-once.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A screen or a service that is slow on a loaded 2-core machine still gets there: a poll waits up
    // to 10 s (vitest's default is 1 s), and returns as soon as the answer is right.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
