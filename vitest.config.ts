import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/own-cache.ts'],
    // Sandboxed and end-to-end tests take up to ~60 s on a 2-core VM whose page faults are
    // dear (bench:sandbox prints that cost); twice that before a test counts as hung.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Sandboxed evaluators and servers are real processes: keep parallelism modest on 2 cores.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
