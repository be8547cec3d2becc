/**
 * probe-build-errors: an outside pass on what a developer sees when a contract is invalid or has
 * warnings, in every bundler and in `contracts check`.
 *
 * The docs under test (docs/getting-started.md, "A build with an invalid contract fails ..."): the
 * build fails with each diagnostic printed once, in the order `contracts check` prints them (code,
 * message, 1-based `file:line:column`, its own code frame); no stack of the plugin's internals and
 * no virtual module id; webpack and Rspack head the error with the contract's path; warnings are
 * printed and do not fail the build; an invalid edit in watch or dev mode shows the error and the
 * next valid edit recovers without a restart. docs/cli.md: check's text, `--json` and
 * `--format github` write document text so that it cannot act on a terminal or start a line (or a
 * workflow command) of its own.
 *
 * The oracle is `contracts check --json` of the same file (the built CLI, a child process); what a
 * bundler shows is what its own CLI prints (Vite, Rollup, Rolldown: a child process a build), the
 * docs' esbuild script, and webpack's and Rspack's `stats.toString()` (what their CLIs print; these
 * three build every entry of the file in two child processes a bundler), in an app folder under
 * test/.tmp/probe-build-errors/. Watch modes and the Vite dev server run in this process.
 *
 * Comments say "Holds (pinned)" for a behaviour that holds, and "DEFECT" for a test written to fail
 * while the defect it names is there.
 */
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { connectedMessages, hmrSocket } from './helpers/vite-hmr.js'
import { freshDir } from './helpers/bundlers.js'
import { until } from './helpers/until.js'

const repo = join(import.meta.dirname, '..')
const cli = join(repo, 'dist/cli.js')
const bin = (name: string) => join(repo, 'node_modules/.bin', name)
// Inside the package (no package.json of its own): `unplugin-contracts/<bundler>` resolves to the build.
const app = freshDir(join(import.meta.dirname, '.tmp/probe-build-errors'))
const src = join(app, 'src')
mkdirSync(src)
cpSync(join(repo, 'fixtures/benzene/invalid'), join(src, 'benzene'), { recursive: true })
cpSync(join(repo, 'fixtures/nats/invalid'), join(src, 'nats'), { recursive: true })
cpSync(join(repo, 'fixtures/dasp/invalid'), join(src, 'dasp'), { recursive: true })
const payments = readFileSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')

const BUNDLERS = ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as const
type Bundler = (typeof BUNDLERS)[number]

// Each bundler's configuration, as the docs show it; the entry and output folder come from the environment.
writeFileSync(
  join(app, 'vite.config.mjs'),
  "import contracts from 'unplugin-contracts/vite'\nexport default { plugins: [contracts()], build: { lib: { entry: process.env.ENTRY, formats: ['es'] }, outDir: process.env.OUT, emptyOutDir: true } }\n",
)
for (const name of ['rollup', 'rolldown'])
  writeFileSync(
    join(app, `${name}.config.mjs`),
    `import contracts from 'unplugin-contracts/${name}'\nexport default { input: process.env.ENTRY, output: { file: process.env.OUT + '/main.js' }, plugins: [contracts()] }\n`,
  )
{
  const docs = readFileSync(join(repo, 'docs/getting-started.md'), 'utf8')
  const block = /^```js build\.mjs\n([\s\S]*?)^```/m.exec(docs)![1]!
  writeFileSync(
    join(app, 'esbuild.mjs'),
    block.replace("entryPoints: ['src/main.js']", 'entryPoints: [process.env.ENTRY]').replace("outdir: 'dist'", 'outdir: process.env.OUT'),
  )
}
// The three bundlers driven by a script build a list of entries in one process (JOBS: entry and
// output folder each), each build as the single-entry script would run it, its output followed by
// an END line with its exit status on both streams: one process instead of one a build, about a
// second and a half of processor time each (mostly importing the bundler). The docs' esbuild script
// runs as it is, once per entry (imported afresh); its `process.exit(1)` ends that build, not the batch.
// webpack and Rspack build in production mode without their minifier: it changes none of the text
// checked here, and webpack's (terser) took about three quarters of its builds' processor time.
const END = '@@probe-build-errors END'
const endLine = `const end = (i, status) => { process.stdout.write('\\n${END} ' + i + ' ' + status + '\\n'); process.stderr.write('\\n${END} ' + i + ' ' + status + '\\n') }\nconst jobs = JSON.parse(process.env.JOBS)\n`
writeFileSync(
  join(app, 'esbuild-jobs.mjs'),
  `${endLine}process.exit = (code) => { throw Object.assign(new Error('exit'), { exitCode: code ?? 0 }) }\nfor (const [i, job] of jobs.entries()) {\n  process.env.ENTRY = job.entry\n  process.env.OUT = job.out\n  let status = 0\n  try { await import('./esbuild.mjs?' + i) } catch (error) { status = error.exitCode ?? 1; if (error.exitCode === undefined) console.error(error) }\n  end(i, status)\n}\n`,
)
for (const [name, load, call] of [
  ['webpack', "import webpack from 'webpack'", 'webpack'],
  ['rspack', "import { rspack } from '@rspack/core'", 'rspack'],
])
  writeFileSync(
    join(app, `${name}-jobs.mjs`),
    `${load}\nimport contracts from 'unplugin-contracts/${name}'\n${endLine}for (const [i, job] of jobs.entries()) {\n  const compiler = ${call}({ mode: 'production', optimization: { minimize: false }, context: process.cwd(), entry: './' + job.entry, output: { path: process.cwd() + '/' + job.out }, plugins: [contracts()] })\n  const status = await new Promise((resolve) => compiler.run((error, stats) => { if (error) console.error(error); console.log(stats.toString({ colors: false })); compiler.close(() => resolve(stats.hasErrors() ? 1 : 0)) }))\n  end(i, status)\n}\n`,
  )

const command: Record<Bundler, string[]> = {
  vite: [bin('vite'), 'build', '--config', 'vite.config.mjs'],
  rollup: [bin('rollup'), '-c', 'rollup.config.mjs'],
  rolldown: [bin('rolldown'), '-c', 'rolldown.config.mjs'],
  esbuild: [process.execPath, 'esbuild-jobs.mjs'],
  webpack: [process.execPath, 'webpack-jobs.mjs'],
  rspack: [process.execPath, 'rspack-jobs.mjs'],
}

