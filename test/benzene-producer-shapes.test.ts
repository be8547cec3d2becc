/**
 * The shapes .NET producers write for nullable members, polymorphism and integer formats, held to
 * what their services send: `fixtures/benzene/valid/producer-shapes.spec.json` carries
 * - ASP.NET Core's nullable complex and enum members: `{type: object, oneOf: [{$ref}], nullable: true}`,
 *   `{type: integer, oneOf: [{$ref: enum}], nullable: true}`, `{type: object, allOf: [{$ref}], nullable: true}`;
 * - ASP.NET Core's integer type discriminators: mapping keys "0", "1" while payloads carry `$type: 0`;
 * - Swashbuckle's `oneOf: [Animal, Cat, Dog]` beside `Animal`'s discriminator, and NSwag's
 *   `oneOf: [Car, Bike]` under an abstract parent that is not listed;
 * - a readOnly member in a request, int64 and int32 ranges.
 * Each class: accepted payloads and refused ones (error path and keyword asserted), in both validator
 * modes (generated code and data for the interpreter), and every accepted payload type-checks
 * against the sidecar under `tsc --strict` while the refused ones that types can see do not.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'

const fixture = join(import.meta.dirname, '../fixtures/benzene/valid/producer-shapes.spec.json')
const work = join(import.meta.dirname, '.tmp/producer-shapes')

interface Case {
  topic: string
  /** The export that sends it, and the request type and response type the sidecar names. */
  client: string
  direction: 'request' | 'response'
  payload: unknown
  /** Undefined when valid; else an error the refusal must carry: [path, keyword]. */
  refused?: [path: string, keyword: string]
  /** The type refuses it too (a `// @ts-expect-error` line). */
  typeRefuses?: boolean
}

const TYPES: Record<string, [request: string, response: string]> = {
  customersSave: ['CustomerInput', 'Customer'],
  drawingsSave: ['Drawing', 'Drawing'],
  adopt: ['Adoption', 'Adoption'],
  park: ['Garage', 'Void'],
}

const customer = { name: 'Ada' }
const cases: Case[] = [
  // Nullable beside a type and a composition (ASP.NET Core).
  ...(['request', 'response'] as const).flatMap((direction): Case[] => [
    { topic: 'customers:save', client: 'customersSave', direction, payload: { ...customer, address: null, status: null, billing: null } },
    {
      topic: 'customers:save',
      client: 'customersSave',
      direction,
      payload: { ...customer, address: { city: 'Oslo', zip: null }, status: 2, billing: { city: 'Bergen' } },
    },
    {
      topic: 'customers:save',
      client: 'customersSave',
      direction,
      payload: { ...customer, address: 'Oslo' },
      refused: ['/address', 'type'],
      typeRefuses: true,
    },
    { topic: 'customers:save', client: 'customersSave', direction, payload: { ...customer, status: 3 }, refused: ['/status', 'enum'], typeRefuses: true },
    {
      topic: 'customers:save',
      client: 'customersSave',
      direction,
      payload: { ...customer, billing: { zip: '0150' } },
      refused: ['/billing/city', 'required'],
      typeRefuses: true,
    },
  ]),
  // readOnly in a request: SHOULD NOT be sent, not forbidden; required only in responses.
  { topic: 'customers:save', client: 'customersSave', direction: 'request', payload: { ...customer, id: 7 } },
  {
    topic: 'customers:save',
    client: 'customersSave',
    direction: 'request',
    payload: { ...customer, id: 'seven' },
    refused: ['/id', 'type'],
    typeRefuses: true,
  },
  // int64 as a number: the double range of -2^63 ... 2^63 (2^63 is how JSON.parse reads 9223372036854775807); int32 exactly.
  { topic: 'customers:save', client: 'customersSave', direction: 'request', payload: { ...customer, balance: -9223372036854775808 } },
  { topic: 'customers:save', client: 'customersSave', direction: 'response', payload: JSON.parse('{"name":"Ada","balance":9223372036854775807}') },
  { topic: 'customers:save', client: 'customersSave', direction: 'request', payload: { ...customer, balance: 1e19 }, refused: ['/balance', 'maximum'] },
  { topic: 'customers:save', client: 'customersSave', direction: 'response', payload: { ...customer, balance: -1e19 }, refused: ['/balance', 'minimum'] },
  { topic: 'customers:save', client: 'customersSave', direction: 'request', payload: { ...customer, visits: 2147483648 }, refused: ['/visits', 'maximum'] },
  // Integer discriminator values (ASP.NET Core): `$type: 0` selects the schema mapped by "0".
  ...(['request', 'response'] as const).flatMap((direction): Case[] => [
    {
      topic: 'drawings:save',
      client: 'drawingsSave',
      direction,
      payload: {
        shapes: [
          { $type: 0, radius: 1.5 },
          { $type: 1, side: 2 },
        ],
      },
    },
    {
      topic: 'drawings:save',
      client: 'drawingsSave',
      direction,
      payload: { shapes: [{ $type: 0, side: 2 }] },
      refused: ['/shapes/0/radius', 'required'],
      typeRefuses: true,
    },
    {
      topic: 'drawings:save',
      client: 'drawingsSave',
      direction,
      payload: { shapes: [{ $type: 2, side: 2 }] },
      refused: ['/shapes/0/$type', 'enum'],
      typeRefuses: true,
    },
    // The string form of the key selects too, and the selected schema's own `$type: {enum: [0]}` refuses it.
    {
      topic: 'drawings:save',
      client: 'drawingsSave',
      direction,
      payload: { shapes: [{ $type: '0', radius: 1 }] },
      refused: ['/shapes/0/$type', 'enum'],
      typeRefuses: true,
    },
  ]),
  // oneOf [Animal, Cat, Dog] beside Animal's discriminator (Swashbuckle): the value selects the member.
  ...(['request', 'response'] as const).flatMap((direction): Case[] => [
    { topic: 'pets:adopt', client: 'adopt', direction, payload: { pet: { $type: 'Cat', name: 'Tom', lives: 9 } } },
    { topic: 'pets:adopt', client: 'adopt', direction, payload: { pet: { $type: 'Dog', name: 'Rex', barks: true } } },
    { topic: 'pets:adopt', client: 'adopt', direction, payload: { pet: { $type: 'Animal', name: 'Generic' } } },
    {
      topic: 'pets:adopt',
      client: 'adopt',
      direction,
      payload: { pet: { $type: 'Cat', name: 'Tom', barks: true } },
      refused: ['/pet/barks', 'additionalProperties'],
      typeRefuses: true,
    },
    {
      topic: 'pets:adopt',
      client: 'adopt',
      direction,
      payload: { pet: { $type: 'Dog', name: 'Rex' } },
      refused: ['/pet/barks', 'required'],
      typeRefuses: true,
    },
    {
      topic: 'pets:adopt',
      client: 'adopt',
      direction,
      payload: { pet: { $type: 'Animal', name: 'Generic', lives: 1 } },
      refused: ['/pet/lives', 'additionalProperties'],
      typeRefuses: true,
    },
    { topic: 'pets:adopt', client: 'adopt', direction, payload: { pet: { $type: 'Fish', name: 'Nemo' } }, refused: ['/pet/$type', 'enum'], typeRefuses: true },
  ]),
  // oneOf [Car, Bike] under an abstract parent that is not listed (NSwag): open schemas no longer make both match.
  { topic: 'garages:park', client: 'park', direction: 'request', payload: { vehicle: { kind: 'Car', doors: 4 } } },
  { topic: 'garages:park', client: 'park', direction: 'request', payload: { vehicle: { kind: 'Bike', gears: 21 } } },
  {
    topic: 'garages:park',
    client: 'park',
    direction: 'request',
    payload: { vehicle: { kind: 'Car', doors: 'four' } },
    refused: ['/vehicle/doors', 'type'],
    typeRefuses: true,
  },
  {
    topic: 'garages:park',
    client: 'park',
    direction: 'request',
    payload: { vehicle: { kind: 'Vehicle' } },
    refused: ['/vehicle/kind', 'enum'],
    typeRefuses: true,
  },
]

