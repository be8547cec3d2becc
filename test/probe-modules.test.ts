/**
 * Outside probe of the generated modules as bundlers treat them: tree-shaking per bundler in
 * production mode with minification, side effects (type-only and bare imports, evaluation in two
 * realms), determinism across folders, processes, working directories and compile orders, the
 * import specifiers and code-generation primitives in every module, and deep freezing.
 *
 * The oracle is written from the documents (docs/getting-started.md, docs/benzene.md, docs/nats.md,
 * docs/dasp.md, docs/performance.md) and from the full modules as Node imports them: every topic's
 * name and hash, every channel's id and address, every payload's own literal.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, homedir, tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import vm from 'node:vm'
import { parse as parseJs } from 'acorn'
import { init as initLexer, parse as lexImports } from 'es-module-lexer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from 'unplugin-contracts'
import { benzeneDocument, natsDocument } from '../bench/generate.js'
import { bundlers as helperBundlers, freshDir } from './helpers/bundlers.js'
import { copyDaspSelection } from './helpers/dasp-selection.js'

const root = join(import.meta.dirname, '..')
const base = join(import.meta.dirname, '.tmp/probe-modules')

// Escapes (a rejection or exception no test awaited) fail the file in afterAll.
const escapes: unknown[] = []
const onRejection = (reason: unknown) => void escapes.push(reason)
const onException = (error: unknown) => void escapes.push(error)
process.on('unhandledRejection', onRejection)
process.on('uncaughtException', onException)

let dir = ''
/** The full generated modules, as Node imports them: the oracle's source of names and hashes. */
const full: Record<string, Record<string, any>> = {}
/** The generated code of each contract (plain compile, default options). */
const codes: Record<string, string> = {}

const IMPORTED_TOPIC = 'service0:operation-7'
const IMPORTED_TOPIC_INDEX = 7
const IMPORTED_CHANNEL = 'channel3'
const IMPORTED_CHANNEL_INDEX = 3

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A string literal of exactly `text` in any quoting a minifier may choose. */
const literal = (text: string) => new RegExp(`["'\`]${escapeRe(text)}["'\`]`)
/** A stored topic hash: the digest in base64 without padding (test/module-exports.test.ts says modules store it so). */
const stored = (hash: string) =>
  Buffer.from(hash.replace(/^sha256:/, ''), 'hex')
    .toString('base64')
    .replace(/=+$/, '')

async function loadCode(code: string, name: string): Promise<Record<string, any>> {
  const file = join(dir, `${name}-${Math.random().toString(36).slice(2)}.mjs`)
  writeFileSync(file, code)
  return import(pathToFileURL(file).href)
}

async function compiled(file: string, options?: Record<string, unknown>): Promise<string> {
  const result = await compile(file, { declarations: false, ...options } as never)
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return result.code!
}

/** Runs `node -e` bounded; returns stdout parsed as JSON. */
function runNode(script: string, cwd = root): any {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    encoding: 'utf8',
    timeout: 25_000,
    maxBuffer: 256 * 1024 * 1024,
  })
  return JSON.parse(out)
}

beforeAll(async () => {
  mkdirSync(base, { recursive: true })
  dir = mkdtempSync(join(base, 'run-'))
  writeFileSync(join(dir, 'b200.spec.json'), benzeneDocument(200))
  writeFileSync(join(dir, 'n200.asyncapi.yaml'), natsDocument(200, { payloads: true }))
  copyDaspSelection(dir, 'counter.dasp.json')
  cpSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), join(dir, 'side.spec.json'))
  cpSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), join(dir, 'side.asyncapi.yaml'))
  // A payload beyond the interpreter's keywords (ajv standalone code), with a budgeted pattern.
  writeFileSync(
    join(dir, 'ajv.asyncapi.yaml'),
    readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8').replace(
      'payload: { type: object, properties: { account: { type: string } } }',
      () =>
        "payload: { type: object, propertyNames: { maxLength: 9 }, dependencies: { account: [tags] }, properties: { account: { type: string, maxLength: 3, pattern: '^(a+)+$' }, tags: { type: array, items: [{ type: string, minLength: 2 }, { type: integer }], additionalItems: false, uniqueItems: true }, x: { enum: [{ a: 1 }, [1, 2]] } } }",
    ),
  )
  for (const [key, file] of Object.entries(contractFiles)) {
    codes[key] = await compiled(join(dir, file))
    writeFileSync(join(dir, `${key}.full.mjs`), codes[key]!)
    full[key] = await import(pathToFileURL(join(dir, `${key}.full.mjs`)).href)
  }
}, 60_000)

afterAll(() => {
  process.off('unhandledRejection', onRejection)
  process.off('uncaughtException', onException)
  if (dir) rmSync(dir, { recursive: true, force: true })
  expect(escapes).toEqual([])
})

const contractFiles: Record<string, string> = {
  benzene: 'b200.spec.json',
  nats: 'n200.asyncapi.yaml',
  dasp: 'counter.dasp.json',
  sideBenzene: 'side.spec.json',
  sideNats: 'side.asyncapi.yaml',
  ajvNats: 'ajv.asyncapi.yaml',
}