/** Every entry the file's describe blocks made (before any test runs): what a batch builds. */
const planned: string[] = []
/** An entry module importing `specifiers` (relative to src/), each used so no bundler drops it. */
function entry(...specifiers: string[]): string {
  const name = `entry-${planned.length}.js`
  const lines = specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify('./' + s)}`)
  writeFileSync(join(src, name), `${lines.join('\n')}\nconsole.log(${specifiers.map((_, i) => `m${i}`).join(', ')})\n`)
  planned.push(`src/${name}`)
  return `src/${name}`
}

interface Run {
  status: number | null
  /** stdout then stderr, as written (colours off; nothing stripped). */
  text: string
}

/** At most two builds at a time (a 2-core machine): each is a child process of its bundler. */
let running = 0
const waiting: Array<() => void> = []
async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= 2) await new Promise<void>((r) => waiting.push(r))
  running++
  try {
    return await work()
  } finally {
    running--
    waiting.shift()?.()
  }
}

/** A bundler's child process with `env` added, its stdout and stderr as written. */
function spawnBundler(bundler: Bundler, env: Record<string, string>): Promise<{ status: number | null; out: string; err: string }> {
  return slot(
    () =>
      new Promise((resolve, reject) => {
        const [file, ...args] = command[bundler]
        const child = spawn(file!, args, {
          cwd: app,
          env: { ...process.env, ...env, NO_COLOR: '1', FORCE_COLOR: '0', UNPLUGIN_CONTRACTS_CACHE: '0' },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        let err = ''
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
        child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
        const timer = setTimeout(() => child.kill('SIGKILL'), 300_000)
        child.on('error', reject)
        child.on('close', (status) => {
          clearTimeout(timer)
          resolve({ status, out, err })
        })
      }),
  )
}

const outOf = (bundler: Bundler, entryPath: string) => `out/${bundler}/${entryPath.replace(/\W/g, '_')}`

/** The bundlers whose builds run in batches (the *-jobs.mjs scripts above). */
const BATCHED: ReadonlySet<Bundler> = new Set(['esbuild', 'webpack', 'rspack'])
const batches = new Map<Bundler, Promise<Map<string, Run>>>()

/**
 * Every planned entry built by `bundler` in two processes (one for each core), each build's text
 * (its stdout, then its stderr) and status read between the END lines.
 */
function batch(bundler: Bundler): Promise<Map<string, Run>> {
  let built = batches.get(bundler)
  if (built) return built
  const halves = [planned.filter((_, i) => i % 2 === 0), planned.filter((_, i) => i % 2 === 1)].filter((h) => h.length > 0)
  built = Promise.all(
    halves.map(async (entries) => {
      const r = await spawnBundler(bundler, { JOBS: JSON.stringify(entries.map((e) => ({ entry: e, out: outOf(bundler, e) }))) })
      const split = (text: string) => {
        const parts = text.split(new RegExp(`\\n${END} (\\d+) (\\d+)\\n`))
        // [text0, i0, status0, text1, i1, status1, ..., rest]
        const each: Array<{ text: string; status: number }> = []
        for (let k = 0; k + 2 < parts.length; k += 3) each[Number(parts[k + 1])] = { text: parts[k]!, status: Number(parts[k + 2]) }
        return each
      }
      const outs = split(r.out)
      const errs = split(r.err)
      expect([bundler, r.status, outs.length, errs.length], r.out + r.err).toEqual([bundler, 0, entries.length, entries.length])
      return entries.map((e, i) => [e, { status: outs[i]!.status, text: outs[i]!.text + errs[i]!.text }] as const)
    }),
  ).then((lists) => new Map(lists.flat()))
  batches.set(bundler, built)
  return built
}

async function build(bundler: Bundler, entryPath: string): Promise<Run> {
  if (BATCHED.has(bundler)) {
    const run = (await batch(bundler)).get(entryPath)
    if (!run) throw new Error(`${entryPath} was not planned (made outside a describe block)`)
    return run
  }
  const r = await spawnBundler(bundler, { ENTRY: entryPath, OUT: outOf(bundler, entryPath) })
  return { status: r.status, text: r.out + r.err }
}

interface Diagnostic {
  code: string
  severity: 'error' | 'warning'
  message: string
  file: string
  line: number
  column: number
}

/** `contracts check --json` of files (relative to the app). */
function check(...files: string[]): Diagnostic[] {
  const r = spawnSync(process.execPath, [cli, 'check', '--json', '--no-cache', ...files], { cwd: app, encoding: 'utf8', maxBuffer: 1 << 30 })
  expect(r.status, r.stderr).not.toBe(2)
  return (JSON.parse(r.stdout) as { diagnostics: Diagnostic[] }).diagnostics
}

/** The bundlers' colour codes are not part of what is compared. */
// eslint-disable-next-line no-control-regex -- colour sequences
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '')
/** Each diagnostic header a text shows (`severity CODE: message` then `at file:line:column`), in order. */
function shown(text: string, severity: 'error' | 'warning'): string[] {
  const out: string[] = []
  for (const m of plain(text).matchAll(/(error|warning) ([A-Z0-9_]+): .*\n[\s│]*at (.+?):(\d+):(\d+)/g))
    if (m[1] === severity) out.push(`${m[2]} ${relative(app, m[3]!)}:${m[4]}:${m[5]}`)
  return out
}
const key = (d: Diagnostic) => `${d.code} ${relative(app, d.file)}:${d.line}:${d.column}`

/** Plugin internals, virtual ids and namespaces that must not reach the developer. */
const INTERNALS = /\0|_virtual_|node_modules\/\.virtual|unplugin-contracts:|\.contract\.js|Module build failed|Could not load/
const PLUGIN_STACK = /^\s+at .*(dist\/src\/plugin|dist\/plugins|dist\/chunks|unplugin\/dist|contractError)/m

// A spread of the fixtures: several errors (DASP, in the selection and in a definition), related
// places (NATS), parse errors (JSON, YAML), errors beside warnings, and warnings alone. (The pass ran
// all 135 invalid fixtures by hand; six builds per bundler keep the file's cost in the suite down.)
const FIXTURES = [
  'dasp/definition-shape-and-rule.dasp.json',
  'benzene/json-syntax.spec.json',
  'nats/yaml-syntax.asyncapi.yaml',
  'nats/channel-overlap.asyncapi.yaml',
  'benzene/pattern-inline-options.spec.json',
  'dasp/attribute-name-length.dasp.json',
]

describe('the differential: what each bundler shows equals contracts check --json', () => {
  const oracle = new Map(FIXTURES.map((f) => [f, check(`src/${f}`)]))
  const entryOf = new Map(FIXTURES.map((f) => [f, entry(f)]))

  it.each(BUNDLERS)(
    '%s: each error and warning once, in check’s order, its frame at its line, no internals',
    async (bundler) => {
      const runs = await Promise.all(FIXTURES.map(async (f) => [f, await build(bundler, entryOf.get(f)!)] as const))
      for (const [f, run] of runs) {
        const diagnostics = oracle.get(f)!
        const errors = diagnostics.filter((d) => d.severity === 'error').map(key)
        const warnings = diagnostics.filter((d) => d.severity === 'warning').map(key)
        const text = plain(run.text)
        // Holds (pinned): same (code, file, line, column), each once, in order; a failed build only when there are errors.
        expect([f, shown(text, 'error')], text).toEqual([f, errors])
        expect([f, shown(text, 'warning')], text).toEqual([f, warnings])
        expect([f, run.status === 0], text).toEqual([f, errors.length === 0])
        expect([f, INTERNALS.test(text), PLUGIN_STACK.test(text)], text).toEqual([f, false, false])
        // Each header's frame marks its own line.
        const lines = text.split('\n')
        lines.forEach((l, i) => {
          const at = /^[\s│×⚠]*at .+:(\d+):\d+ \(/.exec(l)
          if (!at || !/(error|warning) [A-Z0-9_]+: /.test(lines[i - 1] ?? '')) return
          const marked = lines.slice(i + 1, i + 8).find((x) => /^[\s│]*> *\d+ \|/.test(x))
          expect([f, /> *(\d+) \|/.exec(marked ?? '')?.[1]], text).toEqual([f, at[1]])
        })
        if ((bundler === 'webpack' || bundler === 'rspack') && errors.length > 0) expect(text, text).toContain(`ERROR in ./src/${f}\n`)
        if ((bundler === 'webpack' || bundler === 'rspack') && warnings.length > 0) expect(text, text).toContain(`WARNING in ./src/${f}\n`)
      }
    },
    600_000,
  )
})

// A key and a value carrying what a terminal or a CI log acts on: colour and title sequences, a bell,
// CR and LF followed by a line that looks like the tool's own, a direction override, a line separator,
// and a workflow command. DUPLICATE_TOPIC quotes the value; the pointers of the schema's errors carry the key.
const HOSTILE = '\u001b[31mRED\u001b]0;TITLE\u0007\r\nerror FAKE_CODE: injected\n::error file=a.js::FAKE\u202eevil\u2028x'
/** Raw pieces of HOSTILE: none may reach the output. */
// eslint-disable-next-line no-control-regex -- the characters that must not get through
const RAW = /\u001b\[31mRED|\u001b\]0;|\u0007|\r|\u202e|\u2028|\u0085/
/** A line the document started (or a workflow command it started). */
const FORGED = /^[\s│×⚠]*(error FAKE_CODE|::error file=a\.js)/m

describe('hostile document text', () => {
  const doc = JSON.parse(payments) as { requests: Array<Record<string, unknown>>; components: { schemas: Record<string, unknown> } }
  doc.requests[0]!.response = { $ref: '#/components/schemas/' + HOSTILE }
  doc.requests.push({ ...doc.requests[1], topic: HOSTILE }, { ...doc.requests[1], topic: HOSTILE })
  doc.components.schemas[HOSTILE] = { type: 'object', required: [], properties: { [HOSTILE]: { type: 5 } }, patternProperties: { x: { type: 'string' } } }
  mkdirSync(join(src, 'hostile'))
  writeFileSync(join(src, 'hostile/text.spec.json'), JSON.stringify(doc, null, 2))
  // Raw control characters in the document's own text (outside strings): a JSON syntax error whose frame shows that line.
  writeFileSync(join(src, 'hostile/raw.spec.json'), payments.replace('"openapi"', '\u001b[31mRED\r\u202e"openapi"'))
  const hostileEntries = [entry('hostile/text.spec.json'), entry('hostile/raw.spec.json')]

  it.each(BUNDLERS)(
    '%s: escaped in every error and warning (messages, pointers, frames), no line of its own',
    async (bundler) => {
      for (const e of hostileEntries) {
        const run = await build(bundler, e)
        expect(run.status).not.toBe(0)
        // Holds (pinned).
        expect(RAW.test(run.text), run.text).toBe(false)
        expect(FORGED.test(run.text), run.text).toBe(false)
        expect(run.text).toMatch(/BENZENE_DUPLICATE_TOPIC|JSON_SYNTAX/)
      }
    },
    300_000,
  )

  it('contracts check: text, --json and --format github', () => {
    const files = ['src/hostile/text.spec.json', 'src/hostile/raw.spec.json']
    for (const format of [[], ['--json'], ['--format', 'github']]) {
      const r = spawnSync(process.execPath, [cli, 'check', '--no-cache', ...format, ...files], { cwd: app, encoding: 'utf8' })
      expect(r.status).toBe(1)
      // Holds (pinned): nothing raw on either stream, no forged line, and in GitHub's form one command per diagnostic.
      expect(RAW.test(r.stdout + r.stderr), r.stdout + r.stderr).toBe(false)
      expect(FORGED.test(r.stdout + r.stderr), r.stdout + r.stderr).toBe(false)
      if (format[1] === 'github') {
        const commands = r.stdout.split('\n').filter(Boolean)
        expect(
          commands.every((c) => /^::(error|warning) file=src\/hostile\/(text|raw)\.spec\.json,line=\d+,col=\d+,title=[A-Z_]+::/.test(c)),
          r.stdout,
        ).toBe(true)
        expect(commands.length).toBe(check(...files).length)
      }
    }
  })
})

describe('a contract whose file name is hostile', () => {
  // A vendored folder can hold any name. check escapes the path (docs/cli.md); the plugin's own headline
  // (`Contract <path> is invalid`), the error's `id` and `loc.file` (which Vite, Rollup and Rolldown print)
  // and Rspack's `ERROR in` header carry it as it is.
  mkdirSync(join(src, 'names'))
  const invalid = readFileSync(join(src, 'benzene/ref-missing.spec.json'))
  const names = ['a\nerror FAKE_CODE: injected.spec.json', '\u001b[31mred\u001b[0m.spec.json']
  for (const n of names) writeFileSync(join(src, 'names', n), invalid)
  const nameEntries = names.map((n) => entry(`names/${n}`))

  it('contracts check escapes it (text and --format github)', () => {
    for (const format of [[], ['--format', 'github']]) {
      const r = spawnSync(process.execPath, [cli, 'check', '--no-cache', ...format, ...names.map((n) => `src/names/${n}`)], { cwd: app, encoding: 'utf8' })
      // Holds (pinned).
      // eslint-disable-next-line no-control-regex -- the characters that must not get through
      expect(/\u001b\[31mred/.test(r.stdout + r.stderr), r.stdout + r.stderr).toBe(false)
      expect(FORGED.test(r.stdout + r.stderr), r.stdout + r.stderr).toBe(false)
    }
  })

  it.each(BUNDLERS)(
    '%s: the build error names it escaped',
    async (bundler) => {
      // Was a defect (fixed): every bundler printed `Contract /…/a` and then a line `error FAKE_CODE: injected.spec.json is
      // invalid (1 error):` of its own, and the name's colour sequence raw (the diagnostic's own `at` line is
      // escaped: `a\u{a}error FAKE_CODE…`). src/plugin/errors.ts builds the headline from `result.file` as it is.
      for (const e of nameEntries) {
        const run = await build(bundler, e)
        expect(run.status).not.toBe(0)
        expect(run.text).toContain('BENZENE_REF_MISSING')
        // eslint-disable-next-line no-control-regex -- the characters that must not get through
        expect(/\u001b\[31mred/.test(run.text), run.text).toBe(false)
        expect(FORGED.test(run.text), run.text).toBe(false)
      }
    },
    300_000,
  )
})

