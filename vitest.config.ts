import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'conformance/**/*.test.ts'],
    // Bundler builds and the dev server are real and take seconds each.
    testTimeout: 120_000,
    // Two files at a time on the 2-core machine (vitest's default runs one; three measured slower): most
    // files wait on child processes (tsc, cargo, Chromium, nats-server, bundlers) for much of their time.
    maxWorkers: 2,
    hookTimeout: 120_000,
    // Every compile of the suite is a real one: the persistent cache's default folder is off (its own
    // tests turn it back on, or name a folder), so no file's result depends on another's run.
    env: { UNPLUGIN_CONTRACTS_CACHE: '0' },
  },
})
