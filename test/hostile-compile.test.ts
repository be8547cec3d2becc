/**
 * The compiler on hostile contracts: nothing from a file name runs, nothing freezes or crashes
 * the build, every bad input is a capped diagnostic, and nothing outside the contract's tree is
 * read or shown. The families come from bench/hostile.ts (bench/complexity.ts times them at 10x);
 * here each runs once at a telling size; the test's timeout proves it terminates.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as hostile from '../bench/hostile.js'
import { compile, ContractCompiler } from '../src/index.js'
import { schemaClosure } from '../src/runtime/benzene/closure.js'
import { MAX_CLOSURE_ENTRIES } from '../src/formats/benzene/build-model.js'
import { MAX_DIAGNOSTICS_PER_CODE, type Diagnostic } from '../src/core/diagnostics.js'
import { parseExactYaml, parseYamlSource } from '../src/core/yaml-source.js'
import { bundlers } from './helpers/bundlers.js'
import { copyDaspSelection } from './helpers/dasp-selection.js'
import { contracts, tsc } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { waitingWriter } from './helpers/fifo-writer.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/hostile-compile')
const fresh = (name: string) => {
  const dir = join(tmp, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  return dir
}
const counts = (diagnostics: readonly Diagnostic[]) =>
  Object.fromEntries([...new Set(diagnostics.map((d) => d.code))].map((c) => [c, diagnostics.filter((d) => d.code === c).length]))
/** Compiles with a fresh compiler. Termination is the test's timeout; cost is bench/complexity.ts's to measure. */
async function timed(file: string) {
  return { result: await new ContractCompiler().compile(file) }
}

/** `tsc --strict` over `use.ts` importing `./contract.js` whose declarations are `dts`; '' when both compile. */
function typecheck(dir: string, dts: string, use: string): string {
  writeFileSync(join(dir, 'contract.d.ts'), dts)
  writeFileSync(join(dir, 'use.ts'), use)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', types: [] }, files: ['use.ts'] }),
  )
  return tsc(['-p', '.'], dir).output
}

/**
 * A file name that ends a `//` comment (every ECMAScript line terminator) and would open a template
 * literal, with quotes and a backslash. (`*` then `/` cannot be in a file name; a path's `/`
 * reaches code only inside string literals.)
 */
const HOSTILE_NAME = 'x\nglobalThis.__PWNED=true;`${globalThis.__PWNED=2}`\r\u2028\u2029 "\'\\'

describe('file names never reach generated code as code', () => {
  const cases: Array<[format: string, make: (dir: string) => string, use: string]> = [
    [
      'benzene',
      (dir) => {
        const file = join(dir, `${HOSTILE_NAME}.spec.json`)
        cpSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), file)
        return file
      },
      "import { contractHash } from './contract.js'\nexport const h: string = contractHash\n",
    ],
    [
      'nats',
      (dir) => {
        const file = join(dir, `${HOSTILE_NAME}.asyncapi.yaml`)
        cpSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), file)
        return file
      },
      "import { contract } from './contract.js'\nexport const id: string = contract.id\n",
    ],
    [
      'dasp',
      (dir) => copyDaspSelection(dir, `${HOSTILE_NAME}.dasp.json`),
      "import { attributeNames } from './contract.js'\nexport const n: number = attributeNames.length\n",
    ],
  ]
  it.each(cases)('%s: the module loads and runs nothing planted; its declarations compile', async (format, make, use) => {
    const dir = fresh(`names-${format}`)
    const result = await compile(make(dir))
    expect(result.diagnostics).toEqual([])
    for (const text of [result.code!, result.dts!]) expect(text).not.toMatch(/\n\s*globalThis\.__PWNED/)
    await loadModule(result.code!, `hostile-name-${format}`)
    expect((globalThis as { __PWNED?: unknown }).__PWNED).toBeUndefined()
    expect(typecheck(dir, result.dts!, use)).toBe('')
  })
})