describe('many diagnostics', () => {
  mkdirSync(join(src, 'many'))
  const base = JSON.parse(payments) as { requests: Array<Record<string, unknown>>; components: { schemas: Record<string, unknown> } }
  const r0 = base.requests[0]!
  // 5,000 errors of one code.
  const five = structuredClone(base)
  five.requests = Array.from({ length: 5000 }, (_, i) => ({ ...r0, topic: `t:${i}`, response: { $ref: `#/components/schemas/Missing${i}` } }))
  writeFileSync(join(src, 'many/five-thousand.spec.json'), JSON.stringify(five, null, 2))
  // 300 warnings of each of three codes, and nothing else.
  const warned = structuredClone(base)
  for (let i = 0; i < 300; i++) {
    warned.components.schemas[`W${i}`] = { type: 'string', enum: [] }
    warned.components.schemas[`X${i}`] = { type: 'string', patternProperties: {} }
    warned.components.schemas[`Y${i}`] = { type: 'string', enum: ['a', 'a'] }
  }
  writeFileSync(join(src, 'many/warnings.spec.json'), JSON.stringify(warned, null, 2))
  // One error whose message quotes a 1,000,000-character schema name (a minified or generated document).
  const long = structuredClone(base)
  long.requests[0] = { ...r0, response: { $ref: '#/components/schemas/' + 'A'.repeat(1_000_000) } }
  writeFileSync(join(src, 'many/long-name.spec.json'), JSON.stringify(long))
  const [fiveEntry, warnedEntry, longEntry] = [entry('many/five-thousand.spec.json'), entry('many/warnings.spec.json'), entry('many/long-name.spec.json')]

  it('check caps them as docs/diagnostics.md says', () => {
    const d = check('src/many/five-thousand.spec.json')
    // Holds (pinned): 100 of the code, and the rest counted in one CONTRACTS_DIAGNOSTICS_CAPPED.
    expect(d.filter((x) => x.code === 'BENZENE_REF_MISSING')).toHaveLength(100)
    expect(d.filter((x) => x.code === 'CONTRACTS_DIAGNOSTICS_CAPPED').map((x) => (x as unknown as { data: unknown }).data)).toEqual([
      { code: 'BENZENE_REF_MISSING', count: 4900 },
    ])
  })

  it.each(BUNDLERS)(
    '%s: the error text stays bounded; warnings are each printed once and the build passes',
    async (bundler) => {
      const [errors, warnings] = await Promise.all([build(bundler, fiveEntry), build(bundler, warnedEntry)])
      // Holds (pinned): the first 10 of check's errors, then `... and 91 more` (not said in docs/getting-started.md,
      // which promises each diagnostic), a few KB in all.
      expect(errors.status).not.toBe(0)
      const want = check('src/many/five-thousand.spec.json')
        .filter((d) => d.severity === 'error')
        .map(key)
      expect(shown(errors.text, 'error')).toEqual(want.slice(0, 10))
      expect(plain(errors.text)).toMatch(/\.\.\. and 91 more \(run `?contracts check`? to see them all\)/)
      // Was a defect (fixed): the headline counted the cap's notice as one error ("(101 errors)").
      expect(plain(errors.text)).toContain('is invalid (5000 errors):')
      expect(errors.text.length).toBeLessThan(20_000)
      // Holds (pinned): warnings are not cut to 10: all 303 (3 x 100, 3 caps) are printed, each once, about
      // 2,400 lines. Observed: webpack prints a module's warnings sorted by their text (so grouped by code),
      // not in check's order; the other five keep check's order.
      expect(warnings.status, warnings.text.slice(-2000)).toBe(0)
      const checked = check('src/many/warnings.spec.json')
        .filter((d) => d.severity === 'warning')
        .map(key)
      const printed = shown(warnings.text, 'warning')
      if (bundler === 'webpack') expect([...printed].sort()).toEqual([...checked].sort())
      else expect(printed).toEqual(checked)
    },
    300_000,
  )

  it.each(BUNDLERS)(
    '%s: a very long value in a message is cut, as a code frame’s line is',
    async (bundler) => {
      // Was a defect (fixed): the frame shows 100 characters around the column (src/core/code-frame.ts), but the message
      // quotes the whole name: one line of 1,000,087 characters in every bundler and in the Vite overlay's
      // payload. Ten such names (a 12 MB document) made a 12 MB error in Rollup, esbuild and webpack.
      const run = await build(bundler, longEntry)
      expect(run.status).not.toBe(0)
      expect(run.text).toContain('BENZENE_REF_MISSING')
      expect(Math.max(...run.text.split('\n').map((l) => l.length))).toBeLessThan(10_000)
    },
    300_000,
  )
})

