/**
 * Every fenced code block in README.md, docs/ and the examples' READMEs is run, checked against
 * what it quotes, or is plain text. How a block says what it is (words after the language in its
 * opening fence, which Markdown renderers ignore) is listed in docs/architecture.md ("Docs that
 * run"). A TS/JS block with no such word fails this test: nothing code-like is shown unchecked.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ContractCompiler, toMermaid, topology } from 'unplugin-contracts'
import { COMMANDS, commandFlags } from '../src/cli/help.js'
import { contracts, tsc } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/docs-snippets')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })

interface Block {
  readonly doc: string
  readonly line: number
  readonly lang: string
  /** `key=value` words of the fence; a word with a dot and no `=` is the block's file name. */
  readonly attrs: Readonly<Record<string, string>>
  readonly file?: string
  readonly sketch: boolean
  readonly text: string
}

const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(root, 'examples'))
    .filter((d) => existsSync(join(root, 'examples', d, 'README.md')))
    .map((d) => `examples/${d}/README.md`),
]

function blocksOf(doc: string): Block[] {
  const lines = readFileSync(join(root, doc), 'utf8').split('\n')
  const found: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]!)
    if (!open) continue
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'))
    if (end === -1) throw new Error(`${doc}:${i + 1}: a fence that is never closed`)
    const words = open[2]!.trim().split(/\s+/).filter(Boolean)
    const attrs = Object.fromEntries(words.filter((w) => w.includes('=')).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]))
    const file = words.find((w) => !w.includes('=') && w.includes('.'))
    found.push({ doc, line: i + 1, lang: open[1]!, attrs, file, sketch: words.includes('sketch'), text: lines.slice(i + 1, end).join('\n') + '\n' })
    i = end
  }
  return found
}

const blocks = docs.flatMap(blocksOf)
const where = (b: Block) => `${b.doc}:${b.line}`
const BUNDLER_CONFIG = /^(vite\.config|rollup\.config|rolldown\.config|webpack\.config|rspack\.config)\.(m?js|ts)$|^build\.mjs$/
const CONTRACT = /\.(spec\.json|asyncapi\.ya?ml|dasp\.json)$/

/** The compiler options of the snippets' program (the tsconfig docs/getting-started.md shows has the same). */
const SNIPPET_OPTIONS = {
  strict: true,
  noEmit: true,
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'bundler',
  allowArbitraryExtensions: true,
  types: ['node'],
  noUnusedLocals: false,
}

/** The Benzene example as it stands, copied with a tsconfig.json the docs show, its sidecar written as `contracts types` writes it. */
function exampleWithTsconfig(b: Block): string {
  const dir = join(work, `tsconfig-${b.line}`)
  cpSync(join(root, 'examples/payments-client'), dir, { recursive: true, filter: (src) => !/[\\/](dist|dist-web)$/.test(src) })
  writeFileSync(join(dir, 'tsconfig.json'), b.text)
  expect(contracts(['types', join(dir, 'payments.spec.json')]).status).toBe(0)
  return dir
}

/**
 * A shown tsconfig.json with the snippets' compiler options (noUnusedLocals: false is the default)
 * and an `include` alone: its files, from its folder, can be checked in the snippets' program.
 */
function sameProgram(b: Block): string[] | undefined {
  const { compilerOptions, include, ...rest } = JSON.parse(b.text.replace(/^\s*\/\/.*$/gm, '')) as {
    compilerOptions: Record<string, unknown>
    include?: string[]
  }
  const { noUnusedLocals: _, ...ours } = SNIPPET_OPTIONS
  const same = (a: object, b: object) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort())
  return Object.keys(rest).length === 0 && include !== undefined && same(compilerOptions, ours) ? include : undefined
}

interface SnippetsProgram {
  readonly status: number
  /** Each diagnostic (its continuation lines with it), its file relative to the work folder. */
  readonly diagnostics: string[]
  readonly output: string
  readonly names: Map<string, Block>
  /** The shown tsconfig blocks checked in this program, by the folder of their copy of the example. */
  readonly shown: Map<Block, string>
}

let snippetsProgram: SnippetsProgram | undefined

/**
 * One TypeScript program over the snippets' folders, and over the copies of the Benzene example
 * whose shown tsconfig.json has the same options: @types/node and the package's declarations are
 * read and checked once, not once per folder or per tsconfig shown. Made once, for both tests.
 */
