import { join, relative } from 'node:path'
import { configDefaults, defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { TIMED } from './test/file-groups.js'

/**
 * Files that only compile, check and run code in their own process, or in child processes they wait
 * for (cargo, the tsc binary, nats-server, esbuild's transform service), with no bundler plugin,
 * browser, file watcher, counted cache, fake timer or global they leave changed, so several of them
 * may share one worker process: importing the compiler and its dependencies, about 1 to 1.7 CPU
 * seconds a file, is then paid once per worker, not once per file. Files that may share a worker
 * only with their own kind are in BUNDLERS and TOOLS below. A file that needs a fresh
 * process is in none of these lists (compile-once and incremental count what a cache does in this
 * process, as do persistent-cache-builds and compile-pool; files with vi.mock; the CLI run in this
 * process, which changes its working folder: write-attacks and cli-inputs; limits.test.ts runs the
 * YAML parser out of stack, which depends on what the process ran before; lsp.test.ts's publications
 * missed their bound in a shared worker on a loaded machine; the JetStream clusters and the durable
 * executor's files, whose leases and elections are timed; the nats-server files, which shared a worker
 * safely but with no CPU time saved that a measurement could tell from noise). Checked by running these files in one
 * worker, shuffled.
 */
export const SHARED = [
  'conformance/benzene/runner.test.ts',
  'conformance/nats/runner.test.ts',
  'conformance/nats/subjects.test.ts',
  'test/alias-chains.test.ts',
  'test/all-of-closed.test.ts',
  'test/benzene-diff-hostile.test.ts',
  'test/benzene-diff-locator.test.ts',
  'test/benzene-diff-readings.test.ts',
  'test/benzene-diff-witness-placement.test.ts',
  'test/benzene-diff.test.ts',
  'test/benzene-differential.test.ts',
  'test/benzene-direction-free.test.ts',
  'test/benzene-producer-shapes.test.ts',
  'test/benzene-rules.test.ts',
  'test/benzene-untyped-schemas.test.ts',
  'test/bind-imports.test.ts',
  'test/bundled-runtime-classes.test.ts',
  'test/cli-lock.test.ts',
  'test/changed-read.test.ts',
  'test/cli.test.ts',
  'test/code-identity.test.ts',
  'test/compact-module.test.ts',
  'test/compile.test.ts',
  'test/core-handlers.test.ts',
  'test/corpus.test.ts',
  'test/credentials.test.ts',
  'test/dasp-corpus.test.ts',
  'test/dasp-diff-definition-readings.test.ts',
  'test/dasp-diff-hostile.test.ts',
  'test/dasp-diff-oracle.test.ts',
  'test/dasp-diff.test.ts',
  'test/dasp-module-limits.test.ts',
  'test/dasp-rules.test.ts',
  'test/dasp-runtime.test.ts',
  'test/dasp-dependency-graph.test.ts',
  'test/nats-schema-equality.test.ts',
  'test/declared-diagnostics.test.ts',
  'test/determinism.test.ts',
  'test/depth-failure-refuses.test.ts',
  'test/diff-against.test.ts',
  'test/diff-against-bytes.test.ts',
  'test/diff-doc.test.ts',
  'test/diff-fast-paths.test.ts',
  'test/diff-locations.test.ts',
  'test/diff-memo-changed.test.ts',
  'test/diff-oracle-dasp-floor.test.ts',
  'test/diff-oracle-headers.test.ts',
  'test/diff-oracle-payloads.test.ts',
  'test/diff-oracle-schema-refs.test.ts',
  'test/diff-oracle-schemas.test.ts',
  'test/diff-oracle-self.test.ts',
  'test/diff-oracle-subjects.test.ts',
  'test/diff-runner.test.ts',
  'test/diff-settled-components.test.ts',
  'test/docs-markdown.test.ts',
  'test/docs.test.ts',
  'test/editor-schemas.test.ts',
  'test/emit-text.test.ts',
  'test/error-text.test.ts',
  'test/executor-born-young.test.ts',
  'test/executor-buffers.test.ts',
  'test/executor-core.test.ts',
  'test/executor-dispatch-units.test.ts',
  'test/executor-durable-subjects.test.ts',
  'test/executor-materialize-branches.test.ts',
  'test/executor-model.test.ts',
  'test/executor-typed.test.ts',
  'test/executor-types.test.ts',
  'test/file-trust.test.ts',
  'test/generate-stale-oracle.test.ts',
  'test/generate-stale.test.ts',
  'test/generate.test.ts',
  'test/graph.test.ts',
  'test/hostile-runtime.test.ts',
  'test/hostile.test.ts',
  'test/http-sender.test.ts',
  'test/inheritance.test.ts',
  'test/json-refs.test.ts',
  'test/ajv-misread-keywords.test.ts',
  'test/json-regions.test.ts',
  'test/json-text.test.ts',
  'test/installed-as-locked.test.ts',
  'test/layers.test.ts',
  'test/lsp-markdown.test.ts',
  'test/marked-literals.test.ts',
  'test/materialize-own-members.test.ts',
  'test/module-exports.test.ts',
  'test/module-size.test.ts',
  'test/nats-bundle-overlap.test.ts',
  'test/nats-client-types.test.ts',
  'test/nats-diff-findings-index.test.ts',
  'test/nats-diff-hostile.test.ts',
  'test/nats-diff-interactions.test.ts',
  'test/nats-diff-header-maps.test.ts',
  'test/nats-diff-message-cover.test.ts',
  'test/nats-diff-sibling-cover.test.ts',
  'test/nats-diff-message-cover-oracle.test.ts',
  'test/nats-diff-unchanged-payloads.test.ts',
  'test/nats-diff.test.ts',
  'test/nats-diff-streams.test.ts',
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
  'test/nats-message-headers-oracle.test.ts',
  'test/read-past-keys.test.ts',
  'test/reserved-header-names.test.ts',
  'test/nats-schema-cycle.test.ts',
  'test/nats-standard-parser.test.ts',
  'test/nats-standard-refs.test.ts',
  'test/nats-standard-split.test.ts',
  'test/nats-topology.test.ts',
  'test/nats-types-differential.test.ts',
  'test/nats-uncaptured-subjects.test.ts',
  'test/nats-validator-plan.test.ts',
  'test/no-network.test.ts',
  'test/overlay.test.ts',
  'test/pack.test.ts',
  'test/pattern-dialect.test.ts',
  'test/pattern-engines.test.ts',
  'test/pattern-length-range.test.ts',
  'test/pattern-modifiers.test.ts',
  'test/performance-doc.test.ts',
  'test/probe-compat-bd.test.ts',
  'test/probe-compat-nats.test.ts',
  'test/probe-dasp-runtime.test.ts',
  'test/probe-diff-against.test.ts',
  'test/probe-diff-cli.test.ts',
  'test/probe-diff-ignore.test.ts',
  'test/probe-editor-schemas.test.ts',
  'test/probe-hostile-today.test.ts',
  'test/probe-http-sender.test.ts',
  'test/probe-inputs.test.ts',
  'test/probe-rust-differential.test.ts',
  'test/probe-rust.test.ts',
  'test/producer-corpus.test.ts',
  'test/runtime.test.ts',
  'test/rust-deep-chains.test.ts',
  'test/rust-differential.test.ts',
  'test/rust-serde-widths.test.ts',
  'test/sarif.test.ts',
  'test/schema-check.test.ts',
  'test/schema-diff-discriminator.test.ts',
  'test/schema-diff-fixtures.test.ts',
  'test/schema-diff-formats.test.ts',
  'test/schema-diff-hostile.test.ts',
  'test/schema-diff-implied-oracle.test.ts',
  'test/schema-diff-normal-form-oracle.test.ts',
  'test/schema-diff-mirror.test.ts',
  'test/schema-diff-patterns.test.ts',
  'test/schema-diff-rules.test.ts',
  'test/schema-diff-same-values.test.ts',
  'test/schema-diff-witness-bounds.test.ts',
  'test/schema-diff-soundness.test.ts',
  'test/schema-diff-witness-shared.test.ts',
  'test/terminal-text.test.ts',
  'test/token-languages.test.ts',
  'test/topology-layout.test.ts',
  'test/tsc-in-process.test.ts',
  'test/validation.test.ts',
  'test/wildcards.test.ts',
  'test/wire-json.test.ts',
  'test/yaml-block.test.ts',
  'test/yaml-fast-credentials.test.ts',
  'test/yaml-fast.test.ts',
  'test/yaml-merge-keys.test.ts',
]

/**
 * Files that build with the real bundlers in this process, through the plugin as users install it
 * (test/helpers/bundlers.ts): one worker imports Vite, Rollup, Rolldown, esbuild, webpack and Rspack
 * once for all of them instead of once a file (about 2 CPU seconds a file saved). Every build makes
 * a plugin of its own, and none of these files counts what a cache across builds does. Checked by
 * running them in one worker, shuffled.
 */
export const BUNDLERS = [
  'test/bundler-errors.test.ts',
  'test/bundler-module-names.test.ts',
  'test/bundler-source-maps.test.ts',
  'test/bundlers.test.ts',
  'test/dasp.test.ts',
  'test/hostile-compile.test.ts',
  'test/nats-module.test.ts',
  'test/nats-profile-allows.test.ts',
  'test/package-types.test.ts',
  'test/plugin.test.ts',
  'test/ref-chain.test.ts',
  'test/resolve-specifiers.test.ts',
  'test/topology-import.test.ts',
  'test/types.test.ts',
]

/**
 * Files whose work is in child processes they wait for (npm, cargo, tsc, a built app, Vite's dev
 * server) or in pages of the shared Chromium, each in folders of its own: they may share a worker
 * with each other, since nothing they leave in the worker process is read by the next. Checked by
 * running them in one worker, shuffled.
 */
export const TOOLS = [
  'test/code-cache.test.ts',
  'test/commonjs-app.test.ts',
  'test/dev-loop-browser.test.ts',
  'test/dev-page-contents.test.ts',
  'test/dev-page.test.ts',
  'test/example-dev-servers.test.ts',
  'test/fuzz.test.ts',
  'test/nats-topology-browser.test.ts',
  'test/precompiled-asyncapi.test.ts',
  'test/probe-devpage-hostile.test.ts',
  'test/probe-positions.test.ts',
  'test/safe-write.test.ts',
]

/**
 * The files that take longest, longest first (measured on the 2-core machine; most of their time is
 * cargo, tsc, Chromium or a bundler in a child process). Started first, the two workers end close
 * together instead of one of them finishing a long file alone at the end. Also the shared-worker
 * files that take longest: on a fresh checkout vitest orders files it has never timed by size,
 * which put the `tsc` differential (a small file, 24 CPU s) and the Rust serde build last, one
 * worker finishing them alone.
 */
const LONGEST = [
  'test/fresh-clone.test.ts',
  'test/packed-apps.test.ts',
  'test/rust-hostile.test.ts',
  'test/docs-snippets.test.ts',
  'test/topology-escaping.test.ts',
  'test/hostile-compile.test.ts',
  'test/bundlers.test.ts',
  'test/types.test.ts',
  'test/write-attacks.test.ts',
  'test/nats-module.test.ts',
  'test/example.test.ts',
  'test/nats-provision.test.ts',
  // Real JetStream clusters under faults: mostly waiting on leader elections, not CPU.
  'test/cluster.test.ts',
  // Outside hostile passes: Chromium, Graphviz, a Vite dev server, CLI processes, nats-servers.
  'test/probe-topology-hostile.test.ts',
  'test/probe-provision-owned.test.ts',
  'test/probe-core-bytes.test.ts',
  'test/probe-cache-oracle.test.ts',
  'test/probe-pool.test.ts',
  'test/probe-watch.test.ts',
  'test/probe-lsp-edits.test.ts',
  'test/probe-build-errors.test.ts',
  // Not beside rust-hostile: both build in SERDE_TARGET, and cargo's lock on it made one wait for the
  // other, a worker idle for most of a minute (CPU_PROBE timelines).
  'test/rust-target.test.ts',
  'test/fuzz.test.ts',
  'test/nats-topology-browser.test.ts',
  'test/dev-page.test.ts',
  'test/topology-import.test.ts',
  'test/bundled-package-root.test.ts',
  'test/nats-operation-messages.test.ts',
  'test/nats-profile-allows.test.ts',
  'test/dev-loop-browser.test.ts',
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
 * The projects in the order their files run: a worker that shares files is kept only while the next
 * file in the queue belongs to its project, so each project's files run together, one block after
 * the other: the isolated files first, which hold the longest (the fresh clone, the packed apps, the
 * Rust target), and the many small shared files last, so that the two workers finish together.
 * The isolated and tools files also run as a group of their own (WAITING), four at a time.
 */
const ORDER = ['isolated', 'mocking', 'bundlers', 'tools', 'shared']

/**
 * Files that replace a module of the compiler with `vi.mock`: vitest can only stand in for modules it
 * loads itself, so these always import the TypeScript sources (see BUILT).
 */
const MOCKING = [
  'test/benzene-diff-directions.test.ts',
  'test/compile-once.test.ts',
  'test/diff-cli.test.ts',
  'test/diff-dev.test.ts',
  'test/diff-version-reader.test.ts',
]

/**
 * Whether the tests' imports of the compiler's sources (`../src/x.js`, from any folder) load the
 * built files instead (`dist/src/x.js`, which `tsc` writes from exactly those sources), as Node loads
 * any package: `npm test` builds first and then sets UNPLUGIN_CONTRACTS_TEST_BUILT (scripts/test.mjs).
 * Through vitest's module runner every worker process evaluated the sources' few hundred modules
 * again, each transformed in the main process: about a third of a compiler test file's CPU time.
 * Unset (`npx vitest run <file>` while editing), the sources are imported as they are, so a change
 * needs no build first. Tests that import the package by name (`unplugin-contracts`) use the build
 * either way.
 */
const BUILT = process.env.UNPLUGIN_CONTRACTS_TEST_BUILT === '1'
const root = import.meta.dirname
const built = BUILT
  ? {
      resolve: {
        alias: [
          // The package root in dist/ is the bundle (scripts/bundle-cli.mjs); tsc's root is kept beside it.
          { find: /^(?:\.\.\/)+src\/index\.js$/, replacement: join(root, 'dist/src/index.unbundled.js') },
          { find: /^(?:\.\.\/)+src\/(.*)$/, replacement: `${join(root, 'dist/src')}/$1` },
        ],
      },
      server: { deps: { external: [/\/node_modules\//, new RegExp(`^${join(root, 'dist').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`)] } },
    }
  : {}

/**
 * Vitest's order (files it has seen fail or last longer first), except that the projects run in
 * ORDER's blocks and, inside a block, the LONGEST files come first on a fresh checkout too.
 */
class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const name = (f: TestSpecification) => relative(f.project.config.root, f.moduleId)
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(name(f))
      return (ORDER.indexOf(f.project.name) + 1) * (LONGEST.length + 1) + (i === -1 ? LONGEST.length : i)
    }
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f)
  }
}

/**
 * Files at a time in each of the run's two groups, which run one after the other (vitest's
 * `sequence.groupOrder`). The first, the isolated and tools files, spend much of their time waiting:
 * on cargo's lock, JetStream elections and leases, Chromium, a dev server's watcher, child processes.
 * With three at a time, two of them often waited together and a core stood idle: CPU_PROBE timelines
 * of a clean clone's run showed the files using 0.7 to 1.3 of the two cores for its first five
 * minutes, and the whole run 162% of one. A fourth file there fills that time: the whole run 180%
 * of one core, 7 min 18 s against 8 min 29 s (that run with other work beside it) and 7 min 52 s
 * with only the isolated files at four, the same tests. The second group, the shared files,
 * computes: three at a time, as measured before (a fourth gave nothing, for 2.5% more CPU time).
 */
const WAITING = { maxWorkers: 4, sequence: { groupOrder: 0, sequencer: LongestFirst } }
const COMPUTING = { maxWorkers: 3, sequence: { groupOrder: 1, sequencer: LongestFirst } }

// A timed file keeps its worker's priority: it must not share a worker with a computing one.
const sharing = TIMED.filter((file) => SHARED.includes(file) || BUNDLERS.includes(file) || TOOLS.includes(file))
if (sharing.length > 0) throw new Error(`vitest.config.ts: timed files in a shared group: ${sharing.join(', ')}`)

export default defineConfig({
  test: {
    // Bundler builds and the dev server are real and take seconds each.
    testTimeout: 120_000,
    // Three files at a time on the 2-core machine unless a group says otherwise (WAITING, COMPUTING):
    // most files wait on child processes (tsc, cargo, Chromium, nats-server, bundlers) for part of
    // their time, and the computing files run at a lower priority than the timed ones (below).
    maxWorkers: 3,
    // Computing files run at a lower priority than the TIMED ones (test/setup/worker-priority.ts).
    // CPU_PROBE=<file> adds each file's processor time to that file (test/setup/cpu-probe.ts).
    setupFiles: ['test/setup/worker-priority.ts', 'test/setup/property-seed.ts', ...(process.env.CPU_PROBE ? ['test/setup/cpu-probe.ts'] : [])],
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
        resolve: built.resolve,
        test: {
          name: 'isolated',
          ...WAITING,
          include: ['test/**/*.test.ts', 'conformance/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SHARED, ...BUNDLERS, ...TOOLS, ...MOCKING],
          server: built.server,
        },
      },
      { extends: true, test: { name: 'mocking', ...COMPUTING, include: MOCKING } },
      { extends: true, resolve: built.resolve, test: { name: 'shared', ...COMPUTING, include: SHARED, isolate: false, server: built.server } },
      { extends: true, resolve: built.resolve, test: { name: 'bundlers', ...COMPUTING, include: BUNDLERS, isolate: false, server: built.server } },
      { extends: true, resolve: built.resolve, test: { name: 'tools', ...WAITING, include: TOOLS, isolate: false, server: built.server } },
    ],
  },
})