describe('one contract imported as two modules (plain and with a query)', () => {
  // Two modules of one invalid contract in one build. Rollup stops at the first; the others print both,
  // webpack and Rspack under two identical `ERROR in ./src/dup/r.spec.json` headers.
  mkdirSync(join(src, 'dup'))
  cpSync(join(src, 'benzene/ref-missing.spec.json'), join(src, 'dup/r.spec.json'))
  const both = entry('dup/r.spec.json', 'dup/r.spec.json?topics=orders:place')

  // A warned contract (no error) imported the same two ways: the build passes and prints its warning once.
  writeFileSync(join(src, 'dup/w.spec.json'), payments.replace('"openapi": "3.0.1"', '"openapi": "3.0.3"'))
  const warned = entry('dup/w.spec.json', 'dup/w.spec.json?topics=payments:capture')

  it.each(BUNDLERS)(
    '%s: a warning of a contract imported as two modules is printed once',
    async (bundler) => {
      // Was a defect (fixed): BENZENE_OPENAPI_VALUE at 2:14 was printed twice (once per module) by
      // every bundler, as the error above was before it.
      const run = await build(bundler, warned)
      expect(run.status, run.text).toBe(0)
      expect(shown(run.text, 'warning'), run.text).toEqual(['BENZENE_OPENAPI_VALUE src/dup/w.spec.json:2:14'])
    },
    300_000,
  )

  it.each(BUNDLERS.filter((b) => b !== 'rollup'))(
    '%s: each diagnostic once',
    async (bundler) => {
      // Was a defect (fixed): BENZENE_REF_MISSING at 16:17 was printed twice (once per module) in Vite, Rolldown, esbuild,
      // webpack and Rspack; docs/getting-started.md says each diagnostic is printed once.
      const run = await build(bundler, both)
      expect(run.status).not.toBe(0)
      expect(shown(run.text, 'error')).toEqual(['BENZENE_REF_MISSING src/dup/r.spec.json:16:17'])
    },
    300_000,
  )
})

