import canonicalize from 'canonicalize'
import { CLOUDEVENTS_TYPES } from '../../../runtime/dasp/cloudevents-types.js'
import { ENCRYPTED_CARRIER } from '../../../runtime/dasp/index.js'
import { identityKey, type DaspContext, type Definition } from '../context.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the definitions' attributes; conflicts through one map of names, each compared as canonical JSON. */

/** Standard CloudEvents context attributes (required, optional and the JSON format's data members) and requestid. */
export const RESERVED_ATTRIBUTES = new Set([
  'specversion',
  'id',
  'source',
  'type',
  'datacontenttype',
  'dataschema',
  'subject',
  'time',
  'data',
  'data_base64',
  'requestid',
])

/** Every attribute of every definition that is an object, with its definition and index. */
const attributes = (ctx: DaspContext) =>
  ctx.definitions.flatMap((d) =>
    Array.isArray(d.value.attributes) ? d.value.attributes.map((a: unknown, i: number) => ({ d, a, i })).filter((x: { a: unknown }) => isObject(x.a)) : [],
  ) as Array<{ d: Definition; a: Record<string, any>; i: number }>

export const attributeName = daspRule({
  code: 'DASP_ATTRIBUTE_NAME',
  description: 'An attribute name that is not lowercase ASCII letters and digits, or that redefines a standard CloudEvents attribute or requestid.',
  check(ctx, report) {
    for (const { d, a, i } of attributes(ctx)) {
      // A name that is missing or not a string is the shape's problem.
      if (typeof a.name !== 'string') continue
      if (!/^[a-z0-9]+$/.test(a.name))
        report.in(d.file, `/attributes/${i}/name`, `Attribute name ${JSON.stringify(a.name)} must be lowercase ASCII letters and digits.`)
      else if (RESERVED_ATTRIBUTES.has(a.name))
        report.in(d.file, `/attributes/${i}/name`, `${a.name} is a standard CloudEvents attribute or requestid; an extension cannot redefine it.`)
    }
  },
})

/** CloudEvents 1.0.2, Attribute Naming Convention: names SHOULD NOT exceed 20 characters. */
const TERSE_NAME = 20

/**
 * DASP-EXT-006: "Definitions SHOULD keep names short", and CloudEvents says an attribute name SHOULD
 * NOT exceed 20 characters (some transports carry names in size-limited headers): a warning.
 */
export const attributeNameLength = daspRule({
  code: 'DASP_ATTRIBUTE_NAME_LENGTH',
  severity: 'warning',
  description: 'An attribute name longer than 20 characters (CloudEvents and DASP-EXT-006: SHOULD be terse).',
  check(ctx, report) {
    for (const { d, a, i } of attributes(ctx)) {
      if (typeof a.name === 'string' && /^[a-z0-9]+$/.test(a.name) && a.name.length > TERSE_NAME)
        report.in(
          d.file,
          `/attributes/${i}/name`,
          `Attribute name ${JSON.stringify(a.name)} has ${a.name.length} characters; CloudEvents names SHOULD NOT exceed ${TERSE_NAME}.`,
        )
    }
  },
})

export const attributeType = daspRule({
  code: 'DASP_ATTRIBUTE_TYPE',
  description: 'An attribute type outside the CloudEvents type system, or an attribute without its event types or class.',
  check(ctx, report) {
    for (const { d, a, i } of attributes(ctx)) {
      if (typeof a.type === 'string' && !CLOUDEVENTS_TYPES.includes(a.type as never))
        report.in(d.file, `/attributes/${i}/type`, `Attribute type ${JSON.stringify(a.type)} is not a CloudEvents type (${CLOUDEVENTS_TYPES.join(', ')}).`)
      if ((!Array.isArray(a.on) || a.on.length === 0) && !ctx.unreadable(d.file, `/attributes/${i}/on`))
        report.in(d.file, `/attributes/${i}`, 'An attribute names the event types that may carry it (on).')
      if (a.class !== 'saved' && a.class !== 'delivery' && !ctx.unreadable(d.file, `/attributes/${i}/class`))
        report.in(d.file, `/attributes/${i}${'class' in a ? '/class' : ''}`, 'An attribute is saved event data or delivery metadata (class: saved | delivery).')
    }
  },
})

export const attributePlacement = daspRule({
  code: 'DASP_ATTRIBUTE_PLACEMENT',
  description: "An attribute allowed on an event type its definition's operations do not name.",
  check(ctx, report) {
    for (const { d, a, i } of attributes(ctx)) {
      // Operations missing (DASP_DEFINITION_INCOMPLETE) or malformed (the shape's) name nothing to compare with.
      if (!Array.isArray(d.value.operations) || ctx.unreadableWithin(d.file, '/operations')) continue
      const operations: unknown[] = d.value.operations
      for (const type of Array.isArray(a.on) ? a.on : []) {
        // The carrier is DASP_CARRIER_ATTRIBUTE's, whatever the operations say.
        if (typeof type === 'string' && type !== ENCRYPTED_CARRIER && !operations.includes(type))
          report.in(
            d.file,
            `/attributes/${i}/on`,
            `${String(a.name)} is allowed on ${JSON.stringify(type)}, which is not an operation of this extension (${operations.join(', ')}).`,
          )
      }
    }
  },
})

export const attributeConflict = daspRule({
  code: 'DASP_ATTRIBUTE_CONFLICT',
  description: 'Two selected definitions define one attribute name differently, or one definition defines a name twice.',
  check(ctx, report) {
    const selected = new Set(ctx.requested.map((e) => identityKey(e.uri, e.version)))
    const seen = new Map<string, { d: Definition; a: Record<string, any>; i: number }>()
    for (const { d, a, i } of attributes(ctx)) {
      if (!selected.has(identityKey(d.uri, d.version)) || typeof a.name !== 'string') continue
      const other = seen.get(a.name)
      // One definition defining a name twice conflicts with itself, even with equal text.
      if (other && other.d === d)
        report.in(d.file, `/attributes/${i}`, `Attribute ${a.name} is defined twice in ${d.uri} ${d.version} (attributes/${other.i}).`)
      else if (other && canonicalize(other.a) !== canonicalize(a))
        report.in(d.file, `/attributes/${i}`, `Attribute ${a.name} is also defined, differently, by ${other.d.uri} ${other.d.version}.`)
      else if (!other) seen.set(a.name, { d, a, i })
    }
  },
})
