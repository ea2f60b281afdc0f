import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'service/**/*.test.ts', 'main/**/*.test.ts', 'scripts/**/*.test.ts', 'dev/**/*.test.ts', 'renderer/**/*.test.ts', 'e2e/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
