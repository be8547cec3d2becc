/**
 * `contracts diff` (NATS) compares headers schemas as what headers are: maps of names to strings
 * (docs/nats.md, "What it compares"; src/formats/nats/diff/header-maps.ts). Before, the schema
 * engine compared them over every JSON value and called breaking what no peer can send: a header
 * property typed as a string added to an open schema (witness `{"x": null}`), a header's type
 * narrowed from string-or-integer to string (witness `{"x": 0}`), a headers schema added that takes
 * every map of strings. Each case here has its near case that still breaks, with a witness that is
 * a map of strings the old schema takes and the new one refuses.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { schemaAccepts } from '../src/core/diff/schema-diff.js'
import type { DiffFinding } from '../src/core/diff/types.js'
import { natsChannelDocument as document, withComponentSchemas } from './helpers/nats-mini.js'
import { diffNatsTexts } from './helpers/nats-diff-texts.js'

/** The folder of the last diff (a test's own: removed when the test finishes). */
let dir = ''

async function diff(old: string, next: string): Promise<DiffFinding[]> {
  const diffed = await diffNatsTexts('nats-diff-header-maps', old, next)
  dir = diffed.folder
  return diffed.findings
}

/** One message `m` with these headers (YAML flow text; none when undefined) and an object payload. */
const withHeaders = (headers: string | undefined) => document({ m: `{ ${headers === undefined ? '' : `headers: ${headers}, `}payload: { type: object } }` })
const levels = (findings: DiffFinding[]) => findings.map((f) => [f.rule, f.level])
const side = (schema: unknown) => ({ file: 'x', document: { s: schema }, pointer: '/s', resolve: () => undefined })

/** The finding's witness, which must be a map of strings the old schema takes and the new refuses (a narrowing). */
function narrowingWitness(finding: DiffFinding, old: unknown, next: unknown): Record<string, string> {
  const { value, acceptedBy } = (finding.data as { witness: { value: Record<string, string>; acceptedBy: string } }).witness
  expect(acceptedBy).toBe('old')
  expect(
    Object.values(value).every((v) => typeof v === 'string'),
    JSON.stringify(value),
  ).toBe(true)
  expect([schemaAccepts(side(old), value), schemaAccepts(side(next), value)]).toEqual([true, false])
  return value
}