describe('two contracts of one NATS bundle', () => {
  // Two documents of one NATS bundle, each reaching a pattern (a backreference: budgeted) in one
  // locked file: the warning is the bundle's, reported by both compiles.
  const bundle = join(src, 'bundle')
  for (const part of ['orders', 'fulfilment', 'native']) cpSync(join(repo, 'examples/nats-orders', part), join(bundle, part), { recursive: true })
  mkdirSync(join(bundle, 'shared'))
  writeFileSync(join(bundle, 'shared/sku.json'), '{ "definitions": { "Sku": { "type": "string", "pattern": "^(.*)\\\\1(?<=x)y$" } } }\n')
  for (const [doc, line] of [
    ['orders/asyncapi.yaml', 'sku: { type: string }\n        quantity'],
    ['fulfilment/asyncapi.yaml', 'sku: { type: string }\n'],
  ] as const) {
    const path = join(bundle, doc)
    const text = readFileSync(path, 'utf8')
    expect(text).toContain(line)
    writeFileSync(path, text.replace(line, line.replace('{ type: string }', "{ $ref: '../shared/sku.json#/definitions/Sku' }")))
  }
  // The lock and the documents' own pins (fulfilment pins the orders document it links to), as
  // the example's README has them made: `contracts lock` on the bundle's folder, the new file listed.
  const lock = JSON.parse(readFileSync(join(repo, 'examples/nats-orders/bundle.lock.json'), 'utf8')) as { entries: Array<{ path: string; sha256: string }> }
  lock.entries.push({ path: 'shared/sku.json', sha256: '0'.repeat(64) })
  writeFileSync(join(bundle, 'bundle.lock.json'), JSON.stringify(lock, null, 2))
  expect(spawnSync(process.execPath, [cli, 'lock', bundle], { encoding: 'utf8' }).status).toBe(0)
  const bundleEntry = entry('bundle/orders/asyncapi.yaml', 'bundle/fulfilment/asyncapi.yaml')

  it.each(BUNDLERS)(
    '%s: a warning two contracts of one bundle report is printed once, as check prints it',
    async (bundler) => {
      // Was a defect (fixed): NATS_PATTERN_BUDGETED in the locked sku.json was printed once per contract
      // by Vite, Rolldown, esbuild, webpack and Rspack (Rollup's CLI folds repeats itself), and by
      // `contracts check` before its run printed each diagnostic once.
      const oracle = check('src/bundle/orders/asyncapi.yaml', 'src/bundle/fulfilment/asyncapi.yaml')
      expect(oracle.map(key)).toEqual(['NATS_PATTERN_BUDGETED src/bundle/shared/sku.json:1:58'])
      const run = await build(bundler, bundleEntry)
      expect(run.status, run.text).toBe(0)
      expect(shown(run.text, 'warning'), run.text).toEqual(oracle.map(key))
    },
    300_000,
  )
})

// ---------------------------------------------------------------------------------------------------
// Watch modes, in this process: valid -> invalid (A) -> another invalid (B) -> valid -> a warning ->
// A -> valid, and, with the contract left alone, edits of the importing module.

