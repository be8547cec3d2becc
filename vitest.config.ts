import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'conformance/**/*.test.ts'],
    // Bundler builds and the dev server are real and take seconds each.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