// ---------------------------------------------------------------------------------------------
// Tree-shaking: one app, all three imports, per bundler in production mode with minification.
// ---------------------------------------------------------------------------------------------

/** The app's body, shared by the bundled entry and the oracle entry (which imports the full modules). */
function appBody(selectionJson: string): string {
  return `
const confirmed = JSON.parse(${JSON.stringify(selectionJson)})
export async function run() {
  const sender = createLocalSender({ ${JSON.stringify(IMPORTED_TOPIC)}: () => ({ Id: 'r', Status: 'state-0-${IMPORTED_TOPIC_INDEX}' }) })
  const good = await operation7.send(sender, { Id: 'x', Total: { Amount: 1, Currency: 'EUR' } })
  const bad = await operation7.send(sender, { Id: 'x'.repeat(40), Total: { Amount: 'lots', Currency: 'EUR' } })
  const payload = { amount: { amount: 1, currency: 'EUR' }, quantity: 2, tags: ['a'], shipping: {}, lines: [{ sku: 'abc', qty: 1 }], priority: 'low', note: 'n' }
  return {
    topic: operation7.topic,
    hash: operation7.contractHash,
    components: [...operation7.components],
    frozen: Object.isFrozen(operation7) && Object.isFrozen(channel3),
    good: { status: good.status, payload: good.payload },
    bad: { status: bad.status, errors: bad.errors },
    subject: channel3.subject.render({ region: 'eu', entityId: 'e-abcd' }),
    parsed: channel3.subject.parse('svc0.us.e-wxyz.event3'),
    address: channel3.address,
    validGood: channel3.validatePayload(payload),
    validBad: channel3.validatePayload({ quantity: 'many' }),
    exact: isExactSelection(confirmed),
    notExact: isExactSelection({ ...confirmed, dasp: 'draft-02' }),
  }
}
`
}

const appImports = (suffix: string) => `import { operation7 } from './b200.spec.json${suffix}'
import { channel3 } from './n200.asyncapi.yaml${suffix}'
import { isExactSelection } from './counter.dasp.json${suffix}'
import { createLocalSender } from 'unplugin-contracts/runtime'
`

/** Rollup's own treeshake, then terser over its output (the package has no @rollup/plugin-terser). */
async function rollupTerser(entry: string, outDir: string, options: PluginOptions = { types: false }): Promise<string> {
  const { rollup } = await import('rollup')
  const { minify } = await import('terser')
  const { default: contracts } = await import('unplugin-contracts/rollup')
  const bundle = await rollup({ input: entry, plugins: [contracts(options)], onwarn: () => {} })
  const { output } = await bundle.generate({ format: 'es' })
  await bundle.close()
  const minified = await minify(output[0].code, { module: true })
  mkdirSync(outDir, { recursive: true })
  writeFileSync(join(outDir, 'main.js'), minified.code!)
  return join(outDir, 'main.js')
}

type PluginOptions = Record<string, unknown>
const production: Record<string, (entry: string, outDir: string, options?: PluginOptions) => Promise<string>> = {
  async vite(entry, outDir, options = { types: false }) {
    const { build } = await import('vite')
    const { default: contracts } = await import('unplugin-contracts/vite')
    await build({
      configFile: false,
      logLevel: 'silent',
      mode: 'production',
      root: join(entry, '..'),
      plugins: [contracts(options)],
      build: { outDir, emptyOutDir: true, minify: true, lib: { entry, formats: ['es'], fileName: () => 'main.js' } },
    })
    return join(outDir, 'main.js')
  },
  rollup: rollupTerser,
  async rolldown(entry, outDir, options = { types: false }) {
    const { rolldown } = await import('rolldown')
    const { default: contracts } = await import('unplugin-contracts/rolldown')
    const bundle = await rolldown({ input: entry, plugins: [contracts(options)], logLevel: 'silent' })
    await bundle.write({ file: join(outDir, 'main.js'), format: 'es', minify: true })
    await bundle.close()
    return join(outDir, 'main.js')
  },
  async esbuild(entry, outDir, options = { types: false }) {
    const { build } = await import('esbuild')
    const { default: contracts } = await import('unplugin-contracts/esbuild')
    await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'neutral',
      outfile: join(outDir, 'main.js'),
      plugins: [contracts(options)],
      logLevel: 'silent',
    })
    return join(outDir, 'main.js')
  },
  webpack: (entry, outDir, options = { types: false }) => helperBundlers.webpack!(entry, outDir, options, { minify: true }),
  rspack: (entry, outDir, options = { types: false }) => helperBundlers.rspack!(entry, outDir, options, { minify: true }),
}