describe('messageEndpoint is a path on the service origin', () => {
  const base = JSON.parse(readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8'))
  const withEndpoint = async (endpoint: string) => {
    const dir = fresh('endpoint')
    const file = join(dir, 'e.spec.json')
    writeFileSync(file, JSON.stringify({ ...base, messageEndpoint: endpoint }, null, 2))
    return (await compile(file)).diagnostics
  }
  it.each([
    '//evil.example:8443/x',
    'http://other/x',
    'https://other/x',
    '/\\evil.example/x',
    '/\t/evil.example/x',
    'benzene/invoke',
    '/x?to=evil',
    '/x#y',
    '\\\\evil/x',
    '',
  ])('%j is BENZENE_ENDPOINT_FORM', async (endpoint) => {
    expect((await withEndpoint(endpoint)).map((d) => [d.code, d.pointer])).toEqual([['BENZENE_ENDPOINT_FORM', '/messageEndpoint']])
  })
  it.each(['/benzene/invoke', '/', '/a/b-c_d.e~f/%20'])('%j is a path', async (endpoint) => {
    expect(await withEndpoint(endpoint)).toEqual([])
  })
})

// The sizes here check verdicts, caps and that nothing runs out of stack (the flow line and the
// 45,000 requests stay that long for it); how time grows with size (n against 10n, the larger of
// these among them) is measured by bench/complexity.ts, where bounds on time belong.
describe('nothing freezes or crashes the build', () => {
  it('stream capture over 8 one-hex-character parameters (16^8 subjects) is decided at once, both ways', async () => {
    const dir = fresh('cover')
    const covered = join(dir, 'covered.asyncapi.yaml')
    writeFileSync(covered, hostile.coverBomb(8))
    const { result } = await timed(covered)
    expect(result.diagnostics).toEqual([])
    const partial = join(dir, 'partial.asyncapi.yaml')
    writeFileSync(partial, hostile.coverBomb(8).replace('s.*.*.*.*.*.*.*.*', 's.*.*.*.*.*.*.*.a'))
    expect((await timed(partial)).result.diagnostics.map((d) => d.code)).toEqual(['NATS_STREAM_CAPTURE'])
  })

  it('1,000 channels that all overlap: one diagnostic per channel, capped at 100 and a summary', async () => {
    const file = join(fresh('overlap'), 'o.asyncapi.yaml')
    writeFileSync(file, hostile.overlapAll(1000))
    const { result } = await timed(file)
    expect(counts(result.diagnostics)).toEqual({ NATS_CHANNEL_OVERLAP: MAX_DIAGNOSTICS_PER_CODE, CONTRACTS_DIAGNOSTICS_CAPPED: 1 })
    const summary = result.diagnostics.find((d) => d.code === 'CONTRACTS_DIAGNOSTICS_CAPPED')!
    expect(summary).toMatchObject({ severity: 'error', data: { code: 'NATS_CHANNEL_OVERLAP', count: 999 - MAX_DIAGNOSTICS_PER_CODE } })
  })

  it('45,000 empty Benzene requests: capped diagnostics, no internal error', async () => {
    const file = join(fresh('empty'), 'e.spec.json')
    writeFileSync(file, hostile.emptyTopics(45000))
    const { result } = await timed(file)
    expect(result.diagnostics.length).toBeLessThanOrEqual(4 * MAX_DIAGNOSTICS_PER_CODE)
    expect(counts(result.diagnostics).BENZENE_EMPTY_TOPIC).toBe(MAX_DIAGNOSTICS_PER_CODE)
    expect(counts(result.diagnostics).CONTRACTS_INTERNAL).toBeUndefined()
  })

  it('a DASP definition with 4,000 dependencies: capped diagnostics, no internal error', async () => {
    const { result } = await timed(hostile.daspManyDependencies(fresh('dasp-deps'), 4000))
    expect(result.code).toBeUndefined()
    expect(counts(result.diagnostics).CONTRACTS_INTERNAL).toBeUndefined()
    expect(result.diagnostics.length).toBeLessThanOrEqual(1000)
  })

  it('a DASP dependency cycle through 1,000 definitions is found once, in bounded time', async () => {
    const { result } = await timed(hostile.daspDependencyChain(fresh('dasp-cycle'), 1000))
    const cycles = result.diagnostics.filter((d) => d.code === 'DASP_DEPENDENCY_CYCLE')
    expect(cycles.map((d) => d.pointer)).toEqual(['/extensions/2'])
    // The message shows the first and last 16 links of the 1,000 and counts the rest.
    expect(cycles[0]!.message.split(' -> ')).toHaveLength(33)
    expect(cycles[0]!.message).toContain('(969 more)')
    expect(cycles[0]!.data).toMatchObject({ members: 1000 })
    expect(counts(result.diagnostics).CONTRACTS_INTERNAL).toBeUndefined()
  })

  it('3,200 disjoint channels sharing first and last tokens, two 8,000-value enums, a 200,000-member flow line: accepted', async () => {
    const dir = fresh('quadratic')
    for (const [name, text] of [
      ['bucket.asyncapi.yaml', hostile.sharedBucket(3200)],
      ['enum.asyncapi.yaml', hostile.enumPair(8000)],
      ['line.asyncapi.yaml', hostile.longFlowLine(200000)],
    ] as const) {
      writeFileSync(join(dir, name), text)
      const { result } = await timed(join(dir, name))
      expect(result.diagnostics, name).toEqual([])
    }
  })

  it('1,600-long $ref and allOf chains compile (walks are iterative)', async () => {
    const dir = fresh('chains')
    for (const via of ['$ref', 'allOf'] as const) {
      writeFileSync(join(dir, `${via}.spec.json`), hostile.schemaChain(1600, via))
      const { result } = await timed(join(dir, `${via}.spec.json`))
      expect(result.diagnostics, via).toEqual([])
    }
  })

  it('1,400 topics entering a 1,400-schema chain: a module linear in the document, with the same closures', async () => {
    const dir = fresh('closure')
    const file = join(dir, 'c.spec.json')
    writeFileSync(file, hostile.schemaChain(1400, '$ref', 1400))
    const { result } = await timed(file)
    expect(result.diagnostics).toEqual([])
    expect(result.code!.length).toBeLessThan(4 * 1024 * 1024)
    const mod = await loadModule(result.code!, 'hostile-closure')
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    for (const i of [0, 1, 700, 1399]) {
      const entry = doc.requests[i]
      expect([...mod.topics[entry.topic].components]).toEqual(schemaClosure([entry.request, entry.response], doc.components.schemas))
    }
    // Past the bound on the work the closures take, the generator says it will not.
    writeFileSync(file, hostile.schemaChain(1500, '$ref', 1500))
    const over = (await timed(file)).result
    expect(over.diagnostics.map((d) => [d.code, d.data])).toEqual([['BENZENE_CLOSURE_TOO_LARGE', { limit: MAX_CLOSURE_ENTRIES }]])
  })
})

describe('links between contracts', () => {
  it('payload schemas that refer twice to a schema that refers twice ... (2^40 expanded) are compared at once, and equal', async () => {
    const shop = ShopBundle.copy('hostile-doubling')
    const chain =
      Array.from(
        { length: 40 },
        (_, i) => `    D${i}: { type: object, properties: { a: { $ref: '#/components/schemas/D${i + 1}' }, b: { $ref: '#/components/schemas/D${i + 1}' } } }\n`,
      ).join('') + '    D40: { type: string }\n'
    for (const doc of ['orders', 'payments']) {
      shop.edit(`${doc}/asyncapi/asyncapi.yaml`, '  schemas:\n', `  schemas:\n${chain}`)
      shop.edit(
        `${doc}/asyncapi/asyncapi.yaml`,
        / {8}total: \{ type: number \}\n/,
        "        total: { type: number }\n        tree: { $ref: '#/components/schemas/D0' }\n",
      )
    }
    shop.relock()
    const { result } = await timed(shop.doc('payments'))
    expect(result.diagnostics).toEqual([])
    // One leaf changed on one side: the link sees the difference.
    shop.edit('orders/asyncapi/asyncapi.yaml', '    D40: { type: string }', '    D40: { type: number }').relock()
    expect((await timed(shop.doc('payments'))).result.diagnostics.map((d) => d.code)).toEqual(['NATS_LINK_SCHEMA'])
  })
})

describe('values JSON has no form for, on every path', () => {
  it('1e400 in a Benzene document is JSON_NUMBER_RANGE at its pointer', async () => {
    const doc = JSON.parse(readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8'))
    const file = join(fresh('range'), 'r.spec.json')
    writeFileSync(file, JSON.stringify({ ...doc, info: { ...doc.info, 'x-big': 12345 } }, null, 2).replace('"x-big": 12345', '"x-big": 1e400'))
    expect((await compile(file)).diagnostics.map((d) => [d.code, d.pointer])).toEqual([['JSON_NUMBER_RANGE', '/info/x-big']])
  })

  it('the fast and the exact YAML paths agree on 1e400, huge integers and %YAML 1.1', () => {
    const base = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
    const documents = {
      infinite: base.replace('max_msgs: 50000000', 'max_msgs: 1e400'),
      huge: base.replace('max_msgs: 50000000', 'max_msgs: 123456789012345678901234567890'),
      yaml11: '%YAML 1.1\n---\n' + base.replace('title: Ledger', 'title: yes'),
    }
    for (const [name, text] of Object.entries(documents)) {
      const fast = parseYamlSource(`${name}.yaml`, text)
      const exact = parseExactYaml(`${name}.yaml`, text)
      expect(
        fast.diagnostics.map((d) => d.code),
        name,
      ).toEqual(exact.diagnostics.map((d) => d.code))
      expect(fast.source.value, name).toEqual(exact.source.value)
    }
    expect(parseYamlSource('i.yaml', documents.infinite).diagnostics.map((d) => d.code)).toEqual(['YAML_NON_JSON_VALUE'])
    expect(parseYamlSource('y.yaml', documents.yaml11).diagnostics.map((d) => d.code)).toEqual(['YAML_NON_JSON_VALUE'])
  })

  it('a NUL byte in a NATS lock path or a DASP definitions entry is a diagnostic', async () => {
    const dir = fresh('nul')
    cpSync(join(root, 'fixtures/nats/shop'), join(dir, 'shop'), { recursive: true })
    const lock = JSON.parse(readFileSync(join(dir, 'shop/bundle.lock.json'), 'utf8'))
    lock.entries.push({ path: 'native/x\u0000y.json', sha256: '0'.repeat(64) })
    writeFileSync(join(dir, 'shop/bundle.lock.json'), JSON.stringify(lock, null, 2))
    const nats = await compile(join(dir, 'shop/orders/asyncapi/asyncapi.yaml'))
    expect(nats.diagnostics.map((d) => d.code)).toContain('NATS_LOCK_PATH')
    expect(counts(nats.diagnostics).CONTRACTS_INTERNAL).toBeUndefined()
    const selection = copyDaspSelection(join(dir, 'dasp'))
    const s = JSON.parse(readFileSync(selection, 'utf8'))
    s.definitions.unshift('extensions/a\u0000b.json')
    writeFileSync(selection, JSON.stringify(s, null, 2))
    expect((await compile(selection)).diagnostics.map((d) => [d.code, d.pointer])).toEqual([['DASP_DEFINITION_SOURCE', '/definitions/0']])
  })
})

describe('files stay inside the contract tree', () => {
  it('a DASP definitions entry that leaves the tree is refused, and no byte of it is shown by the CLI or a bundler', async () => {
    const dir = fresh('outside')
    const selection = copyDaspSelection(dir)
    const s = JSON.parse(readFileSync(selection, 'utf8'))
    s.definitions.unshift('../../../../../../../../etc/passwd')
    writeFileSync(selection, JSON.stringify(s, null, 2))
    const result = await compile(selection)
    expect(result.diagnostics.map((d) => [d.code, d.pointer, d.file])).toEqual([['DASP_DEFINITION_SOURCE', '/definitions/0', selection]])
    expect(result.dependencies).not.toContain('/etc/passwd')
    const cli = contracts(['check', selection])
    expect(cli.status).toBe(1)
    expect(cli.stdout + cli.stderr).not.toContain('root:')
    writeFileSync(join(dir, 'main.js'), "import { selectionRequest } from './counter.dasp.json'\nexport default selectionRequest\n")
    const error = await bundlers.rollup!(join(dir, 'main.js'), join(dir, 'out')).then(
      () => '',
      (e: Error) => e.message,
    )
    expect(error).toContain('DASP_DEFINITION_SOURCE')
    expect(error).not.toContain('root:')
  })

  it('a contract that is a symlink (to /proc/self/environ) is refused and nothing of its target is printed', async () => {
    const dir = fresh('symlink')
    const link = join(dir, 'env.spec.json')
    symlinkSync('/proc/self/environ', link)
    process.env.UNPLUGIN_CONTRACTS_CANARY = 'canary-7f3a'
    const result = await compile(link)
    expect(result.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_SYMLINK'])
    const cli = contracts(['check', link])
    expect(cli.stdout + cli.stderr).not.toContain('canary-7f3a')
    expect(cli.stdout + cli.stderr).not.toContain('PATH=')
    delete process.env.UNPLUGIN_CONTRACTS_CANARY
  })

  it('a folder on the way that links out of the tree is refused; a contract reached through a linked folder still compiles', async () => {
    const dir = fresh('linked-folder')
    const selection = copyDaspSelection(join(dir, 'app'))
    // `extensions` becomes a link to a copy outside the selection's folder.
    cpSync(join(dir, 'app/extensions'), join(dir, 'elsewhere'), { recursive: true })
    rmSync(join(dir, 'app/extensions'), { recursive: true })
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'app/extensions'))
    const outside = await compile(selection)
    const refused = outside.diagnostics.filter((d) => d.code === 'DASP_DEFINITION_SOURCE')
    expect(refused.map((d) => d.pointer)).toEqual(['/definitions/0', '/definitions/1'])
    expect(refused[0]!.message).toContain('outside the contract')
    // The contract's own folder may be reached through a link: its tree is where it really is.
    cpSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), join(dir, 'payments.spec.json'))
    symlinkSync(dir, join(dir, 'up'))
    expect((await compile(join(dir, 'up/payments.spec.json'))).diagnostics).toEqual([])
  })

  it('a pinned DASP file replaced by a symlink or a FIFO fails the pin, without blocking', async () => {
    for (const kind of ['symlink', 'fifo'] as const) {
      const dir = fresh(`pin-${kind}`)
      const selection = copyDaspSelection(dir)
      const pinned = join(dir, 'pins/proof-of-authority/spec.md')
      const copy = join(dir, 'spec-copy.md')
      cpSync(pinned, copy)
      unlinkSync(pinned)
      if (kind === 'symlink') symlinkSync(copy, pinned)
      else execFileSync('mkfifo', [pinned])
      // A blocking read would hang here until the test's timeout; any open would release the writer.
      const writer = kind === 'fifo' ? waitingWriter(pinned) : undefined
      try {
        const result = await compile(selection)
        expect(
          result.diagnostics.map((d) => [d.code, d.pointer]),
          kind,
        ).toEqual([['DASP_PIN_MISMATCH', '/files/proof-of-authority~1spec.md']])
        if (writer) expect(await writer.released(), 'the pinned FIFO was opened').toBe(false)
      } finally {
        writer?.stop()
      }
    }
  })
})

