/** fixtures/hostile/: inputs built to break a compiler, and what it does with them. */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { contracts, tsc } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'

const hostile = join(import.meta.dirname, '../fixtures/hostile')

/** `tsc --strict` over `use.ts` next to `<name>.d.ts`: its output, empty when both compile. */
function typecheck(name: string, dts: string, use: string): string {
  const dir = join(import.meta.dirname, `.tmp/hostile-types-${name}`)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${name}.d.ts`), dts)
  writeFileSync(join(dir, 'use.ts'), use)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', types: [] }, files: ['use.ts'] }),
  )
  return tsc(['-p', '.'], dir).output
}

describe('hostile corpus', () => {
  it('an alias bomb stops at the alias limit, at once', async () => {
    // "At once" is bench/complexity.ts's to measure ("YAML alias bomb", 10 and 100 levels).
    const result = await compile(join(hostile, 'alias-bomb.asyncapi.yaml'))
    expect(result.diagnostics.map((d) => d.code)).toEqual(['YAML_ALIAS_LIMIT'])
  })

  it('an alias before its anchor is one syntax error saying so (not an expansion past the limit, nor an empty document)', async () => {
    const { parseYamlSource } = await import('../src/core/yaml-source.js')
    const found = parseYamlSource('early.asyncapi.yaml', 'asyncapi: 3.1.0\ninfo: *early\nx-info: &early { title: T, version: 1.0.0 }\n').diagnostics
    expect(found.map((d) => d.code)).toEqual(['YAML_SYNTAX'])
    expect(found[0]!.message).toContain('before its anchor')
  })

  it('nesting beyond the depth limit is a diagnostic', async () => {
    expect((await compile(join(hostile, 'deep.spec.json'))).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_TOO_DEEP'])
  })

  it('a Benzene format named like object machinery (constructor, toString, __proto__) documents, as any unknown format does: no internal error', async () => {
    // Was a defect (an outside mutation pass over the fixtures): the converter looked the format up in a
    // plain object, took Object's own function for a pattern and failed with CONTRACTS_INTERNAL.
    const dir = join(import.meta.dirname, '.tmp/hostile-format-names')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'formats.spec.json')
    const properties = Object.fromEntries(['constructor', 'toString', '__proto__', 'hasOwnProperty'].map((format, i) => [`p${i}`, { type: 'string', format }]))
    const doc = {
      openapi: '3.0.1',
      info: { title: 't', version: '' },
      requests: [{ topic: 'a:b', request: { type: 'object', properties }, response: { type: 'object' } }],
      events: [],
      components: { schemas: {} },
    }
    writeFileSync(file, JSON.stringify(doc))
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'hostile-format-names')
    const sent = await (mod.b as { send(sender: unknown, request: unknown): Promise<{ status: string }> }).send(
      (await import('../src/runtime/index.js')).createLocalSender({ 'a:b': () => ({}) }),
      { p0: 'anything', p1: '', p2: 'x', p3: 'y' },
    )
    expect(sent.status).toBe('ok')
  })

  it('a NATS binding naming a context or branch field like object machinery is a diagnostic, not an internal error (a locked bundle)', async () => {
    // Was a defect: the binding-type rule looked `context: constructor` up in a plain object and threw
    // ("field?.startsWith is not a function"), a CONTRACTS_INTERNAL instead of NATS_CONTEXT_FIELD.
    const dir = join(import.meta.dirname, '.tmp/hostile-binding-names')
    rmSync(dir, { recursive: true, force: true })
    cpSync(join(import.meta.dirname, '../fixtures/nats/shop'), dir, { recursive: true })
    const edit = (file: string, from: string, to: string) => {
      const text = readFileSync(join(dir, file), 'utf8')
      expect(text).toContain(from)
      writeFileSync(join(dir, file), text.replace(from, to))
    }
    edit('payments/asyncapi/asyncapi.yaml', '{ context: principalId }', '{ context: constructor }')
    edit('shipping/asyncapi/asyncapi.yaml', '{ branch: attempt }', '{ branch: toString }')
    expect(contracts(['lock', dir]).status).toBe(0)
    const codes = async (file: string) => (await compile(join(dir, file))).diagnostics.map((d) => d.code)
    const payments = await codes('payments/asyncapi/asyncapi.yaml')
    const shipping = await codes('shipping/asyncapi/asyncapi.yaml')
    expect(payments).toContain('NATS_CONTEXT_FIELD')
    expect(shipping.length).toBeGreaterThan(0)
    expect([...payments, ...shipping]).not.toContain('CONTRACTS_INTERNAL')
  })

  it('__proto__, constructor and prototype as every kind of NATS name: a working module, nothing polluted, nothing executed', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort()
    const result = await compile(join(hostile, 'proto.asyncapi.yaml'))
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'hostile-proto')
    expect(Object.keys(mod.channels)).toEqual(['__proto__', 'constructor'])
    expect(Object.getPrototypeOf(mod.channels)).toBeNull()
    expect(mod.channels.__proto__).toBe(mod.proto)
    expect(mod.proto.subject.render(JSON.parse('{"__proto__": "constructor", "constructor": "x1"}'))).toBe('proto.constructor.x1')
    expect(mod.proto.subject.parse('proto.__proto__.abc')).toEqual(JSON.parse('{"__proto__": "__proto__", "constructor": "abc"}'))
    expect(Object.getPrototypeOf(mod.proto.subject.parse('proto.__proto__.abc'))).toBe(Object.prototype)
    expect(mod.proto.filters.__proto__.matches('proto.a.b')).toBe(true)
    expect(mod.operations.__proto__).toMatchObject({ id: '__proto__', action: 'send' })
    expect(mod.contract.id).toBe('__proto__')
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before)
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined()
    // And the declarations compile.
    expect(
      typecheck(
        'proto',
        result.dts!,
        "import { proto, channels } from './proto.js'\nexport const s: string = proto.subject.render({ __proto__: 'constructor', constructor: 'x' } as never) + channels.constructor.id\n",
      ),
    ).toBe('')
  })

  it('quotes, backticks, ${, */, </script> and U+2028/U+2029 in every NATS string: escaped, never run, declarations valid', async () => {
    const result = await compile(join(hostile, 'strings.asyncapi.yaml'))
    expect(result.diagnostics).toEqual([])
    for (const text of [result.code!, result.dts!]) {
      expect(text).not.toContain('</script>')
      expect(text).not.toMatch(/[\u2028\u2029]/)
    }
    const mod = await loadModule(result.code!, 'hostile-strings')
    const channelId = "it's`${globalThis.pwned = 3}`"
    expect(Object.keys(mod.channels)).toEqual([channelId])
    expect(mod.channels[channelId].subject.render({ p: 'a' })).toBe('s.a')
    expect(mod.operations['send */ </script>']).toMatchObject({ channel: channelId, source: { pointer: '/operations/send *~1 <~1script>', line: 27 } })
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined()
    expect(
      typecheck(
        'strings',
        result.dts!,
        "import { channels, operations } from './strings.js'\nexport const s: string = channels[\"it's`${globalThis.pwned = 3}`\"].subject.render({ p: 'b' }) + operations['send */ </script>'].channel\n",
      ),
    ).toBe('')
  })

  it('a same-document $ref that names nothing is a diagnostic, not a module missing a part', async () => {
    const dir = join(import.meta.dirname, '.tmp/hostile-refs')
    mkdirSync(dir, { recursive: true })
    const text = readFileSync(join(hostile, 'strings.asyncapi.yaml'), 'utf8').replace("schemas/S\"''`", "schemas/T\"''`")
    writeFileSync(join(dir, 'refs.asyncapi.yaml'), text)
    const result = await compile(join(dir, 'refs.asyncapi.yaml'))
    expect(result.code).toBeUndefined()
    expect(result.diagnostics.map((d) => [d.code, d.pointer, d.line])).toEqual([
      ['NATS_REF_UNRESOLVED', "/channels/it's`${globalThis.pwned = 3}`/messages/m\"'`/payload/$ref", 24],
    ])
  })

  it('DASP setting values carrying quotes, backticks, ${, */, </script>, U+2028/U+2029 and __proto__: data, never code', async () => {
    const result = await compile(join(hostile, 'strings.dasp.json'))
    expect(result.diagnostics).toEqual([])
    for (const text of [result.code!, result.dts!]) {
      expect(text).not.toContain('</script>')
      expect(text).not.toMatch(/[\u2028\u2029]/)
    }
    const mod = await loadModule(result.code!, 'hostile-dasp')
    const commands = mod.selectionRequest.extensions[1].settings.commands
    expect(commands.map((c: { name: string }) => c.name)).toEqual(['counter.add"\'`${globalThis.pwned = 1}`*/</script>\u2028\u2029', '__proto__'])
    expect(Object.isFrozen(commands[0])).toBe(true)
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined()
    expect(typecheck('dasp', result.dts!, "import { selectionRequest } from './dasp.js'\nexport const s: string = selectionRequest.dasp\n")).toBe('')
  })
})