/** What the oracle says must not be in a bundle that imports operation7, channel3 and isExactSelection. */
function absentOracle(): Array<{ what: string; test: (code: string) => boolean }> {
  const gone: Array<{ what: string; test: (code: string) => boolean }> = []
  const has = (text: string) => (code: string) => literal(text).test(code)
  const b = full.benzene!
  for (const [topic, client] of Object.entries(b.topics as Record<string, { contractHash: string }>)) {
    if (topic === IMPORTED_TOPIC) continue
    gone.push({ what: `topic ${topic}`, test: has(topic) })
    gone.push({ what: `hash of ${topic}`, test: (code) => code.includes(client.contractHash.slice(7)) || code.includes(stored(client.contractHash)) })
  }
  for (let i = 0; i < 200; i++) if (i !== IMPORTED_TOPIC_INDEX) gone.push({ what: `Response${i} status literal`, test: has(`state-0-${i}`) })
  for (const name of Object.keys(b.events)) gone.push({ what: `event export ${name}`, test: has((b.events[name] as { topic: string }).topic) })
  gone.push({ what: 'the service contractHash', test: (code) => code.includes(String(b.contractHash).slice(7)) })
  gone.push({ what: 'messageEndpoint', test: has(String(b.messageEndpoint)) })
  const n = full.nats!
  for (const [id, channel] of Object.entries(n.channels as Record<string, { address?: string }>)) {
    if (id === IMPORTED_CHANNEL) continue
    gone.push({ what: `channel id ${id}`, test: has(id) })
    if (channel.address) gone.push({ what: `address of ${id}`, test: has(channel.address) })
  }
  // A channel's own payload literal, for the channels whose payload has a `status` member.
  for (let i = 0; i < 200; i++)
    if (i !== IMPORTED_CHANNEL_INDEX && literal(`state-${i}`).test(codes.nats!)) gone.push({ what: `payload literal state-${i}`, test: has(`state-${i}`) })
  gone.push({ what: 'the NATS document digest', test: (code) => code.includes(String(n.contract.digest)) })
  for (const id of Object.keys(n.streams ?? {})) gone.push({ what: `stream ${id}`, test: has(id) })
  gone.push({ what: 'duplicate_window (stream config)', test: (code) => code.includes('duplicate_window') })
  gone.push({ what: 'durable_name (consumer config)', test: (code) => code.includes('durable_name') })
  // DASP: isExactSelection reaches the request only; the attribute rules are other exports'.
  gone.push({ what: 'DASP attribute daspauthority', test: (code) => code.includes('daspauthority') })
  gone.push({ what: 'DASP placement reason text', test: (code) => code.includes('DASP-EXT-007') })
  // The bare imports: nothing of them.
  const sb = full.sideBenzene!
  for (const [topic, client] of Object.entries(sb.topics as Record<string, { contractHash: string }>)) {
    gone.push({ what: `bare-imported topic ${topic}`, test: has(topic) })
    gone.push({
      what: `bare-imported hash of ${topic}`,
      test: (code) => code.includes(client.contractHash.slice(7)) || code.includes(stored(client.contractHash)),
    })
  }
  const sn = full.sideNats!
  for (const [id, channel] of Object.entries(sn.channels as Record<string, { address?: string }>)) {
    gone.push({ what: `bare-imported channel ${id}`, test: has(id) })
    if (channel.address) gone.push({ what: `bare-imported address ${channel.address}`, test: has(channel.address) })
  }
  return gone
}