describe("a NATS bundle's lock that is not a plain file", () => {
  it('a bundle.lock.json that is a link or a FIFO is refused where it is, without blocking; never skipped for a lock further up', async () => {
    for (const kind of ['symlink', 'fifo'] as const) {
      const dir = fresh(`nats-lock-${kind}`)
      // A real lock one folder up (the shop bundle's), which a skipped lock would have fallen back to.
      cpSync(join(root, 'fixtures/nats/shop'), join(dir, 'bundle'), { recursive: true })
      cpSync(join(dir, 'bundle/bundle.lock.json'), join(dir, 'bundle.lock.json'))
      const lock = join(dir, 'bundle/bundle.lock.json')
      const copy = join(dir, 'lock-copy.json')
      cpSync(lock, copy)
      unlinkSync(lock)
      if (kind === 'symlink') symlinkSync(copy, lock)
      else execFileSync('mkfifo', [lock])
      // A blocking read would hang here until the test's timeout; any open would release the writer.
      const writer = kind === 'fifo' ? waitingWriter(lock) : undefined
      try {
        const result = await compile(join(dir, 'bundle/payments/asyncapi/asyncapi.yaml'))
        expect(
          result.diagnostics.map((d) => [d.code, d.file]),
          kind,
        ).toEqual([[kind === 'symlink' ? 'CONTRACTS_SYMLINK' : 'CONTRACTS_READ_FAILED', lock]])
        if (writer) expect(await writer.released(), 'the FIFO lock was opened').toBe(false)
      } finally {
        writer?.stop()
      }
    }
  })
})

describe('schema names that are TypeScript type operators', () => {
  it('are renamed, and the declarations compile', async () => {
    const names = [
      'keyof',
      'infer',
      'readonly',
      'unique',
      'as',
      'asserts',
      'is',
      'satisfies',
      'type',
      'declare',
      'namespace',
      'module',
      'abstract',
      'out',
      'accessor',
      'global',
      'intrinsic',
      'symbol',
      'object',
    ]
    const schemas = Object.fromEntries(names.map((n) => [n, { type: 'object', properties: { v: { type: 'string' } } }]))
    const requests = names.map((n) => ({ topic: `kw:${n}`, request: { $ref: `#/components/schemas/${n}` }, response: { $ref: `#/components/schemas/${n}` } }))
    const dir = fresh('keywords')
    const file = join(dir, 'k.spec.json')
    writeFileSync(file, JSON.stringify({ openapi: '3.0.1', info: { title: 'k', version: '' }, requests, events: [], components: { schemas } }))
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    expect(typecheck(dir, result.dts!, "import * as k from './contract.js'\nexport const t: string = k.contractHash\n")).toBe('')
  })
})
