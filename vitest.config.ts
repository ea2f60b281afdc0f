import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'service/**/*.test.ts', 'main/**/*.test.ts', 'scripts/**/*.test.ts', 'dev/**/*.test.ts', 'renderer/**/*.test.ts', 'e2e/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A screen or a service that is slow on a loaded 2-core machine still gets there: a poll waits up
    // to 10 s (vitest's default is 1 s), and returns as soon as the answer is right.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