/** The verdict of one module on one case: undefined when accepted, else every error's path and keyword. */
async function verdict(mod: Record<string, any>, c: Case): Promise<Array<[string, string]> | undefined> {
  const request =
    c.direction === 'request'
      ? c.payload
      : c.topic === 'garages:park'
        ? { vehicle: { kind: 'Car' } }
        : c.topic === 'pets:adopt'
          ? { pet: { $type: 'Cat', name: 'T' } }
          : c.topic === 'drawings:save'
            ? { shapes: [] }
            : customer
  const sender = createLocalSender({ [c.topic]: () => (c.direction === 'response' ? c.payload : c.topic === 'garages:park' ? {} : request) })
  const result = await mod[c.client].send(sender, request)
  if (result.isSuccessful) return undefined
  return result.errors.map((error: { path: string; code: string }) => [error.path, error.code.replace(/^response:/, '')])
}

const modules: Record<string, Record<string, any>> = {}
let dts = ''

beforeAll(async () => {
  const code = await compile(fixture)
  const data = await compile(fixture, { benzene: { validators: 'data' } })
  expect(code.diagnostics).toEqual([])
  expect(data.diagnostics).toEqual([])
  modules.code = await loadModule(code.code!, 'producer-shapes')
  modules.data = await loadModule(data.code!, 'producer-shapes-data')
  dts = code.dts!
})

describe('what .NET producers write is accepted at run time, and what breaks it is refused where it breaks', () => {
  for (const mode of ['code', 'data']) {
    it.each(cases.map((c) => [`${c.direction} ${JSON.stringify(c.payload)}`, c] as const))(`${mode}: %s`, async (_name, c) => {
      const errors = await verdict(modules[mode]!, c)
      if (c.refused) expect(errors).toContainEqual(c.refused)
      else expect(errors).toBeUndefined()
    })
  }

  it('int64 as decimal strings is range-checked exactly', async () => {
    const mod = await loadModule((await compile(fixture, { benzene: { int64: 'string' } })).code!, 'producer-shapes-int64')
    const send = async (balance: string) =>
      (await mod.customersSave.send(createLocalSender({ 'customers:save': () => customer }), { ...customer, balance })).isSuccessful
    for (const ok of ['0', '-0', '42', '9223372036854775807', '-9223372036854775808', '000000000000000001']) expect(await send(ok), ok).toBe(true)
    for (const bad of ['9223372036854775808', '-9223372036854775809', '10000000000000000000', '1e3', '', '+1', '0x10']) expect(await send(bad), bad).toBe(false)
  })

  it('every accepted payload type-checks against the sidecar under tsc --strict, and the refusals types can see do not', () => {
    const lines = ["import type * as T from './shapes.js'"]
    cases.forEach((c, i) => {
      const type = TYPES[c.client]![c.direction === 'request' ? 0 : 1]
      if (c.refused && !c.typeRefuses) return
      if (c.refused) lines.push(`// @ts-expect-error ${c.refused.join(' ')}`)
      lines.push(`export const case${i}: T.${type} = ${JSON.stringify(c.payload)}`)
    })
    const r = typecheck(work, { shapes: dts }, { 'use.ts': lines.join('\n') })
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
