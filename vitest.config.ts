import { relative } from 'node:path'
import { configDefaults, defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Files that only compile, check and run code in their own process, or in child processes they wait
 * for (cargo, the tsc binary, nats-server, esbuild's transform service), with no bundler plugin,
 * browser, file watcher, counted cache, fake timer or global they leave changed, so several of them
 * may share one worker process: importing the compiler and its dependencies, about 1 to 1.7 CPU
 * seconds a file, is then paid once per worker, not once per file. A file that needs a fresh process
 * stays out of this list (compile-once, incremental and code-cache count what a cache does; bundler
 * files load plugins that keep state; limits.test.ts runs the YAML parser out of stack, which depends
 * on what the process ran before; lsp.test.ts's publications missed their bound in a shared worker on
 * a loaded machine). Checked by running these files in one worker, shuffled.
 */
export const SHARED = [
  'conformance/benzene/runner.test.ts',
  'conformance/nats/runner.test.ts',
  'conformance/nats/subjects.test.ts',
  'test/benzene-diff-hostile.test.ts',
  'test/benzene-diff-locator.test.ts',
  'test/benzene-diff.test.ts',
  'test/benzene-differential.test.ts',
  'test/benzene-direction-free.test.ts',
  'test/benzene-producer-shapes.test.ts',
  'test/benzene-rules.test.ts',
  'test/benzene-untyped-schemas.test.ts',
  'test/cli-lock.test.ts',
  'test/cli.test.ts',
  'test/compact-module.test.ts',
  'test/corpus.test.ts',
  'test/credentials.test.ts',
  'test/dasp-corpus.test.ts',
  'test/dasp-diff-hostile.test.ts',
  'test/dasp-diff-oracle.test.ts',
  'test/dasp-diff.test.ts',
  'test/dasp-rules.test.ts',
  'test/dasp-runtime.test.ts',
  'test/declared-diagnostics.test.ts',
  'test/determinism.test.ts',
  'test/diff-against.test.ts',
  'test/diff-doc.test.ts',
  'test/diff-memo-changed.test.ts',
  'test/diff-oracle-dasp-floor.test.ts',
  'test/diff-oracle-headers.test.ts',
  'test/diff-oracle-payloads.test.ts',
  'test/diff-oracle-schema-refs.test.ts',
  'test/diff-oracle-schemas.test.ts',
  'test/diff-oracle-self.test.ts',
  'test/diff-oracle-subjects.test.ts',
  'test/diff-runner.test.ts',
  'test/docs-markdown.test.ts',
  'test/docs.test.ts',
  'test/editor-schemas.test.ts',
  'test/executor-core.test.ts',
  'test/executor-dispatch-units.test.ts',
  'test/executor-durable-subjects.test.ts',
  'test/executor-materialize-branches.test.ts',
  'test/executor-model.test.ts',
  'test/executor-typed.test.ts',
  'test/executor-types.test.ts',
  'test/generate.test.ts',
  'test/graph.test.ts',
  'test/hostile-runtime.test.ts',
  'test/hostile.test.ts',
  'test/http-sender.test.ts',
  'test/inheritance.test.ts',
  'test/layers.test.ts',
  'test/marked-literals.test.ts',
  'test/module-exports.test.ts',
  'test/module-size.test.ts',
  'test/nats-bundle-overlap.test.ts',
  'test/nats-client-types.test.ts',
  'test/nats-diff-hostile.test.ts',
  'test/nats-diff-interactions.test.ts',
  'test/nats-diff.test.ts',
  'test/nats-forbidden.test.ts',
  'test/nats-interactions.test.ts',
  'test/nats-message-schemas.test.ts',
  'test/nats-module-data.test.ts',
  'test/nats-module-state.test.ts',
  'test/nats-payload-types.test.ts',
  'test/nats-payload-width.test.ts',
  'test/nats-properties.test.ts',
  'test/nats-rules-bundle.test.ts',
  'test/nats-rules-indexed.test.ts',
  'test/nats-rules-interactions.test.ts',
  'test/nats-rules-links.test.ts',
  'test/nats-rules-pipelines.test.ts',
  'test/nats-rules.test.ts',
  'test/nats-standard-parser.test.ts',
  'test/nats-standard-split.test.ts',
  'test/nats-topology.test.ts',
  'test/nats-types-differential.test.ts',
  'test/nats-validator-plan.test.ts',
  'test/no-network.test.ts',
  'test/overlay.test.ts',
  'test/pack.test.ts',
  'test/pattern-dialect.test.ts',
  'test/pattern-engines.test.ts',
  'test/performance-doc.test.ts',
  'test/producer-corpus.test.ts',
  'test/runtime.test.ts',
  'test/rust-differential.test.ts',
  'test/rust-serde-widths.test.ts',
  'test/sarif.test.ts',
  'test/schema-check.test.ts',
  'test/schema-diff-discriminator.test.ts',
  'test/schema-diff-fixtures.test.ts',
  'test/schema-diff-formats.test.ts',
  'test/schema-diff-hostile.test.ts',
  'test/schema-diff-mirror.test.ts',
  'test/schema-diff-patterns.test.ts',
  'test/schema-diff-rules.test.ts',
  'test/schema-diff-soundness.test.ts',
  'test/schema-diff-witness-shared.test.ts',
  'test/terminal-text.test.ts',
  'test/token-languages.test.ts',
  'test/topology-layout.test.ts',
  'test/tsc-in-process.test.ts',
  'test/validation.test.ts',
  'test/wildcards.test.ts',
  'test/wire-json.test.ts',
  'test/yaml-fast-credentials.test.ts',
  'test/yaml-fast.test.ts',
]

/**
 * The files that take longest, longest first (measured on the 2-core machine; most of their time is
 * cargo, tsc, Chromium or a bundler in a child process). Started first, the two workers end close
 * together instead of one of them finishing a long file alone at the end.
 */
const LONGEST = [
  'test/fresh-clone.test.ts',
  'test/packed-apps.test.ts',
  'test/rust-hostile.test.ts',
  'test/rust-target.test.ts',
  'test/hostile-compile.test.ts',
  'test/docs-snippets.test.ts',
  'test/example.test.ts',
  'test/types.test.ts',
  'test/topology-escaping.test.ts',
  'test/write-attacks.test.ts',
  'test/nats-module.test.ts',
  'test/nats-provision.test.ts',
  // Real JetStream clusters under faults: mostly waiting on leader elections, not CPU.
  'test/cluster.test.ts',
  'test/fuzz.test.ts',
  'test/nats-topology-browser.test.ts',
  'test/dev-page.test.ts',
  'test/topology-import.test.ts',
  'test/bundlers.test.ts',
  'test/bundled-package-root.test.ts',
  'test/nats-operation-messages.test.ts',
  'test/nats-profile-allows.test.ts',
  'test/dev-loop-browser.test.ts',
]

/**
 * The shared-worker files that take longest, longest first (CPU seconds on the 2-core machine): on a
 * fresh checkout vitest orders files it has never timed by size, which put the `tsc` differential
 * (a small file, 24 CPU s) and the Rust serde build last, one worker finishing them alone.
 */
const SHARED_LONGEST = [
  'test/nats-standard-parser.test.ts',
  'test/tsc-in-process.test.ts',
  'test/diff-against.test.ts',
  'test/editor-schemas.test.ts',
  'test/nats-rules-indexed.test.ts',
  'test/rust-serde-widths.test.ts',
  'test/cli.test.ts',
  'test/rust-differential.test.ts',
]

/**
 * Vitest's order (files it has seen fail or last longer first), except that the LONGEST files come
 * first on a fresh checkout too, and the shared-worker files come last, together (a shared worker
 * is kept only while the next file in the queue may share it), the SHARED_LONGEST first among them.
 */
class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const name = (f: TestSpecification) => relative(f.project.config.root, f.moduleId)
    const rank = (f: TestSpecification) => {
      if (f.project.name === 'shared') {
        const j = SHARED_LONGEST.indexOf(name(f))
        return LONGEST.length + 1 + (j === -1 ? SHARED_LONGEST.length : j)
      }
      const i = LONGEST.indexOf(name(f))
      return i === -1 ? LONGEST.length : i
    }
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f)
  }
}

export default defineConfig({
  test: {
    // Bundler builds and the dev server are real and take seconds each.
    testTimeout: 120_000,
    // Two files at a time on the 2-core machine (vitest's default runs one; three measured slower): most
    // files wait on child processes (tsc, cargo, Chromium, nats-server, bundlers) for much of their time.
    maxWorkers: 2,
    hookTimeout: 120_000,
    // Every compile of the suite is a real one: the persistent cache's default folder is off (its own
    // tests turn it back on, or name a folder), so no file's result depends on another's run.
    env: { UNPLUGIN_CONTRACTS_CACHE: '0' },
    sequence: { sequencer: LongestFirst },
    // One Chromium for the run, which the browser tests connect to (test/global-chromium.ts).
    globalSetup: ['test/global-chromium.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'isolated', include: ['test/**/*.test.ts', 'conformance/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SHARED] },
      },
      { extends: true, test: { name: 'shared', include: SHARED, isolate: false } },
    ],
  },
})