function checkSnippets(): SnippetsProgram {
  if (snippetsProgram) return snippetsProgram
  const shown = new Map<Block, string>()
  const shownIncludes: string[] = []
  for (const b of blocks.filter((b) => b.file === 'tsconfig.json')) {
    const include = sameProgram(b)
    if (!include) continue
    const dir = exampleWithTsconfig(b)
    shown.set(b, relative(work, dir))
    // Its `include`, from its own folder.
    shownIncludes.push(...include.map((folder) => relative(work, join(dir, folder))))
  }
  const groups = new Map<string, Block[]>()
  for (const b of blocks.filter((b) => b.attrs.in)) groups.set(b.attrs.in!, [...(groups.get(b.attrs.in!) ?? []), b])
  expect(groups.size).toBeGreaterThan(3)
  // One folder per `in=` folder, and one TypeScript program over all of them: @types/node and the
  // package's declarations are read and checked once, not once per folder (each snippet still
  // resolves its imports from its own folder, and the package through that folder's node_modules).
  const names = new Map<string, Block>()
  const files: string[] = []
  const typesArgs: string[] = []
  for (const [folder, group] of groups) {
    const dir = join(work, folder.replace(/[^A-Za-z0-9]+/g, '-'))
    cpSync(join(root, folder), dir, {
      recursive: true,
      filter: (src) => !/[\\/](dist|dist-web|node_modules)$|\.d\.(json|yaml)\.ts$|-queries\.d\.ts$/.test(src),
    })
    // The package as an app installs it: type references (`/// <reference types>`) resolve through node_modules.
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    symlinkSync(root, join(dir, 'node_modules/unplugin-contracts'), 'dir')
    for (const b of group) {
      const name = `snippet-${b.doc.replace(/[^A-Za-z0-9]+/g, '-')}-${b.line}.ts`
      names.set(name, b)
      writeFileSync(join(dir, name), b.text)
      files.push(relative(work, join(dir, name)))
    }
    // The sidecars each snippet's contract imports need, written below as `contracts types` writes them.
    const imports = new Set(group.flatMap((b) => [...b.text.matchAll(/from '(\.[^']+)'/g)].map((m) => m[1]!)))
    const compiler = new ContractCompiler()
    const contractArgs = [...imports].filter((s) => compiler.formatOf(s.split('?')[0]!) !== undefined).map((s) => join(dir, s))
    typesArgs.push(...contractArgs)
    files.push(...new Set(contractArgs.filter((a) => a.includes('?')).map((a) => relative(work, `${a.split('?')[0]}-queries.d.ts`))))
  }
  // One `contracts types` for every folder's contracts (it compiles each argument on its own, and
  // writes each sidecar beside its contract): the CLI is started once, not once per folder.
  if (typesArgs.length) {
    const types = contracts(['types', ...typesArgs])
    expect([types.status, types.stderr], typesArgs.join('\n')).toEqual([0, expect.anything()])
  }
  writeFileSync(
    join(work, 'tsconfig.snippets.json'),
    JSON.stringify({
      compilerOptions: SNIPPET_OPTIONS,
      files,
      ...(shownIncludes.length ? { include: shownIncludes } : {}),
    }),
  )
  const r = tsc(['-p', 'tsconfig.snippets.json'], work)
  const diagnostics: string[] = []
  for (const line of r.output.split('\n'))
    if (/^\s/.test(line) && diagnostics.length) diagnostics[diagnostics.length - 1] += `\n${line}`
    else if (line !== '') diagnostics.push(line)
  snippetsProgram = { status: r.status, diagnostics, output: r.output, names, shown }
  return snippetsProgram
}

describe('docs snippets', () => {
  it('every block is of a kind this test runs or checks (or plain text)', () => {
    expect(blocks.length).toBeGreaterThan(30)
    const unchecked = blocks.filter(
      (b) =>
        !(
          b.lang === '' ||
          b.lang === 'text' ||
          b.lang === 'sh' ||
          b.attrs.in ||
          b.attrs.excerpt ||
          b.attrs.generated ||
          (b.file && (BUNDLER_CONFIG.test(b.file) || CONTRACT.test(b.file) || b.file === 'tsconfig.json' || b.file === '.gitignore')) ||
          // Rust needs async-nats and a server to run; it is the one language shown as a sketch.
          (b.sketch && b.lang === 'rust')
        ),
    )
    expect(unchecked.map((b) => `${where(b)} (${b.lang} ${JSON.stringify(b.attrs)})`)).toEqual([])
  })

  it('TS and JS snippets type-check against the built package and the sidecars of the contracts they import', () => {
    const { status, diagnostics, output, names, shown } = checkSnippets()
    const theirs = [...shown.values()].map((dir) => `${dir}/`)
    const own = diagnostics.filter((d) => !theirs.some((dir) => d.startsWith(dir)))
    // A failed program without a diagnostic of its own files (a config error) fails here whole.
    const failures =
      status === 0 || (own.length === 0 && diagnostics.length > 0)
        ? ''
        : (own.length ? own.join('\n') : output).replace(/snippet-[A-Za-z0-9-]+?-(\d+)\.ts\((\d+),(\d+)\)/g, (m) => {
            const name = m.slice(0, m.indexOf('('))
            const b = names.get(name)!
            const [, row, col] = /\((\d+),(\d+)\)/.exec(m)!
            return `${b.doc}:${b.line + Number(row)}:${col}`
          })
    expect(failures).toBe('')
  }, 180_000)

  // webpack and Rspack warn of a config without `mode`: a config shown builds without a warning.
  // The getting-started guide's configs are built by test/packed-apps.test.ts, each in a new app on the
  // packed package (with top-level await, warnings refused as here): the other docs' configs here.
  it('bundler configs build a real app (with top-level await) and the bundle runs', () => {
    const all = blocks.filter((b) => b.file && BUNDLER_CONFIG.test(b.file))
    expect(new Set(all.map((b) => b.file!.split('.')[0])).size).toBe(6)
    const configs = all.filter((b) => b.doc !== 'docs/getting-started.md')
    expect(configs.length).toBeGreaterThan(0)
    for (const b of configs) {
      const dir = join(work, `bundler-${b.doc.replace(/[^A-Za-z0-9]+/g, '-')}-${b.line}`)
      mkdirSync(join(dir, 'src'), { recursive: true })
      cpSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), join(dir, 'src/payments.spec.json'))
      writeFileSync(
        join(dir, 'src/main.js'),
        [
          "import { capture } from './payments.spec.json'",
          "import { createLocalSender } from 'unplugin-contracts/runtime'",
          "const sender = createLocalSender({ 'payments:capture': (request) => ({ OrderId: request.OrderId, Amount: request.Amount, PaymentId: 'pay-1' }) })",
          "const result = await capture.send(sender, { OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Method: 'Card' })",
          'console.log(`${capture.topic} ${result.status}`)',
          '',
        ].join('\n'),
      )
      writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/src/main.js"></script>\n')
      writeFileSync(join(dir, b.file!), b.text)
      const bin = (name: string) => join(root, 'node_modules/.bin', name)
      const kind = b.file!.split('.')[0]!
      const run = (command: string, args: string[]) => spawnSync(command, args, { cwd: dir, encoding: 'utf8' })
      const webpackLike = (pkg: string, get: string) =>
        run(process.execPath, [
          '--input-type=module',
          '-e',
          `import * as m from '${pkg}'; const config = (await import('./${b.file}')).default; const compiler = (${get})(config); compiler.run((e, s) => { if (e || s.hasErrors() || s.hasWarnings()) { console.error(e ?? s.toString('errors-warnings')); process.exit(1) } compiler.close(() => {}) })`,
        ])
      const built =
        kind === 'vite'
          ? run(bin('vite'), ['build', '--config', b.file!, '--logLevel', 'error'])
          : kind === 'rollup'
            ? run(bin('rollup'), ['-c', b.file!, '--silent'])
            : kind === 'rolldown'
              ? run(bin('rolldown'), ['-c', b.file!])
              : kind === 'build'
                ? run(process.execPath, [b.file!])
                : kind === 'webpack'
                  ? webpackLike('webpack', 'm.default')
                  : webpackLike('@rspack/core', 'm.rspack')
      expect([where(b), built.status, built.stderr], built.stdout).toEqual([where(b), 0, expect.any(String)])
      const outputs = readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.m?js$/.test(f))
      const bundle = outputs.find((f) => readFileSync(join(dir, 'dist', f), 'utf8').includes('payments:capture'))
      expect(bundle, `${where(b)}: no bundle in dist/ (${outputs.join(', ')})`).toBeDefined()
      // Vite builds for the browser: its module-preload polyfill looks at `document` first.
      writeFileSync(join(dir, 'browser.mjs'), 'globalThis.document = { createElement: () => ({ relList: { supports: () => true } }) }\n')
      const ran = run(process.execPath, [...(kind === 'vite' ? ['--import', './browser.mjs'] : []), join(dir, 'dist', bundle!)])
      expect([where(b), ran.stdout.trim(), ran.stderr]).toEqual([where(b), 'payments:capture ok', ''])
    }
  }, 180_000)

  it('the tsconfig shown type-checks the Benzene example as it stands', () => {
    const shown = blocks.filter((b) => b.file === 'tsconfig.json')
    expect(shown.length).toBeGreaterThan(0)
    const program = checkSnippets()
    for (const b of shown) {
      const inProgram = program.shown.get(b)
      if (inProgram !== undefined) {
        // Checked in the snippets' program, with the same options: its diagnostics are those under its folder.
        const own = program.diagnostics.filter((d) => d.startsWith(`${inProgram}/`))
        const status = own.length > 0 || (program.status !== 0 && program.diagnostics.length === 0) ? 1 : 0
        expect([where(b), status, own.join('\n')]).toEqual([where(b), 0, ''])
        continue
      }
      const dir = exampleWithTsconfig(b)
      const r = tsc(['-p', 'tsconfig.json'], dir)
      expect([where(b), r.status, r.output]).toEqual([where(b), 0, ''])
    }
  })

  it('.gitignore advice covers every file the plugin writes beside a contract, and the package contracts’ declarations', async () => {
    const advice = blocks.filter((b) => b.file === '.gitignore')
    expect(advice.length).toBeGreaterThan(0)
    const written = [
      'payments.spec.d.json.ts',
      'counter.dasp.d.json.ts',
      'asyncapi.d.yaml.ts',
      'payments.spec.json-queries.d.ts',
      'asyncapi.yaml-queries.d.ts',
      'contracts-packages.d.ts',
    ]
    for (const b of advice) {
      const patterns = b.text
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('#'))
        .map((p) => new RegExp(`^${p.trim().replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`))
      for (const name of written)
        expect(
          patterns.some((p) => p.test(name)),
          `${where(b)}: ${name}`,
        ).toBe(true)
    }
  })

  it('contracts shown whole pass `contracts check`; excerpts are the file they quote, which passes', () => {
    for (const b of blocks.filter((b) => b.file && CONTRACT.test(b.file))) {
      const file = join(work, `contract-${b.line}`, b.file!)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, b.text)
      const r = contracts(['check', file])
      expect([where(b), r.status, r.stderr]).toEqual([where(b), 0, expect.stringContaining('no errors')])
    }
    const excerpts = blocks.filter((b) => b.attrs.excerpt)
    expect(excerpts.length).toBeGreaterThan(0)
    for (const b of excerpts) {
      const lines = readFileSync(join(root, b.attrs.excerpt!), 'utf8').split('\n')
      let at = 0
      for (const line of b.text.trimEnd().split('\n')) {
        if (line.trim() === '# ...') continue
        const found = lines.indexOf(line, at)
        expect(found, `${where(b)}: ${JSON.stringify(line)} is not in ${b.attrs.excerpt} (after line ${at})`).toBeGreaterThanOrEqual(at)
        at = found + 1
      }
      const r = contracts(['check', join(root, b.attrs.excerpt!)])
      expect([where(b), r.status]).toEqual([where(b), 0])
    }
  })

  it('generated output shown is what the generator writes', async () => {
    const generated = blocks.filter((b) => b.attrs.generated)
    expect(generated.length).toBeGreaterThan(0)
    for (const b of generated) {
      const source = join(root, b.attrs.generated!)
      let output: string
      if (b.lang === 'mermaid') {
        const result = await topology([source])
        output = toMermaid(result.topology!)
      } else {
        const result = await new ContractCompiler().compile(source)
        output = result.dts!
      }
      const lines = output.split('\n').map((l) => l.trim())
      for (const line of b.text.trimEnd().split('\n')) expect(lines, `${where(b)}: ${line}`).toContain(line.trim())
    }
  })

  it('shell lines name scripts, files, commands and flags that exist; CLI synopses are the help pages', () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>
    const usages = new Set([...Object.values(COMMANDS).flatMap((c) => c.usage.map((u) => `contracts ${u}`)), 'contracts --version', 'contracts help <command>'])
    const normal = (s: string) => s.replace(/\s+/g, ' ').trim()
    const shell = blocks.filter((b) => b.lang === 'sh')
    expect(shell.length).toBeGreaterThan(5)
    for (const b of shell)
      for (const raw of b.text.split('\n')) {
        const line = normal(raw.replace(/\s#.*$/, '').replace(/^#.*$/, ''))
        if (!line) continue
        for (const [, script] of line.matchAll(/npm run ([\w:-]+)/g)) expect(scripts, `${where(b)}: npm run ${script}`).toHaveProperty([script!])
        for (const [, config] of line.matchAll(/--config (\S+)/g)) expect(existsSync(join(root, config!)), `${where(b)}: ${config}`).toBe(true)
        if (!line.startsWith('contracts ') || line === 'contracts --version') continue
        if (line.includes('<')) {
          expect([...usages].map(normal), `${where(b)}: ${line}`).toContain(line)
          continue
        }
        const [, command, ...args] = line.split(' ')
        expect(Object.keys(COMMANDS), `${where(b)}: ${line}`).toContain(command)
        for (const flag of args.filter((a) => a.startsWith('--'))) expect(commandFlags(command!), `${where(b)}: ${line}`).toContain(flag.slice(2))
      }
  })
})
