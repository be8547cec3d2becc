/**
 * Test files whose waits are timed (leases and renewals, JetStream leader elections, file watchers
 * and dev servers, a language server's publications): their worker keeps the normal priority while
 * every other file's worker runs at COMPUTING_PRIORITY (test/setup/worker-priority.ts), so that a
 * timed wait is not stretched by a computing file on the same core. None of these shares a worker.
 */
export const TIMED = [
  'test/cluster.test.ts',
  'test/executor-adapter-waits.test.ts',
  'test/executor-claims.test.ts',
  'test/executor-dispatch.test.ts',
  'test/executor-durable.test.ts',
  'test/executor-durable-cancel.test.ts',
  'test/executor-durable-manifest.test.ts',
  'test/executor-durable-recovery.test.ts',
  'test/executor-nats.test.ts',
  'test/executor-ownership.test.ts',
  'test/executor-retention.test.ts',
  'test/probe-exec-apps.test.ts',
  'test/probe-executor-durable.test.ts',
  'test/probe-responder-apps.test.ts',
  'test/probe-durable-cancel.test.ts',
  'test/probe-early-cancel.test.ts',
  'test/probe-exec-timing.test.ts',
  'test/probe-durable-pipeline.test.ts',
  'test/probe-nats-client-bounds.test.ts',
  'test/lsp.test.ts',
  'test/probe-lsp-edits.test.ts',
  'test/nats-client.test.ts',
  'test/nats-browser.test.ts',
  'test/nats-operation-messages.test.ts',
  'test/nats-provision.test.ts',
  'test/cli-watch.test.ts',
  'test/probe-watch.test.ts',
  'test/diff-dev.test.ts',
  'test/vite-dev.test.ts',
  'test/vite-dev-absent.test.ts',
  'test/vite-dev-compiles.test.ts',
  'test/vite-resilience.test.ts',
  'test/vite-dev-saves.test.ts',
  'test/package-types-dev.test.ts',
  'test/probe-vite-dev-diff.test.ts',
  'test/probe-sidecars.test.ts',
]

/** The niceness of computing files' workers (and of what they start): below the timed files, above the linters (10). */
export const COMPUTING_PRIORITY = 5