const valid = payments
const A = payments.replace('"#/components/schemas/PaymentDto"', '"#/components/schemas/PaymentDtoA"')
const B = payments.replace('"#/components/schemas/RefundPayment"', '"#/components/schemas/RefundPaymentB"')
const W = payments.replace('"openapi": "3.0.1"', '"openapi": "3.0.3"')
expect(new Set([valid, A, B, W]).size).toBe(4)
const AT_A = ['BENZENE_REF_MISSING@57:17']
const AT_B = ['BENZENE_REF_MISSING@68:17']
const AT_W = ['BENZENE_OPENAPI_VALUE@2:14']

interface Cycle {
  errors: string[]
  warnings: string[]
}
/** `CODE@line:column` of each diagnostic header in texts. */
const codes = (texts: string[]) =>
  texts.flatMap((t) => [...plain(t).matchAll(/(?:error|warning) ([A-Z_]+): .*\n[\s│]*at .*?:(\d+:\d+)/g)].map((m) => `${m[1]}@${m[2]}`))

interface Watcher {
  cycles: Cycle[]
  texts: string[]
  /** When each cycle's build began (performance.now()): an edit waits for a build begun after its write. */
  starts: number[]
  close(): Promise<void>
}

async function startWatch(bundler: Exclude<Bundler, 'vite'>, dir: string): Promise<Watcher> {
  const entryFile = join(dir, 'src/main.js')
  const cycles: Cycle[] = []
  const texts: string[] = []
  const starts: number[] = []
  let started = 0
  if (bundler === 'rollup' || bundler === 'rolldown') {
    const { watch } = (await import(bundler)) as typeof import('rollup')
    const { default: contracts } = await import(`unplugin-contracts/${bundler}`)
    let errors: string[] = []
    let warnings: string[] = []
    const w = watch({
      input: entryFile,
      plugins: [contracts()],
      output: { file: join(dir, 'out/main.js') },
      onwarn: (warning: { message: string }) => warnings.push(warning.message),
      ...(bundler === 'rolldown' ? { onLog: (level: string, log: { message: string }) => level === 'warn' && warnings.push(log.message) } : {}),
      watch: { buildDelay: 50 },
    } as never)
    w.on('event', async (e: { code: string; error?: Error; result?: { close(): Promise<void> } }) => {
      if (e.code === 'START') {
        started = performance.now()
        errors = []
        warnings = []
      }
      if (e.code === 'ERROR') errors.push(e.error!.message)
      await e.result?.close()
      if (e.code === 'END' || e.code === 'ERROR') {
        starts.push(started)
        cycles.push({ errors: codes(errors), warnings: codes(warnings) })
        texts.push([...errors, ...warnings].join('\n'))
      }
    })
    return { cycles, texts, starts, close: async () => void (await w.close()) }
  }
  if (bundler === 'webpack' || bundler === 'rspack') {
    const make = bundler === 'webpack' ? (await import('webpack')).default : (await import('@rspack/core')).rspack
    const { default: contracts } = await import(`unplugin-contracts/${bundler}`)
    const compiler = (make as (o: unknown) => any)({
      mode: 'development',
      context: dir,
      entry: './src/main.js',
      output: { path: join(dir, 'out') },
      plugins: [contracts()],
    })
    compiler.hooks.watchRun.tap('probe', () => void (started = performance.now()))
    const watching = compiler.watch({ aggregateTimeout: 50 }, (_error: unknown, stats: { toString(o: unknown): string }) => {
      const text = stats.toString({ colors: false, all: false, errors: true, warnings: true })
      starts.push(started)
      texts.push(text)
      cycles.push({ errors: codes(text.split(/^ERROR in /m).slice(1)), warnings: codes(text.split(/^WARNING in /m).slice(1)) })
    })
    return { cycles, texts, starts, close: () => new Promise((r) => watching.close(r)) }
  }
  const { context } = await import('esbuild')
  const { default: contracts } = await import('unplugin-contracts/esbuild')
  const ctx = await context({
    entryPoints: [entryFile],
    bundle: true,
    format: 'esm',
    outdir: join(dir, 'out'),
    logLevel: 'silent',
    plugins: [
      contracts(),
      {
        name: 'probe',
        setup(b) {
          b.onStart(() => void (started = performance.now()))
          b.onEnd((r) => {
            starts.push(started)
            texts.push([...r.errors, ...r.warnings].map((m) => m.text).join('\n'))
            cycles.push({ errors: codes(r.errors.map((m) => m.text)), warnings: codes(r.warnings.map((m) => m.text)) })
          })
        },
      },
    ],
  })
  await ctx.watch()
  return { cycles, texts, starts, close: () => ctx.dispose() }
}