describe('headers compared as maps of strings', () => {
  it('a header typed as a string added to an open schema breaks no sender; one bounded in length does', async () => {
    expect(levels(await diff(withHeaders('{ type: object }'), withHeaders('{ type: object, properties: { x: { type: string } } }')))).toEqual([
      ['schema-property-added', 'info'],
    ])
    const bounded = '{ type: object, properties: { x: { type: string, maxLength: 3 } } }'
    const findings = await diff(withHeaders('{ type: object }'), withHeaders(bounded))
    const narrowed = findings.find((f) => f.rule === 'schema-max-length-decreased')!
    expect(narrowed.level).toBe('breaking')
    const schema = { type: 'object', properties: { x: { type: 'string', maxLength: 3 } } }
    expect(narrowingWitness(narrowed, { type: 'object' }, schema).x!.length).toBeGreaterThan(3)
  })

  it("a header's type narrowed to string, or its enum's other values dropped, is no change; a string value dropped is", async () => {
    const typed = (type: string) => `{ type: object, properties: { x: { type: ${type} } } }`
    expect(levels(await diff(withHeaders(typed('[string, integer]')), withHeaders(typed('string'))))).toEqual([])
    const listed = (values: string) => `{ type: object, properties: { x: { enum: [${values}] } } }`
    expect(levels(await diff(withHeaders(listed('a, 1, true')), withHeaders(listed('a'))))).toEqual([])
    const [dropped] = await diff(withHeaders(listed('a, b, 1')), withHeaders(listed('a, 1')))
    expect([dropped!.rule, dropped!.level]).toEqual(['schema-enum-value-removed', 'breaking'])
    expect(
      narrowingWitness(dropped!, { type: 'object', properties: { x: { enum: ['a', 'b'] } } }, { type: 'object', properties: { x: { enum: ['a'] } } }),
    ).toEqual({ x: 'b' })
  })

  it('a headers schema added that takes every map of strings breaks no sender; one that requires a header does', async () => {
    const [open] = await diff(withHeaders(undefined), withHeaders('{ type: object, additionalProperties: { type: string } }'))
    expect([open!.rule, open!.level]).toEqual(['message-headers-added', 'info'])
    const [required] = await diff(withHeaders(undefined), withHeaders('{ type: object, required: [x] }'))
    expect([required!.rule, required!.level]).toEqual(['message-headers-added', 'breaking'])
  })

  it('a headers schema named by a $ref is read at its target', async () => {
    const named = (schema: unknown) => withComponentSchemas(withHeaders("{ $ref: '#/components/schemas/H' }"), { H: schema })
    const typed = (type: unknown) => ({ type: 'object', properties: { x: { type } } })
    expect(levels(await diff(named(typed(['string', 'integer'])), named(typed('string'))))).toEqual([])
    // A header's schema named by a $ref too.
    const viaRef = (type: unknown) =>
      withComponentSchemas(withHeaders("{ type: object, properties: { x: { $ref: '#/components/schemas/X' } } }"), { X: { type } })
    expect(levels(await diff(viaRef(['string', 'integer']), viaRef('string')))).toEqual([])
    const bounded = { type: 'object', properties: { x: { type: 'string', maxLength: 2 } } }
    const findings = await diff(named(typed('string')), named(bounded))
    const narrowed = findings.find((f) => f.rule === 'schema-max-length-decreased')!
    expect(narrowed.level).toBe('breaking')
    expect(narrowed.new!.pointer).toBe('/components/schemas/H/properties/x/maxLength')
    narrowingWitness(narrowed, typed('string'), bounded)
  })

  it('an open map closed: breaking, placed at nodes each version has (the open side wrote no additionalProperties)', async () => {
    const old = withHeaders('{ type: object }')
    const findings = await diff(old, withHeaders('{ type: object, additionalProperties: false }'))
    const closed = findings.find((f) => f.rule === 'schema-additional-properties-closed')!
    expect(closed.level).toBe('breaking')
    expect([closed.old!.pointer, closed.new!.pointer]).toEqual(['/channels/c/messages/m/headers', '/channels/c/messages/m/headers/additionalProperties'])
    // Each pointer names a node of its version as written, on the line the location gives.
    const oldText = readFileSync(join(dir, 'old.asyncapi.yaml'), 'utf8').split('\n')
    expect(oldText[closed.old!.line - 1]).toContain('headers: { type: object }')
    narrowingWitness(closed, { type: 'object' }, { type: 'object', additionalProperties: false })
  })

  it('headers composed with allOf of named schemas are read member by member; under a `not`, which the reading cannot write, a change only a JSON value no peer can send would show is a warning, never a break', async () => {
    const composed = (type: unknown) =>
      withComponentSchemas(withHeaders("{ allOf: [{ $ref: '#/components/schemas/Trace' }, { $ref: '#/components/schemas/Auth' }] }"), {
        Trace: { type: 'object', properties: { x: { type } } },
        Auth: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
      })
    expect(levels(await diff(composed(['string', 'integer']), composed('string')))).toEqual([])
    const negated = (type: string) => `{ type: object, not: { required: [x], properties: { x: { type: ${type} } } } }`
    const findings = await diff(withHeaders(negated('integer')), withHeaders(negated('[integer, boolean]')))
    expect(findings.length).toBeGreaterThan(0)
    for (const f of findings) {
      expect([f.rule, f.level]).toEqual([f.rule, 'warning'])
      expect(f.message).toMatch(/not proven/)
      expect(f.data).not.toHaveProperty('witness')
    }
  })

  it('a `Nats-` header one version names and the other does not: compared as each client checks it (the other leaves it out)', async () => {
    // A closed map: the old client leaves `Nats-Foo` out of what it checks (it does not name it), the new one checks it.
    const closed = '{ type: object, additionalProperties: false, properties: { x: { type: string } } }'
    const naming = '{ type: object, additionalProperties: false, properties: { x: { type: string }, Nats-Foo: { type: string, enum: [a] } } }'
    const added = await diff(withHeaders(closed), withHeaders(naming))
    const kinds = (f: DiffFinding) => [...new Set(f.audiences.map((a) => a.kind))]
    // Publishers break (the old client sends any `Nats-Foo`, the new one takes only `a`), subscribers do not.
    expect(added.filter((f) => f.level === 'breaking').map(kinds)).toEqual([['publisher']])
    expect(added.map((f) => [f.rule, f.level])).toEqual([['schema-enum-added', 'breaking']])
    // The other way: subscribers break, publishers do not.
    const dropped = await diff(withHeaders(naming), withHeaders(closed))
    expect(dropped.filter((f) => f.level === 'breaking').map(kinds)).toEqual([['subscriber']])
    expect(dropped.map((f) => [f.rule, f.level])).toEqual([['schema-enum-removed', 'breaking']])
  })

  it('a witness with white space at an end, which nats.js would trim (no client sends it), proves nothing: a warning', async () => {
    const typed = (extra: string) => `{ type: object, properties: { x: { type: string${extra} } } }`
    const findings = await diff(withHeaders(typed('')), withHeaders(typed(", pattern: '^$|^[^ \\t]'")))
    expect(findings.map((f) => f.level)).not.toContain('breaking')
    // A pattern that refuses sendable values still breaks, with a sendable witness.
    const [digits] = await diff(withHeaders(typed('')), withHeaders(typed(", pattern: '^[0-9]+$'")))
    expect(digits!.level).toBe('breaking')
    const { value } = (digits!.data as { witness: { value: Record<string, string> } }).witness
    expect(value.x!.trim()).toBe(value.x)
  })

  it('header names limited to what a client sends anyway (no colon, printable ASCII) is never breaking; names limited further break, with a name as witness', async () => {
    const named = (names: string) => `{ type: object, propertyNames: ${names} }`
    for (const pattern of ["'^[^:]*$'", "'^[!-9;-~]+$'"]) {
      const findings = await diff(withHeaders('{ type: object }'), withHeaders(named(`{ pattern: ${pattern} }`)))
      expect(findings.map((f) => f.level)).not.toContain('breaking')
    }
    const [short] = (await diff(withHeaders('{ type: object }'), withHeaders(named('{ maxLength: 3 }')))).filter((f) => f.level === 'breaking')
    const { value } = (short!.data as { witness: { value: Record<string, string> } }).witness
    expect(Object.keys(value).every((name) => name.length > 3)).toBe(true)
  })
})

describe('a headers change both ways', () => {
  // The payload's findings carried a witness for each direction; the headers' carried one.
  it('carries a witness for each direction, each a map of strings one version takes and the other refuses', async () => {
    const patterned = (pattern: string) => `{ type: object, properties: { x: { type: string, pattern: '${pattern}' } } }`
    const findings = await diff(withHeaders(patterned('^e')), withHeaders(patterned('^u')))
    const changed = findings.find((f) => (f.data as { effect?: string }).effect === 'both')!
    expect(changed.level).toBe('breaking')
    const witnesses = (changed.data as { witnesses: Array<{ value: Record<string, string>; acceptedBy: string }> }).witnesses
    expect(witnesses.map((w) => w.acceptedBy).sort()).toEqual(['new', 'old'])
    const schema = (pattern: string) => ({ type: 'object', properties: { x: { type: 'string', pattern } } })
    for (const w of witnesses) {
      expect(Object.values(w.value).every((v) => typeof v === 'string')).toBe(true)
      const accepted = [schemaAccepts(side(schema('^e')), w.value), schemaAccepts(side(schema('^u')), w.value)]
      expect(accepted).toEqual(w.acceptedBy === 'old' ? [true, false] : [false, true])
    }
  })
})
