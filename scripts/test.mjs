// npm test: the build, then the test suite (its files test the built package), with the linters
// beside both from the start: the build is mostly one single-threaded tsc, and the suite leaves a
// core idle while its files wait on child processes; eslint and prettier fill those. They run at a
// lower priority: nothing waits on them until the end, while the suite's first files (the fresh
// clone's and the packed apps' installs and builds, its longest) do, so on a busy core the suite
// goes first and the linters take what it leaves. Then one verdict. Arguments go to vitest.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { setPriority } from 'node:os'
import { join } from 'node:path'

/** A niceness the linters run at: below the suite's files, not so far that they starve on two busy cores. */
const LINTER_PRIORITY = 10

/**
 * A package's command as `node_modules/.bin/<name>` runs it: Node on its `bin` file. Through `npx`
 * each of the three commands first started npm's own CLI to find it, about 0.65 CPU seconds each
 * (0.77 against 0.14 for `vitest --version`, on the 2-core machine), and a shell.
 */
function bin(name) {
  const dir = join(import.meta.dirname, '..', 'node_modules', name)
  const { bin } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  return [process.execPath, join(dir, typeof bin === 'string' ? bin : bin[name])]
}

/** Runs package `name`'s command with `args` (see bin). */
const command = (name, args) => {
  const [node, file] = bin(name)
  return [node, [file, ...args]]
}

/** Runs a command at the linters' priority; its output is kept and shown after the suite (so the two never interleave). */
function quiet(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      if (child.pid !== undefined) setPriority(child.pid, LINTER_PRIORITY)
    } catch {
      // A system that refuses it runs the linters at the suite's priority, as before.
    }
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', (error) => resolve({ status: 1, output: `${output}${error.message}\n` }))
    child.on('close', (status) => resolve({ status: status ?? 1, output }))
  })
}

function loud(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env })
    child.on('error', () => resolve(1))
    child.on('close', (status) => resolve(status ?? 1))
  })
}

// .prettierrc.json has Prettier read TypeScript with its Babel parser (babel-ts), not TypeScript's own:
// the same formatting of every file here, for a quarter less of the check's CPU time (about 19 CPU s
// instead of 25 on the 2-core machine).
/**
 * The files Prettier checks: the repository's own (tracked, or new and not ignored), as git lists
 * them. Its glob (`**\/*.{ts,...}`) walked every folder, test/.tmp included, while the suite's files
 * make and delete folders there: a folder gone in the middle of the walk failed the check ("Unable to
 * expand glob pattern"). Without git (not a checkout), the glob.
 */
function prettierFiles() {
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.mts', '*.mjs', '*.js'], {
      cwd: join(import.meta.dirname, '..'),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const files = listed.split('\0').filter((file) => file !== '' && existsSync(join(import.meta.dirname, '..', file)))
    return files.length > 0 ? files : ['**/*.{ts,mts,mjs,js}']
  } catch {
    return ['**/*.{ts,mts,mjs,js}']
  }
}

const lint = (async () => {
  const eslint = await quiet(...command('eslint', ['.']))
  const prettier = await quiet(...command('prettier', ['--check', ...prettierFiles()]))
  return [
    { name: 'eslint .', ...eslint },
    { name: 'prettier --check', ...prettier },
  ]
})()
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const tests = (async () => {
  const built = await loud(npm, ['run', 'build'])
  if (built !== 0) {
    process.stderr.write('npm run build failed: the suite did not run\n')
    return built
  }
  // The package is built: the tests' imports of its sources load the built files (vitest.config.ts, BUILT).
  return loud(...command('vitest', ['run', ...process.argv.slice(2)]), { ...process.env, UNPLUGIN_CONTRACTS_TEST_BUILT: '1' })
})()

const [linters, testStatus] = await Promise.all([lint, tests])
let failed = testStatus !== 0
for (const { name, status, output } of linters) {
  if (status === 0) continue
  failed = true
  process.stderr.write(`\n${name} failed:\n${output}`)
}
if (!failed) console.log('lint: eslint and prettier passed')
process.exit(failed ? 1 : 0)
