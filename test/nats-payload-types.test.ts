/** Payload types from draft-07 schemas (PayloadTypeWriter) and SemVer precedence for the server check. */
import { describe, expect, it } from 'vitest'
import { PayloadTypeWriter } from '../src/formats/nats/payload-types.js'
import { compareVersions } from '../src/runtime/shared/semver.js'

const components = {
  Node: { type: 'object', required: ['value'], properties: { value: { type: 'integer' }, next: { $ref: '#/components/schemas/Node' } } },
  'my-name': { type: 'string' },
}

describe('PayloadTypeWriter', () => {
  const write = (schema: unknown) => new PayloadTypeWriter(components, new Set()).typeOf(schema)

  it.each([
    ['enum literals', { enum: ['a', 1, null, true] }, '"a" | 1 | null | true'],
    ['a negative const', { const: -2 }, '(-2)'],
    ['a type list', { type: ['string', 'null'] }, '(string | null)'],
    [
      'a closed object',
      { type: 'object', required: ['a'], additionalProperties: false, properties: { a: { type: 'string' }, b: { type: 'number' } } },
      '{ a: string; b?: number; }',
    ],
    ['an open object', { type: 'object', properties: { a: { type: 'boolean' } } }, '{ a?: boolean; [member: string]: unknown; }'],
    ['an array', { type: 'array', items: { type: 'string' } }, 'Array<string>'],
    ['a closed tuple', { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false }, '[(string)?, (number)?]'],
    ['oneOf as a union', { oneOf: [{ type: 'string' }, { type: 'integer' }] }, '(string | number)'],
    [
      'allOf as an intersection',
      { allOf: [{ $ref: '#/components/schemas/Node' }, { type: 'object', properties: { x: {} } }] },
      '(Node) & ({ x?: unknown; [member: string]: unknown; })',
    ],
    ['a reference to another file', { $ref: 'other.yaml#/Thing' }, 'unknown'],
    ['false', false, 'never'],
    // Without `type`, object and array keywords constrain objects and arrays only (draft-07): every other JSON value passes.
    [
      'properties and required without type',
      { required: ['a'], properties: { a: { type: 'string' } } },
      '({ a: string; [member: string]: unknown; } | unknown[] | string | number | boolean | null)',
    ],
    ['items without type', { items: { type: 'string' } }, '({ [member: string]: unknown; } | Array<string> | string | number | boolean | null)'],
    ['a required member no property describes', { type: 'object', required: ['z'] }, '{ z: unknown; [member: string]: unknown; }'],
    ['a required member a closed object cannot have', { type: 'object', required: ['z'], additionalProperties: false }, 'never'],
    ['a closed object without members', { type: 'object', additionalProperties: false }, '{ [member: string]: never; }'],
    [
      'patternProperties keep a closed object open',
      { type: 'object', additionalProperties: false, patternProperties: { '^x': {} } },
      '{ [member: string]: unknown; }',
    ],
    ['enum literals of the type given only', { type: 'integer', enum: [1, 1.5, 'a'] }, '1'],
    ['a const the type excludes', { type: 'string', const: 2 }, 'never'],
    ['a quote in a key', { type: 'object', additionalProperties: false, properties: { 'a"b': { type: 'string' } } }, '{ "a\\"b"?: string; }'],
  ])('%s', (_name, schema, expected) => {
    expect(write(schema)).toBe(expected)
  })

  it('names the components payloads reach, once each, recursion included; format and description as JSDoc', () => {
    const writer = new PayloadTypeWriter(components, new Set())
    expect(writer.typeOf({ $ref: '#/components/schemas/Node' })).toBe('Node')
    expect(writer.typeOf({ $ref: '#/components/schemas/my-name' })).toBe('my_name')
    expect(writer.declarations()).toEqual(['export type Node = { next?: Node; value: number; [member: string]: unknown; };', 'export type my_name = string;'])
    expect(
      new PayloadTypeWriter({}, new Set()).typeOf({
        type: 'object',
        additionalProperties: false,
        properties: { e: { type: 'string', format: 'email', description: 'Who */ </script>' } },
      }),
    ).toBe('{ /** Who *\\/ <\\/script> @format email */ e?: string; }')
  })

  it('stops writing past its depth limit instead of recursing without bound', () => {
    let deep: unknown = { type: 'string' }
    for (let i = 0; i < 500; i++) deep = { type: 'array', items: deep }
    expect(write(deep)).toContain('unknown')
  })
})

describe('compareVersions (SemVer 2.0.0 precedence)', () => {
  it.each([
    ['2.9.10', '2.11.0', -1],
    ['2.11.0', '2.11.0', 0],
    ['2.11.0-rc.1', '2.11.0', -1],
    ['2.11.0-rc.2', '2.11.0-rc.10', -1],
    ['2.11.0-rc.1', '2.11.0-beta', 1],
    ['2.11.0-alpha', '2.11.0-alpha.1', -1],
    ['2.12.1+build.5', '2.12.1', 0],
    ['3.0.0', '2.99.99', 1],
  ])('%s vs %s', (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected)
  })
  it('is undefined for what is not a version', () => {
    expect(compareVersions('2.11', '2.11.0')).toBeUndefined()
    expect(compareVersions('v2.11.0', '2.11.0')).toBeUndefined()
  })
})
