/**
 * Generated payload types and validators are exactly as wide as the contract's schema (issue 30):
 * a payload in the multi-format form (`{schemaFormat, schema}`) is typed and validated like a plain
 * schema, and a schema with object or array keywords but no `type` (which draft-07 lets every other
 * JSON value pass) is typed with those values too. Each case runs the generated module, and checks
 * the generated declarations with tsc --strict (one tsc run for every case of the file).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'

const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const tmp = join(import.meta.dirname, '.tmp')
const QUERY = '        payload: { type: object, properties: { account: { type: string } } }'
const OBJECT_SCHEMA = '{ type: object, required: [note], additionalProperties: false, properties: { note: { type: string, maxLength: 5 } } }'
const NOTE = { note: 'short' }
const LONG = { note: 'far too long' }

/** balanceQuery's payload in each case (YAML at the payload's indentation), and the values both verdicts are taken on. */
const CASES = {
  'multi-draft-07': [
    `        payload:\n          schemaFormat: 'application/schema+json;version=draft-07'\n          schema: ${OBJECT_SCHEMA}`,
    [{}, 42, LONG, NOTE],
  ],
  'multi-asyncapi': [
    `        payload:\n          schemaFormat: 'application/vnd.aai.asyncapi+json;version=3.1.0'\n          schema: ${OBJECT_SCHEMA}`,
    [{}, 42, LONG, NOTE],
  ],
  'multi-yaml-spaced': [
    `        payload:\n          schemaFormat: 'application/schema+yaml; version=draft-07'\n          schema: ${OBJECT_SCHEMA}`,
    [{}, 42, LONG, NOTE],
  ],
  'multi-component': [`        payload: { $ref: '#/components/schemas/Note' }`, [{}, 42, LONG, NOTE]],
  plain: [`        payload: ${OBJECT_SCHEMA}`, [{}, 42, LONG, NOTE]],
  'no-type-object': [
    '        payload: { required: [account], properties: { account: { type: string } } }',
    [5, 'x', null, true, [1], { account: 'a' }, {}, { account: 7 }],
  ],
  'no-type-array': ['        payload: { items: { type: string } }', [5, 'x', null, { a: 1 }, ['a'], [1]]],
  'typed-object': ['        payload: { type: object, required: [account], properties: { account: { type: string } } }', [5, 'x', null, { account: 'a' }]],
} satisfies Record<string, [string, unknown[]]>
type Case = keyof typeof CASES

/** The ledger fixture with balanceQuery's payload replaced (and a multi-format component `Note` added), compiled. */
async function compileCase(name: Case) {
  const edits: Array<[string, string]> = [
    [QUERY, CASES[name][0]],
    [
      'components:\n  messages:\n',
      `components:\n  schemas:\n    Note:\n      schemaFormat: application/schema+json;version=draft-07\n      schema: ${OBJECT_SCHEMA}\n  messages:\n`,
    ],
  ]
  let text = ledger
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`edit did not apply: ${from}`)
    text = text.replace(from, to)
  }
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `payload-width-${process.pid}-${name}.asyncapi.yaml`)
  writeFileSync(file, text)
  try {
    const result = await compile(file)
    const mod = result.code === undefined ? {} : await loadModule(result.code, `payload-width-${name}`)
    return { result, validate: mod.balanceQuery?.validatePayload as ((v: unknown) => boolean) | undefined }
  } finally {
    rmSync(file)
  }
}

type Compiled = Awaited<ReturnType<typeof compileCase>>
const compiled = {} as Record<Case, Compiled>
/** Per case, the values tsc --strict refuses as balanceQuery's payload type. */
const typeRefuses = {} as Record<Case, unknown[]>

beforeAll(async () => {
  const modules: Record<string, string> = {}
  const sources: Record<string, string> = {}
  for (const name of Object.keys(CASES) as Case[]) {
    const c = (compiled[name] = await compileCase(name))
    const module = name.replace(/-/g, '_')
    modules[module] = c.result.dts ?? ''
    // One literal a line, from line 3: an error's line names the value it refuses.
    sources[`${module}.use.ts`] = [
      `import * as contract from './${module}.js'`,
      `type Payload = Exclude<(typeof contract.balanceQuery)['__payload'], undefined>`,
      ...CASES[name][1].map((v, i) => `export const v${i}: Payload = ${JSON.stringify(v)}`),
    ].join('\n')
  }
  const r = typecheck(join(tmp, 'payload-width-types'), modules, sources)
  for (const name of Object.keys(CASES) as Case[]) {
    const file = `${name.replace(/-/g, '_')}.use.ts`
    const lines = new Set([...r.output.matchAll(new RegExp(`${file.replace(/\./g, '\\.')}\\((\\d+),`, 'g'))].map((m) => Number(m[1])))
    typeRefuses[name] = CASES[name][1].filter((_, i) => lines.has(i + 3))
  }
}, 120_000)

const verdicts = (name: Case) => CASES[name][1].map((v) => compiled[name].validate!(v))

describe('a multi-format payload ({schemaFormat, schema}) is typed and validated as its schema', () => {
  it.each(['multi-draft-07', 'multi-asyncapi', 'multi-yaml-spaced', 'multi-component'] as const)(
    '%s: {}, 42 and an over-long text are refused; a valid payload passes',
    (name) => {
      expect(compiled[name].result.diagnostics).toEqual([])
      expect(compiled[name].validate).toBeTypeOf('function')
      expect(verdicts(name)).toEqual([false, false, false, true])
      // The type says what the schema says of types (maxLength is the validator's): {} and 42 are not payloads.
      expect(typeRefuses[name]).toEqual([{}, 42])
    },
  )

  it('the same schema written plainly: the same verdicts and the same type', () => {
    expect(verdicts('plain')).toEqual([false, false, false, true])
    expect(typeRefuses.plain).toEqual([{}, 42])
    const channelType = (name: Case) => /balanceQuery: \$nats\.AddressedChannel<\$Parameters\d+, never, (.*)>;/.exec(compiled[name].result.dts!)?.[1]
    expect(channelType('plain')).toBe('{ note: string; }')
    for (const name of ['multi-draft-07', 'multi-asyncapi', 'multi-yaml-spaced'] as const) expect(channelType(name)).toBe(channelType('plain'))
    expect(channelType('multi-component')).toBe('Note')
    expect(compiled['multi-component'].result.dts).toContain('export type Note = { note: string; };')
  })
})

describe('object and array keywords without `type` admit every other JSON value, in the validator and the type', () => {
  it('properties and required without type: the validator accepts 5, "x" and null, and the type admits them', () => {
    expect(compiled['no-type-object'].result.diagnostics).toEqual([])
    expect(verdicts('no-type-object')).toEqual([true, true, true, true, true, true, false, false])
    // What the schema says of objects still holds in both: {} lacks `account`, 7 is not a string.
    expect(typeRefuses['no-type-object']).toEqual([{}, { account: 7 }])
  })

  it('items without type: the validator accepts 5, "x" and null, and the type admits them', () => {
    expect(verdicts('no-type-array')).toEqual([true, true, true, true, true, false])
    expect(typeRefuses['no-type-array']).toEqual([[1]])
  })

  it('with type: object the same keywords refuse 5, "x" and null, in the validator and the type', () => {
    expect(verdicts('typed-object')).toEqual([false, false, false, true])
    expect(typeRefuses['typed-object']).toEqual([5, 'x', null])
  })
})