describe('tree-shaking: one topic of 200, one channel of 200, one DASP export, two bare imports', () => {
  let expected: unknown
  let appDir = ''
  const defaultBundles: Record<string, string> = {}
  beforeAll(() => {
    appDir = join(dir, 'app')
    mkdirSync(appDir, { recursive: true })
    for (const file of Object.values(contractFiles)) cpSync(join(dir, file), join(appDir, file))
    cpSync(join(dir, 'extensions'), join(appDir, 'extensions'), { recursive: true })
    cpSync(join(dir, 'pins'), join(appDir, 'pins'), { recursive: true })
    const selection = JSON.stringify(full.dasp!.selectionRequest)
    writeFileSync(join(appDir, 'main.js'), `${appImports('')}import './side.spec.json'\nimport './side.asyncapi.yaml'\n${appBody(selection)}`)
    // The oracle app: the same body over the full modules as Node imports them.
    for (const [key, file] of Object.entries(contractFiles)) writeFileSync(join(appDir, `${file}.full.mjs`), codes[key]!)
    writeFileSync(join(appDir, 'oracle.mjs'), `${appImports('.full.mjs')}${appBody(selection)}`)
    expected = runNode(
      `const { run } = await import(${JSON.stringify(pathToFileURL(join(appDir, 'oracle.mjs')).href)}); console.log(JSON.stringify(await run()))`,
    )
  })

  it('the oracle app itself works on the full modules', () => {
    // Holds (pinned): the imported topic, channel and DASP check behave as the docs say.
    expect(expected).toMatchObject({
      topic: IMPORTED_TOPIC,
      frozen: true,
      good: { status: 'ok' },
      bad: { status: 'validation-error' },
      subject: 'svc0.eu.e-abcd.event3',
      address: 'svc0.{region}.{entityId}.event3',
      validBad: false,
      exact: true,
      notExact: false,
    })
    expect((expected as { hash: string }).hash).toBe(full.benzene!.topics[IMPORTED_TOPIC].contractHash)
  })

  it('the oracle is sensitive: each absence check fires on the full modules it was drawn from', () => {
    // Holds (pinned): an empty leak list below means the names, hashes, addresses and literals were
    // really dropped, not that the checks look for text the modules never hold.
    const all = Object.values(codes).join('\n')
    const silent = absentOracle()
      .filter((entry) => !entry.test(all))
      .map((entry) => entry.what)
    expect(silent).toEqual(['DASP placement reason text'])
  })

  it.each(Object.keys(production))(
    '%s (production, minified): only what the imports reach',
    async (name) => {
      const file = await production[name]!(join(appDir, 'main.js'), freshDir(join(dir, `out-${name}`)))
      const code = readFileSync(file, 'utf8')
      defaultBundles[name] = code
      // The imported ones are there and work exactly as on the full modules.
      expect(runNode(`const { run } = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify(await run()))`)).toEqual(expected)
      expect(code).toMatch(literal(IMPORTED_TOPIC))
      expect(code).toMatch(literal('svc0.{region}.{entityId}.event3'))
      const hash = full.benzene!.topics[IMPORTED_TOPIC].contractHash as string
      expect(code.includes(stored(hash)) || code.includes(hash.slice(7))).toBe(true)
      // Everything else is absent. Holds (pinned) where the list is empty; a leak is the defect
      // "One named export per channel ..., so unused channels tree-shake away" (docs/nats.md) and
      // "Every export is a /* @__PURE__ */ call: a topic you do not import is dropped" (docs/getting-started.md).
      const leaks = absentOracle()
        .filter((entry) => entry.test(code))
        .map((entry) => entry.what)
      expect(leaks.slice(0, 20), `${leaks.length} leaks`).toEqual([])
      // Strict CSP: the runtime the bundle carries generates no code from strings (docs/benzene.md).
      expect(code).not.toMatch(/\beval\s*\(|\bnew\s+Function\s*\(|\bFunction\s*\(\s*["'`]/)
    },
    30_000,
  )

  it.each(['esbuild', 'rolldown'])(
    '%s with the other validator forms (Benzene data, NATS code): only what the imports reach',
    async (name) => {
      const options = { types: false, benzene: { validators: 'data' }, nats: { validators: 'code' } }
      const file = await production[name]!(join(appDir, 'main.js'), freshDir(join(dir, `out-forms-${name}`)), options)
      const code = readFileSync(file, 'utf8')
      // The options took: the validators are written another way than in the default build.
      if (defaultBundles[name]) expect(code).not.toBe(defaultBundles[name])
      // channel3's `quantity` bound: data for the interpreter by default (`maximum:1003`), code here.
      const asData = /maximum["'`]?:1003\b/
      expect(asData.test(code)).toBe(false)
      if (defaultBundles[name]) expect(asData.test(defaultBundles[name])).toBe(true)
      // Holds (pinned): docs/benzene.md says `validators: 'data'` keeps "Every export ... a frozen,
      // /* @__PURE__ */ constant of its own, so importing one topic still pulls no other topic's
      // validators"; docs/nats.md: "a channel an app does not import costs nothing".
      expect(runNode(`const { run } = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify(await run()))`)).toEqual(expected)
      const leaks = absentOracle()
        .filter((entry) => entry.test(code))
        .map((entry) => entry.what)
      expect(leaks.slice(0, 20), `${leaks.length} leaks`).toEqual([])
    },
    30_000,
  )

  // Not fixed (noted in the round's notes, left open): the plugin names a contract's module by its absolute path
  // (`\0/<abs>/x.spec.json.contract.js`; esbuild's `unplugin-contracts:/<abs>/...`), and bundlers that print module ids
  // into their output (Vite's library build, Rolldown and esbuild without minification) write that path into the
  // bundle, where a plain file is named relatively: two checkouts build different bytes. The modules themselves are
  // the same bytes (the determinism tests below).
})

/** Payloads for the ajv-standalone channel (`propertyNames`, `dependencies`, tuple items, `uniqueItems`, a budgeted pattern). */
const AJV_CASES: unknown[] = [
  { account: 'aa', tags: ['xy', 1] },
  { account: 'aa' },
  { longpropertyname: 1 },
  { x: { a: 1 } },
  { x: { a: 2 } },
  { account: 'ab', tags: ['xy', 1] },
  { account: 'aa', tags: ['xy', 1, 2] },
  { tags: ['xy', 1] },
  { account: `${'a'.repeat(40)}!`, tags: ['xy', 1] },
]
const AJV_VALUES = JSON.stringify(AJV_CASES)

// ---------------------------------------------------------------------------------------------
// Side effects
// ---------------------------------------------------------------------------------------------

describe('side effects', () => {
  it('a type-only import leaves nothing of the contract or the runtime in the bundle (esbuild, rolldown)', async () => {
    const app = join(dir, 'types-app')
    mkdirSync(app, { recursive: true })
    for (const file of ['b200.spec.json', 'n200.asyncapi.yaml']) cpSync(join(dir, file), join(app, file))
    writeFileSync(
      join(app, 'main.ts'),
      "import type { Request7 } from './b200.spec.json'\nimport { type Event3 } from './n200.asyncapi.yaml'\nexport const run = (r: Request7, e: Event3) => [r, e].length\n",
    )
    const { build } = await import('esbuild')
    const { default: esbuildPlugin } = await import('unplugin-contracts/esbuild')
    const result = await build({
      entryPoints: [join(app, 'main.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      plugins: [esbuildPlugin({ types: false })],
      logLevel: 'silent',
    })
    const { rolldown } = await import('rolldown')
    const { default: rolldownPlugin } = await import('unplugin-contracts/rolldown')
    const bundle = await rolldown({ input: join(app, 'main.ts'), plugins: [rolldownPlugin({ types: false })], logLevel: 'silent' })
    const { output } = await bundle.generate({ format: 'es' })
    await bundle.close()
    // Holds (pinned): nothing of either contract, and no runtime, in either bundle.
    for (const code of [result.outputFiles[0]!.text, output[0].code]) {
      expect(code).not.toContain('service0:operation')
      expect(code).not.toContain('svc0.')
      expect(code).not.toContain('unplugin-contracts')
      expect(code.length).toBeLessThan(400)
    }
  }, 30_000)

  it('evaluated twice in two realms that forbid code from strings: the same exports, no global changed', async () => {
    // One esbuild bundle (unminified, everything kept) of the three modules as one script.
    const { build } = await import('esbuild')
    const { default: contracts } = await import('unplugin-contracts/esbuild')
    const entry = join(dir, 'realm-entry.js')
    writeFileSync(
      entry,
      "export * as b from './b200.spec.json'\nexport * as n from './n200.asyncapi.yaml'\nexport * as d from './counter.dasp.json'\nexport * as a from './ajv.asyncapi.yaml'\nexport { createLocalSender } from 'unplugin-contracts/runtime'\n",
    )
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'iife',
      globalName: '__probe',
      platform: 'neutral',
      plugins: [contracts({ types: false })],
      logLevel: 'silent',
    })
    const script = new vm.Script(result.outputFiles[0]!.text)
    const snapshot = `(() => {
      const names = (o) => Object.getOwnPropertyNames(o).sort().join(',')
      return JSON.stringify({
        global: names(globalThis),
        builtins: [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype, RegExp.prototype, Map.prototype, Set.prototype, Promise.prototype, JSON, Math, Reflect, Object, Array].map(names),
      })
    })()`
    const summary = `(async () => {
      const p = globalThis.__probe
      const shape = (ns) => Object.keys(ns).sort().map((k) => k + ':' + typeof ns[k])
      const sender = p.createLocalSender({ 'service0:operation-7': () => ({ Id: 'r' }) })
      return JSON.stringify({
        b: shape(p.b), n: shape(p.n), d: shape(p.d),
        topics: Object.entries(p.b.topics).map(([k, c]) => [k, c.contractHash]),
        channels: Object.entries(p.n.channels).map(([k, c]) => [k, c.address]),
        request: p.d.selectionRequest,
        render: p.n.channel3.subject.render({ region: 'eu', entityId: 'e-abcd' }),
        valid: [p.n.channel3.validatePayload({}), p.n.channel3.validatePayload({ quantity: 2 })],
        sent: (await p.b.operation7.send(sender, { Id: 'x'.repeat(60) })).status,
        placement: p.d.checkPlacement({ type: 'dasp.v1.command', daspauthority: 'g' }),
        ajv: ${AJV_VALUES}.map((v) => p.a.balanceQuery.validatePayload(v)),
      })
    })()`
    const outcomes: Array<{ before: string; after: string; afterUse: string; summary: string }> = []
    for (let i = 0; i < 2; i++) {
      // A browser's host globals the runtime may use (a bare V8 context has no atob).
      const context = vm.createContext({ atob, btoa, TextEncoder, TextDecoder }, { codeGeneration: { strings: false, wasm: false } })
      const before = vm.runInContext(snapshot, context) as string
      script.runInContext(context, { timeout: 10_000 })
      const after = vm.runInContext(snapshot, context) as string
      const text = (await vm.runInContext(summary, context)) as string
      const afterUse = vm.runInContext(snapshot, context) as string
      outcomes.push({
        before,
        after: after.replace(',__probe', '').replace('__probe,', ''),
        afterUse: afterUse.replace(',__probe', '').replace('__probe,', ''),
        summary: text,
      })
    }
    // Holds (pinned): the only global the script adds is its own bundle name; builtins untouched,
    // before and after use; both realms see the same exports and verdicts, with no eval possible.
    for (const o of outcomes) {
      expect(o.after).toBe(o.before)
      expect(o.afterUse).toBe(o.before)
    }
    expect(outcomes[1]!.summary).toBe(outcomes[0]!.summary)
    const parsed = JSON.parse(outcomes[0]!.summary)
    expect(parsed.topics).toHaveLength(200)
    expect(parsed.render).toBe('svc0.eu.e-abcd.event3')
    expect(parsed.sent).toBe('validation-error')
    // The ajv-standalone and budgeted-pattern validators answer in the realm as in Node's own.
    const ajv = (full.ajvNats!.balanceQuery as { validatePayload: (v: unknown) => boolean }).validatePayload
    expect(parsed.ajv).toEqual(AJV_CASES.map((v) => ajv(v)))
    expect(parsed.ajv).toEqual([true, false, false, true, false, false, false, true, false])
  }, 30_000)
})

// ---------------------------------------------------------------------------------------------
// Determinism
// ---------------------------------------------------------------------------------------------

describe('determinism', () => {
  it('two folders, two processes, two working directories, two compile orders: identical modules', () => {
    const folders = ['one', 'two-longer-name'].map((name) => {
      const folder = join(dir, 'det', name)
      mkdirSync(folder, { recursive: true })
      for (const file of ['b200.spec.json', 'n200.asyncapi.yaml', 'counter.dasp.json']) cpSync(join(dir, file), join(folder, file))
      cpSync(join(dir, 'extensions'), join(folder, 'extensions'), { recursive: true })
      cpSync(join(dir, 'pins'), join(folder, 'pins'), { recursive: true })
      return folder
    })
    const run = (folder: string, order: string[], cwd: string) =>
      runNode(
        `const { compile } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist/src/index.js')).href)})
         const out = {}
         for (const f of ${JSON.stringify(order)}) { const r = await compile(${JSON.stringify(folder)} + '/' + f); out[f] = { code: r.code, map: r.map, dts: r.dts, errors: r.diagnostics.length } }
         console.log(JSON.stringify(out))`,
        cwd,
      ) as Record<string, { code: string; map: Record<string, unknown>; dts: string; errors: number }>
    const a = run(folders[0]!, ['b200.spec.json', 'n200.asyncapi.yaml', 'counter.dasp.json'], root)
    const b = run(folders[1]!, ['counter.dasp.json', 'n200.asyncapi.yaml', 'b200.spec.json'], tmpdir())
    const forbidden = [dir, root, homedir(), hostname(), userInfo().username, String(new Date().getFullYear()) + '-']
    for (const file of Object.keys(a)) {
      expect(a[file]!.errors, file).toBe(0)
      // Holds (pinned): code and declarations are byte for byte the same, and the same as this process's.
      expect(b[file]!.code, file).toBe(a[file]!.code)
      expect(b[file]!.dts, file).toBe(a[file]!.dts)
      expect(a[file]!.code, file).toBe(codes[Object.keys(contractFiles).find((k) => contractFiles[k] === file)!])
      for (const text of [a[file]!.code, a[file]!.dts])
        for (const bad of forbidden.filter((f) => f.length > 3)) expect(text.includes(bad), `${file} holds ${bad}`).toBe(false)
      // Maps: the contract is named by its absolute path in `file` and `sources` only (what a bundler
      // rewrites); everything else of the map is identical. Holds (pinned).
      const strip = (map: Record<string, unknown>, folder: string) => JSON.parse(JSON.stringify(map).split(folder).join('<folder>'))
      expect(strip(b[file]!.map, folders[1]!), file).toEqual(strip(a[file]!.map, folders[0]!))
      const rest = { ...a[file]!.map, file: undefined, sources: undefined }
      for (const bad of forbidden.filter((f) => f.length > 3)) expect(JSON.stringify(rest).includes(bad), `${file} map holds ${bad}`).toBe(false)
      expect(a[file]!.map.sources).toEqual([join(folders[0]!, file)])
    }
  }, 30_000)
})

// ---------------------------------------------------------------------------------------------
// Imports and code generation
// ---------------------------------------------------------------------------------------------

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }
const runtimeSpecifiers = new Set(
  Object.keys(pkg.exports)
    .filter((key) => key === './runtime' || key.startsWith('./runtime/'))
    .map((key) => `unplugin-contracts${key.slice(1)}`),
)

/** Every generated module to scan: the probe's, each fixture and example, and the other validator forms. */
async function everyModule(): Promise<Array<[string, string]>> {
  const list: Array<[string, string]> = Object.entries(codes)
  list.push(['benzene validators:data', await compiled(join(dir, 'b200.spec.json'), { benzene: { validators: 'data' } })])
  list.push(['nats validators:code', await compiled(join(dir, 'n200.asyncapi.yaml'), { nats: { validators: 'code' } })])
  list.push(['ajv nats validators:code', await compiled(join(dir, 'ajv.asyncapi.yaml'), { nats: { validators: 'code' } })])
  const others = [
    ...['edge-cases', 'hostile-names', 'inheritance', 'producer-shapes', 'schema-features'].map((n) => `fixtures/benzene/valid/${n}.spec.json`),
    'examples/payments-client/payments.spec.json',
    'examples/nats-orders/orders/asyncapi.yaml',
    'examples/dasp-counter/counter.dasp.json',
  ]
  for (const file of others) list.push([file, await compiled(join(root, file))])
  return list
}

describe('imports and code generation', () => {
  it('every import is the runtime or a documented subpath; no dynamic import, require, eval or Function', async () => {
    await initLexer
    const findings: string[] = []
    for (const [name, code] of await everyModule()) {
      const [imports] = lexImports(code)
      for (const entry of imports) {
        if (entry.d === -2) findings.push(`${name}: import.meta`)
        else if (entry.d > -1) findings.push(`${name}: dynamic import`)
        else if (!runtimeSpecifiers.has(entry.n!)) findings.push(`${name}: imports ${entry.n}`)
      }
      const ast = parseJs(code, { ecmaVersion: 'latest', sourceType: 'module' })
      walk(ast, (node) => {
        const callee = node.type === 'CallExpression' || node.type === 'NewExpression' ? node.callee : undefined
        if (callee?.type === 'Identifier' && ['require', 'eval', 'Function', 'setTimeout', 'setInterval'].includes(callee.name))
          findings.push(`${name}: ${node.type} ${callee.name}`)
        if (callee?.type === 'MemberExpression' && callee.property?.name === 'constructor') findings.push(`${name}: .constructor call`)
        if (node.type === 'Identifier' && ['globalThis', 'window', 'self', 'process', 'document'].includes(node.name)) findings.push(`${name}: ${node.name}`)
      })
    }
    // Holds (pinned): nothing but the runtime's documented subpaths (package.json `exports`).
    expect(findings).toEqual([])
  }, 30_000)
})

function walk(node: any, visit: (node: any) => void): void {
  if (!node || typeof node.type !== 'string') return
  visit(node)
  for (const key of Object.keys(node)) {
    const value = node[key]
    if (Array.isArray(value)) for (const child of value) walk(child, visit)
    else if (value && typeof value === 'object' && typeof value.type === 'string') walk(value, visit)
  }
}

// ---------------------------------------------------------------------------------------------
// Frozen
// ---------------------------------------------------------------------------------------------

/** Every object reachable from `value` (getters read, Map and Set entries followed), with a path. */
function reachable(value: unknown, path: string, seen = new Map<object, string>()): Map<object, string> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return seen
  seen.set(value, path)
  if (value instanceof Map)
    for (const [k, v] of value) {
      reachable(k, `${path}<key>`, seen)
      reachable(v, `${path}.get(${String(k)})`, seen)
    }
  if (value instanceof Set) for (const v of value) reachable(v, `${path}<item>`, seen)
  for (const key of Reflect.ownKeys(value)) {
    if (typeof value === 'function' && (key === 'prototype' || key === 'caller' || key === 'arguments')) continue
    let child: unknown
    try {
      child = (value as Record<PropertyKey, unknown>)[key]
    } catch {
      continue
    }
    reachable(child, `${path}.${String(key)}`, seen)
  }
  return seen
}

describe('frozen', () => {
  it('every object reachable from every export is frozen; Maps and Sets refuse changes', async () => {
    const notFrozen: string[] = []
    const collections: string[] = []
    let objects = 0
    for (const [key, mod] of Object.entries(full)) {
      for (const name of Object.keys(mod)) {
        for (const [object, path] of reachable(mod[name], `${key}.${name}`)) {
          if (typeof object === 'function') continue
          objects++
          if (!Object.isFrozen(object)) notFrozen.push(path)
          if (object instanceof Map || object instanceof Set) collections.push(path)
        }
      }
    }
    expect(objects).toBeGreaterThan(1000)
    // Holds (pinned): `topics` has no prototype (docs/benzene.md), so no inherited name is a topic.
    expect(Object.getPrototypeOf(full.benzene!.topics)).toBe(null)
    expect(['constructor', 'toString', '__proto__'].map((key) => full.benzene!.topics[key])).toEqual([undefined, undefined, undefined])
    // Was a defect (fixed): six objects were not frozen: `interactions.approve0.bindings.subject`, its
    // `operationId` and `peerId` bindings, and the same under `approve1` (while `bindings.payload` was):
    // the descriptor's freeze skipped every member named `subject`, at any depth. Now none; docs/nats.md: interactions ... "exported as frozen
    // descriptors", and "Each channel is frozen", docs/benzene.md "A client is frozen", docs/dasp.md
    // "deep-frozen" (the next tests show what a write there does).
    expect(notFrozen.slice(0, 20), `${notFrozen.length} not frozen`).toEqual([])
    // A frozen Map still takes set(): the docs name none in the modules; pinned as absent.
    expect(collections.slice(0, 20)).toEqual([])
  }, 30_000)

  it('a consumer mutating everything it can reach changes no verdict (a fresh copy of each module)', async () => {
    const b = await loadCode(codes.benzene!, 'mut-benzene')
    const n = await loadCode(codes.nats!, 'mut-nats')
    const d = await loadCode(codes.dasp!, 'mut-dasp')
    const { createLocalSender } = await import('unplugin-contracts/runtime')
    const verdicts = async () => {
      const sender = createLocalSender({ [IMPORTED_TOPIC]: () => ({ Id: 'r' }) })
      return {
        ok: (await b.operation7.send(sender, { Id: 'x', Total: { Amount: 1, Currency: 'EUR' } })).status,
        tooLong: (await b.operation7.send(sender, { Id: 'x'.repeat(60), Total: { Amount: 1, Currency: 'EUR' } })).status,
        render: (() => {
          try {
            return n.channel3.subject.render({ region: 'xx', entityId: 'e-abcd' })
          } catch (error) {
            return (error as { code?: string }).code
          }
        })(),
        payloadBad: n.channel3.validatePayload({ quantity: 'many' }),
        payloadEmpty: n.channel3.validatePayload({}),
        exact: d.isExactSelection(JSON.parse(JSON.stringify(full.dasp!.selectionRequest))),
        placement: d.checkPlacement({ type: 'other', daspauthority: 'g' }).ok,
      }
    }
    const before = await verdicts()
    const accepted: string[] = []
    for (const mod of [b, n, d])
      for (const name of Object.keys(mod))
        for (const [object, path] of reachable(mod[name], name)) {
          for (const key of Reflect.ownKeys(object)) {
            if (typeof object === 'function' && key === 'prototype') continue // a function's own prototype object: no verdict reads it
            try {
              ;(object as Record<PropertyKey, unknown>)[key] = typeof (object as Record<PropertyKey, unknown>)[key] === 'function' ? () => true : 'x'.repeat(3)
              accepted.push(`${path}.${String(key)}`)
            } catch {
              // refused: frozen
            }
          }
          if (Array.isArray(object))
            try {
              object.push('x')
              accepted.push(`${path}.push`)
            } catch {
              // refused
            }
          try {
            Object.setPrototypeOf(object, { injected: true })
            if ((Object.getPrototypeOf(object) as { injected?: boolean } | null)?.injected)
              accepted.push(`${path} ${typeof object === 'function' ? 'function-prototype' : 'prototype'}`)
          } catch {
            // refused
          }
        }
    // Holds (pinned): the boolean verdicts, the Benzene statuses, the subject check, the DASP checks
    // are the same after every reachable member was overwritten where the language let it be.
    expect(await verdicts()).toEqual(before)
    expect(before).toMatchObject({
      ok: 'ok',
      tooLong: 'validation-error',
      render: 'SUBJECT_INVALID_VALUE',
      payloadBad: false,
      payloadEmpty: false,
      exact: true,
      placement: false,
    })
    // Every write refused but the two defects the next tests show (an interaction's subject bindings,
    // a validator's `errors`): any other accepted write is a new hole.
    // Functions themselves (a client's `send`, validators) are extensible, so `Object.setPrototypeOf`
    // takes on them: noted, not asserted (a direct call still runs the same code and verdict).
    const known = /\.bindings\.subject\b|\.errors\b| function-prototype$/
    expect(accepted.filter((path) => !known.test(path)).slice(0, 20)).toEqual([])
  }, 30_000)

  it('an interaction descriptor cannot be rerouted by its importer (materialize sends where the contract says)', async () => {
    const n = await loadCode(codes.nats!, 'reroute-nats')
    const { materialize } = await import('unplugin-contracts/runtime')
    const approve = n.interactions.approve0
    const args = {
      inputs: { operationId: `op${'a'.repeat(64)}`, group: 'approvers', request: { subject: 's', amount: 1, reason: 'r' } },
      context: { principalId: 'alice' },
      branch: { id: 'b-1', peerId: 'bob', attempt: 1, fence: 7 },
    }
    const before = materialize(approve, args).subject
    expect(before).toBe(`approvals0.op${'a'.repeat(64)}.vote.bob`)
    try {
      approve.bindings.subject.peerId = { input: 'group' }
    } catch {
      // refused, as a frozen descriptor refuses
    }
    // Was a defect (fixed): `interactions.<id>.bindings.subject` (and each binding in it) was not frozen,
    // while `bindings.payload` and the descriptor itself were; an importer's write
    // `approve.bindings.subject.peerId = { input: 'group' }` was taken, and every later materialize of
    // that interaction, by any importer of the module, addressed the vote to `...vote.approvers`
    // instead of `...vote.bob`. Now the write is refused and the subject unchanged. docs/nats.md:
    // "interactions ... are ... exported as frozen descriptors with `source` backlinks".
    expect(materialize(approve, args).subject).toBe(before)
    expect(Object.isFrozen(approve.bindings.subject)).toBe(true)
  })

  it("a validator's errors cannot be hidden or replaced by another importer", async () => {
    const n = await loadCode(codes.nats!, 'errors-nats')
    const validate = n.channel3.validatePayload as ((value: unknown) => boolean) & { errors?: unknown[] | null }
    expect(validate({})).toBe(false)
    const errors = validate.errors
    expect(errors).toHaveLength(6)
    try {
      Object.defineProperty(validate, 'errors', { get: () => null, set: () => {} })
    } catch {
      // refused: a frozen function
    }
    expect(validate({})).toBe(false)
    // Was a defect (fixed; by the brief's oracle, "every nested object reachable from an export is
    // frozen"): `channel.validatePayload` reported its errors ajv-style in a configurable own `errors`
    // member (an unfrozen array of unfrozen error objects), shared by every importer; any importer could
    // plant an accessor there, and from then on every caller read `errors: null` for an invalid payload.
    // Now `errors` is a sealed data member and the errors it holds are frozen (docs/runtime.md).
    // docs/nats.md: "Each channel is frozen" (the channel is; what its validator hands out is not).
    expect(validate.errors).toEqual(errors)
    expect(Object.isFrozen(errors)).toBe(true)
  })
})