describe.each(['rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as const)('%s watch mode', (bundler) => {
  let dir: string
  let watcher: Watcher
  let saves = 0
  const contract = () => join(dir, 'src/p.spec.json')
  // The app imports a DASP selection too, whose definition a later test deletes and makes again.
  const mainText = (n: number) =>
    `import { capture } from './p.spec.json'\nimport { selectionRequest } from './counter.dasp.json'\nconsole.log(capture.topic, selectionRequest, ${n})\n`
  const definition = () => join(dir, 'src/extensions/proof-of-authority.dasp-ext.json')

  /** Writes a file with an mtime of its own and waits for the build it starts (a quiet moment after it, then the last cycle). */
  async function edit(file: string, text: string | undefined, timeoutMs = 60_000): Promise<Cycle> {
    await new Promise((r) => setTimeout(r, 300))
    // A build that began before the write (webpack's watch may run one more after the last, late on
    // a busy machine) shows the file as it was: wait for one begun after it.
    const wrote = performance.now()
    if (text === undefined) rmSync(file)
    else {
      writeFileSync(file, text)
      const at = Date.now() / 1000 + ++saves
      utimesSync(file, at, at)
    }
    await until(
      `${bundler} rebuilds after ${text === undefined ? 'deleting' : 'writing'} ${relative(dir, file)}`,
      () => (watcher.starts.some((t) => t > wrote) ? true : undefined),
      timeoutMs,
      25,
    )
    await new Promise((r) => setTimeout(r, 500))
    return watcher.cycles.at(-1)!
  }

  beforeAll(async () => {
    dir = freshDir(join(app, `watch-${bundler}`))
    mkdirSync(join(dir, 'src'))
    writeFileSync(contract(), valid)
    cpSync(join(repo, 'fixtures/dasp/counter.dasp.json'), join(dir, 'src/counter.dasp.json'))
    cpSync(join(repo, 'fixtures/dasp/extensions'), join(dir, 'src/extensions'), { recursive: true })
    cpSync(join(repo, 'fixtures/dasp/pins'), join(dir, 'src/pins'), { recursive: true })
    writeFileSync(join(dir, 'src/main.js'), mainText(0))
    watcher = await startWatch(bundler, dir)
    await until(`${bundler}'s first build`, () => (watcher.cycles.length > 0 ? true : undefined), 60_000, 25)
  }, 120_000)
  afterAll(async () => {
    await watcher?.close()
  })

  it('an invalid edit shows its error once; the next edits replace it; a valid edit recovers; a warning is printed once', async () => {
    // Holds (pinned).
    expect(watcher.cycles.at(-1)).toEqual({ errors: [], warnings: [] })
    expect(await edit(contract(), A)).toEqual({ errors: AT_A, warnings: [] })
    expect(await edit(contract(), B)).toEqual({ errors: AT_B, warnings: [] })
    expect(await edit(contract(), valid)).toEqual({ errors: [], warnings: [] })
    expect(await edit(contract(), W)).toEqual({ errors: [], warnings: AT_W })
    expect(await edit(contract(), A)).toEqual({ errors: AT_A, warnings: [] })
    expect(await edit(contract(), valid)).toEqual({ errors: [], warnings: [] })
  }, 180_000)

  it('an edit of the importer alone keeps the contract’s warning or error, once, and no stale one after the fix', async () => {
    // Holds (pinned): an unchanged module keeps its problems across rebuilds (webpack and Rspack replay them under the contract's path).
    const main = join(dir, 'src/main.js')
    expect(await edit(contract(), W)).toEqual({ errors: [], warnings: AT_W })
    expect(await edit(main, mainText(1))).toEqual({ errors: [], warnings: AT_W })
    expect(await edit(contract(), A)).toEqual({ errors: AT_A, warnings: [] })
    expect(await edit(main, mainText(2))).toEqual({ errors: AT_A, warnings: [] })
    expect(await edit(contract(), valid)).toEqual({ errors: [], warnings: [] })
    expect(await edit(main, mainText(3))).toEqual({ errors: [], warnings: [] })
    for (const text of watcher.texts) expect(INTERNALS.test(text), text).toBe(false)
    if (bundler === 'webpack' || bundler === 'rspack')
      for (const text of watcher.texts.filter((t) => /^(ERROR|WARNING) in/m.test(t))) expect(text, text).toMatch(/^(ERROR|WARNING) in \.\/src\/p\.spec\.json$/m)
  }, 180_000)

  it('a definition the selection names, deleted (an error) and made again (recovered)', async () => {
    const text = readFileSync(definition(), 'utf8')
    expect(await edit(definition(), text.replace('{', '{ "bogus": 1,'))).toEqual({ errors: ['DASP_DEFINITION_SHAPE@1:12'], warnings: [] })
    expect(await edit(definition(), text)).toEqual({ errors: [], warnings: [] })
    expect(await edit(definition(), undefined)).toEqual({ errors: ['DASP_DEFINITION_SOURCE@32:5'], warnings: [] })
    // Holds (pinned) in Rollup, Rolldown, webpack and Rspack (docs/getting-started.md names them).
    // Was a defect (fixed) in esbuild: nothing rebuilt when the definition was made again, and the error
    // stayed until another watched file changed. The plugin watched a path the compile found absent in
    // the other four (context.ts watchAbsent), not in esbuild, whose watchFiles sees a listed file being
    // made (an onLoad returning a path that is not there as a watch file rebuilds when it is created).
    expect(await edit(definition(), text, 20_000)).toEqual({ errors: [], warnings: [] })
  }, 180_000)
})

// ---------------------------------------------------------------------------------------------------
// The Vite dev server on loopback: the module a page fetches and the HMR socket a page holds.

