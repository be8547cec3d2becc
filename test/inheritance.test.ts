/**
 * OpenAPI 3.0 inheritance as .NET producers (Swashbuckle, NSwag) write it: a discriminator on a
 * parent that children extend with `allOf`, closed schemas at every level, a selector its own
 * members extend, a nullable discriminated property. Validators, types and the §5.3 closure.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'

const fixture = join(import.meta.dirname, '../fixtures/benzene/valid/inheritance.spec.json')
const work = join(import.meta.dirname, '.tmp/inheritance')
let mod: Record<string, any>
let dts: string

const tom = { petType: 'Cat', name: 'Tom', huntingSkill: 'lazy' }
const rex = { petType: 'Dog', name: 'Rex' }
const leo = { petType: 'Lion', name: 'Leo', huntingSkill: 'aggressive', maneLength: 30 }
const circle = { kind: 'circle', colour: 'red', radius: 2 }
const services = createLocalSender({
  'pets:adopt': (pet) => ({ pet, adoptedAt: '2024-02-29' }),
  'cats:groom': (cat: any) => ({ ...cat, petType: 'Lion', maneLength: 1 }),
  'shapes:draw': (shape) => shape,
  'cages:assign': () => rex,
})

/** The errors a request gets, as [path, code] pairs; [] when it was sent and answered. */
async function verdict(exportName: string, payload: unknown): Promise<string[][]> {
  const result = await mod[exportName].send(services, payload)
  if (result.status === 'ok') return []
  return result.errors.map((e: { path: string; code: string }) => [e.path, e.code])
}

beforeAll(async () => {
  const result = await compile(fixture)
  expect(result.diagnostics).toEqual([])
  mod = await loadModule(result.code!, 'inheritance')
  dts = result.dts!
})

describe('a discriminator on a parent chooses among the schemas extending it', () => {
  it('each child, a grandchild, and the parent itself (NSwag maps a concrete base) are accepted', async () => {
    for (const pet of [tom, rex, leo, { petType: 'Pet', name: null }]) expect(await verdict('adopt', pet), JSON.stringify(pet)).toEqual([])
  })

  it('the value selects one schema and errors come from it; a value that selects nothing is refused', async () => {
    expect(await verdict('adopt', { petType: 'Lion', name: 'Leo' })).toEqual([['/maneLength', 'required']])
    expect(await verdict('adopt', { petType: 'Dog', name: 'Rex', huntingSkill: 'lazy' })).toEqual([['/huntingSkill', 'additionalProperties']])
    expect(await verdict('adopt', { petType: 'Pet', name: 'x', huntingSkill: 'lazy' })).toEqual([['/huntingSkill', 'additionalProperties']])
    expect(await verdict('adopt', { petType: 'Bird', name: 'x' })).toEqual([['/petType', 'enum']])
    expect(await verdict('adopt', { name: 'x' })).toEqual([['/petType', 'required']])
    // The parent's own required members hold in every child.
    expect(await verdict('adopt', { petType: 'Cat' })).toEqual([['/name', 'required']])
  })

  it('a closed three-level hierarchy (Lion extends Cat extends Pet) is checked as one merged object, both ways', async () => {
    // Request: a Cat is closed to Pet's and Cat's members; response: a Lion admits Lion's too.
    expect(await verdict('groom', tom)).toEqual([])
    expect(await verdict('groom', { ...tom, maneLength: 3 })).toEqual([['/maneLength', 'additionalProperties']])
    const groomed = await mod.groom.send(services, tom)
    expect(groomed.payload).toEqual({ ...tom, petType: 'Lion', maneLength: 1 })
  })

  it('the event message and a response reached through a property are checked by the same choice', async () => {
    expect(mod.events.born.topic).toBe('pets:born')
    const adopted = await mod.adopt.send(services, leo)
    expect(adopted.payload).toEqual({ pet: leo, adoptedAt: '2024-02-29' })
  })
})

describe('a schema that chooses keeps its own properties and required members', () => {
  it('Shape requires colour beside the choice; Circle extends Shape without a cycle', async () => {
    expect(await verdict('draw', circle)).toEqual([])
    expect(await verdict('draw', { kind: 'circle', radius: 2 })).toEqual([['/colour', 'required']])
    expect(await verdict('draw', { kind: 'square', colour: 'red', side: 1 })).toEqual([])
    expect(await verdict('draw', { kind: 'circle', colour: 'red' })).toEqual([['/radius', 'required']])
  })

  it('a nullable discriminated property admits null and the choice alike', async () => {
    expect(await verdict('assign', { cage: 1, occupant: null })).toEqual([])
    expect(await verdict('assign', { cage: 1, occupant: rex })).toEqual([])
    expect(await verdict('assign', { cage: 1, occupant: { petType: 'Pet', name: 'x' } })).toContainEqual(['/occupant/petType', 'enum'])
  })
})

describe('the closure and the hash', () => {
  it("a topic's components stay Contract Document §5.3's closure (no `$ref` names a child); its code still knows the children", () => {
    expect(mod.adopt.components).toEqual(['Adoption', 'Pet'])
    expect(mod.groom.components).toEqual(['Cat', 'Lion', 'Pet'])
    for (const name of ['Cat', 'Dog', 'Lion', 'PetBase']) expect(dts).toContain(`export type ${name} =`)
  })
})

describe('types agree with the validators', () => {
  it('the declarations type every accepted payload and refuse the refused ones (tsc --strict)', () => {
    const r = typecheck(
      work,
      { zoo: dts },
      {
        'use.ts': [
          "import type { Pet, Cat, Lion, Shape, Adoption } from './zoo.js'",
          "import { assign } from './zoo.js'",
          `const pets: Pet[] = [${[tom, rex, leo, { petType: 'Pet', name: null }].map((p) => JSON.stringify(p)).join(', ')}]`,
          `const lion: Lion = ${JSON.stringify(leo)}`,
          `const cat: Cat = lion`,
          `const shape: Shape = ${JSON.stringify(circle)}`,
          "const adoption: Adoption = { pet: pets[0]!, adoptedAt: '2024-02-29' }",
          'type AssignRequest = Parameters<typeof assign.send>[1]',
          'const empty: AssignRequest = { cage: 1, occupant: null }',
          'export const all = [pets, lion, cat, shape, adoption, empty]',
          '// @ts-expect-error a Lion needs maneLength',
          "export const maneless: Pet = { petType: 'Lion', name: 'Leo' }",
          '// @ts-expect-error a Dog is closed: no huntingSkill',
          "export const hunter: Pet = { petType: 'Dog', name: 'Rex', huntingSkill: 'lazy' }",
          '// @ts-expect-error no schema is selected by Bird',
          "export const bird: Pet = { petType: 'Bird', name: 'x' }",
          '// @ts-expect-error Shape requires colour',
          "export const colourless: Shape = { kind: 'circle', radius: 2 }",
        ].join('\n'),
      },
    )
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
