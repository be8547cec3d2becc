// `npm run fuzz [-- <cases per format>]`: the fuzz tests at full strength (default 10,000 structured
// and 10,000 byte-level cases per format); the counts go to fuzz-report.json.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const runs = process.argv[2] ?? '10000'
const root = fileURLToPath(new URL('..', import.meta.url))
const result = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/fuzz.test.ts', '--testTimeout', '0'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_REPORT: 'fuzz-report.json' },
})
process.exit(result.status ?? 1)