describe('Vite dev server', () => {
  const dir = join(app, 'vite-dev')
  const contract = join(dir, 'p.spec.json')
  let server: import('vite').ViteDevServer
  let base: string
  let socket: WebSocket
  const messages: Array<{
    type: string
    err?: { message: string; frame?: string; stack?: string; id?: string; loc?: { file: string; line: number; column: number } }
  }> = []
  let saves = 0
  /** What the dev server printed (its terminal), each message whole. */
  const terminal: string[] = []

  const moduleUrl = async () => /from\s+"([^"]*p\.spec\.json[^"]*)"/.exec(await (await fetch(`${base}/main.js`)).text())![1]!
  const fetchModule = async () => {
    const r = await fetch(base + (await moduleUrl()))
    return { status: r.status, text: await r.text() }
  }
  /** Saves, then waits until the served module answers `status` with text holding `marker`. */
  async function save(text: string, status: number, marker: string) {
    await new Promise((r) => setTimeout(r, 200))
    writeFileSync(contract, text)
    const at = Date.now() / 1000 + ++saves
    utimesSync(contract, at, at)
    return until(
      `the module answering ${status} with ${marker}`,
      async () => {
        // A request on a kept-alive connection the server is closing fails ("fetch failed", the
        // socket's other side closed): seen once on a loaded machine; it says nothing of the module,
        // so the poll asks again.
        const r = await fetchModule().catch((error: unknown) => {
          if (error instanceof TypeError && error.message === 'fetch failed') return undefined
          throw error
        })
        return r !== undefined && r.status === status && r.text.includes(marker) ? r : undefined
      },
      60_000,
      100,
    )
  }
  /** What a page that connects now gets before Vite's `connected`. */
  async function latePage(): Promise<string[]> {
    const got = await connectedMessages(server)
    // What came before `connected`, and it: a reload broadcast for an earlier save may reach the new
    // socket between `connected` and its close, which says nothing of a replayed error.
    const types = got.map((m) => m.type)
    return types.slice(0, types.indexOf('connected') + 1)
  }

  beforeAll(async () => {
    freshDir(dir)
    writeFileSync(contract, valid)
    writeFileSync(join(dir, 'index.html'), '<script type="module" src="/main.js"></script>\n')
    writeFileSync(join(dir, 'main.js'), "import { capture } from './p.spec.json'\nconsole.log(capture.topic)\n")
    const { createServer, createLogger } = await import('vite')
    const { default: contracts } = await import('unplugin-contracts/vite')
    const customLogger = createLogger('info')
    for (const level of ['info', 'warn', 'warnOnce', 'error'] as const) customLogger[level] = (message: string) => void terminal.push(`[${level}] ${message}`)
    server = await createServer({ root: dir, configFile: false, customLogger, plugins: [contracts()], server: { host: '127.0.0.1', port: 0 } })
    await server.listen()
    const port = (server.httpServer!.address() as { port: number }).port
    base = `http://127.0.0.1:${port}`
    socket = hmrSocket(server)
    socket.on('message', (data) => messages.push(JSON.parse(String(data))))
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    expect((await fetchModule()).status).toBe(200)
  }, 120_000)
  afterAll(async () => {
    socket?.close()
    await server?.close()
  })

  it('an invalid edit: 500 with the diagnostic, the error over HMR (no stack, no virtual id), and recovery', async () => {
    messages.length = 0
    const failed = await save(A, 500, 'BENZENE_REF_MISSING')
    expect(failed.text).toContain(`${contract}:57:17`)
    const error = await until('the error over HMR', () => messages.find((m) => m.type === 'error'), 30_000)
    // Holds (pinned): the headline and the first header in the message, the frame after it, `loc` the first diagnostic's.
    expect(error.err!.message).toMatch(
      /^Contract .* is invalid \(1 error\):\n\nerror BENZENE_REF_MISSING: .*\n {2}at .*:57:17 \(\/requests\/2\/response\/\$ref\)$/,
    )
    expect(error.err!.frame).toMatch(/^ {2}55 \|[\s\S]*> 57 \|[\s\S]*\^/)
    expect(error.err!.stack).toBe('')
    expect(error.err!.loc).toEqual({ file: contract, line: 57, column: 17 })
    expect(INTERNALS.test(JSON.stringify(error.err))).toBe(false)
    expect(await save(valid, 200, 'export const contractHash')).toBeDefined()
    // Recovered: a page that connects now is shown no stale error.
    expect(await latePage()).toEqual(['connected'])
  }, 120_000)

  it('hostile document text is escaped in the HMR payload and the 500 page; 5,000 errors stay a few KB', async () => {
    const doc = JSON.parse(payments) as { requests: Array<Record<string, unknown>> }
    doc.requests[0]!.response = { $ref: '#/components/schemas/' + HOSTILE }
    messages.length = 0
    const failed = await save(JSON.stringify(doc, null, 2), 500, 'FAKE_CODE')
    const error = await until('the error over HMR', () => messages.find((m) => m.type === 'error'), 30_000)
    // Holds (pinned): in the payload, the page and the dev server's terminal.
    for (const text of [error.err!.message, error.err!.frame ?? '', failed.text, ...terminal]) expect(RAW.test(text), text).toBe(false)
    expect(terminal.some((t) => FORGED.test(t))).toBe(false)
    messages.length = 0
    const many = await save(readFileSync(join(src, 'many/five-thousand.spec.json'), 'utf8'), 500, 'Missing0')
    const manyError = await until('the error over HMR', () => messages.find((m) => m.type === 'error'), 30_000)
    expect(JSON.stringify(manyError.err).length).toBeLessThan(10_000)
    expect(manyError.err!.frame).toMatch(/\.\.\. and 91 more/)
    expect(many.text.length).toBeLessThan(20_000)
    await save(valid, 200, 'export const contractHash')
    expect(await latePage()).toEqual(['connected'])
  }, 120_000)

  it('one invalid save, as a reloaded page requests it: Vite prints its error twice (observed), the plugin its warning once', async () => {
    // What a reloaded page requests (seen the same in Chromium): main.js, whose contract import Vite
    // transforms ahead ("Pre-transform error"), then the contract's module ("Internal server error"),
    // which loads it again (a failed transform is not kept). The two error lines are Vite's own way
    // with any failing module (docs/getting-started.md promises "once" for builds only). Was a defect
    // (fixed): the second load printed the contract's warning again.
    await save(valid, 200, 'export const contractHash')
    await new Promise((r) => setTimeout(r, 500))
    terminal.length = 0
    await save(W.replace('"#/components/schemas/PaymentDto"', '"#/components/schemas/PaymentDtoA"'), 500, 'PaymentDtoA')
    await new Promise((r) => setTimeout(r, 500))
    // Colours stripped: Vite colours its logger's text where it finds colour support (the CI variable).
    const errors = terminal.map(plain).filter((t) => t.startsWith('[error]') && t.includes('error BENZENE_REF_MISSING'))
    const warnings = terminal.map(plain).filter((t) => t.startsWith('[warn]') && t.includes('warning BENZENE_OPENAPI_VALUE'))
    expect(
      errors.map((t) => /^\[error\] ((?:Pre-transform|Internal server) error):/.exec(t)?.[1]),
      terminal.join('\n'),
    ).toEqual(['Pre-transform error', 'Internal server error'])
    expect(warnings, terminal.join('\n')).toHaveLength(1)
    // The next save that keeps the warning prints it again, once: a change is a new compile to report.
    terminal.length = 0
    await save(W, 200, 'export const contractHash')
    await new Promise((r) => setTimeout(r, 500))
    expect(
      terminal.map(plain).filter((t) => t.startsWith('[warn]') && t.includes('warning BENZENE_OPENAPI_VALUE')),
      terminal.join('\n'),
    ).toHaveLength(1)
    await save(valid, 200, 'export const contractHash')
  }, 120_000)
})
