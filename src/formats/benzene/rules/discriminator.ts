import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject, refTarget, type Schema } from '../../../runtime/benzene/document.js'
import { descendantsOf, discriminatorOf, MAX_DISCRIMINATOR_VALUES, mappingTarget, namedDiscriminator } from '../inheritance.js'
import { benzeneRule } from './rule.js'

/**
 * Complexity (each rule here, worst case on any input under the size limits): O(members + mapping)
 * per discriminated schema, and for parents O(descendants), their sum capped by discriminatorSize.
 */

/** Component schema objects -> their names: only a component schema can be a parent. */
function namesOf(catalogue: Readonly<Record<string, Schema>>): Map<unknown, string> {
  const names = new Map<unknown, string>()
  for (const name of Object.keys(catalogue)) names.set(catalogue[name], name)
  return names
}

const membersOf = (schema: Record<string, unknown>) => (Array.isArray(schema.oneOf) ? 'oneOf' : Array.isArray(schema.anyOf) ? 'anyOf' : undefined)

/**
 * A `discriminator` (OpenAPI 3.0 Discriminator Object) needs a `propertyName` and something to
 * choose among: `oneOf`/`anyOf` members, or, on a component schema, the schemas extending it with
 * `allOf: [{ $ref }]` (or a `mapping`); every mapping target must be a schema of the document.
 */
export const discriminatorShape = benzeneRule({
  code: 'BENZENE_INVALID_DISCRIMINATOR',
  description:
    'A `discriminator` without `propertyName`, with nothing to choose among (no `oneOf`/`anyOf`, no schema extending it with `allOf`, no `mapping`), or mapping to a schema that does not exist.',
  check({ facts }, report) {
    const schemas = facts.catalogue
    let names: Map<unknown, string> | undefined
    facts.forEachSchema((schema, where) => {
      if (!isObject(schema) || !('discriminator' in schema)) return
      const at = joinPointer(where(), 'discriminator')
      const d = schema.discriminator
      if (!isObject(d) || typeof d.propertyName !== 'string' || d.propertyName === '') {
        return report(at, 'A discriminator needs a non-empty `propertyName`.')
      }
      const mapping = isObject(d.mapping) ? d.mapping : {}
      for (const [value, target] of Object.entries(mapping)) {
        const name = mappingTarget(target)
        if (name === undefined || !Object.hasOwn(schemas, name)) {
          report(
            joinPointer(at, 'mapping', value),
            `Discriminator value ${JSON.stringify(value)} maps to ${JSON.stringify(target)}, which is not a schema of this document.`,
          )
        }
      }
      if (membersOf(schema)) return
      // Built on the first parent only: most documents have none.
      const name = (names ??= namesOf(schemas)).get(schema)
      if (name === undefined || namedDiscriminator(name, facts) === undefined) {
        report(
          at,
          'A discriminator chooses among `oneOf`/`anyOf` members, or, on a component schema, among the schemas extending it with `allOf: [{ $ref }]`; this schema has neither.',
        )
      }
    })
  },
})

/**
 * OpenAPI 3.0: a discriminator selects schemas by name, so an inline `oneOf`/`anyOf` member is
 * never selected; it is legal (a payload without a selecting value may still match it), so a warning.
 */
export const discriminatorInlineMember = benzeneRule({
  code: 'BENZENE_DISCRIMINATOR_INLINE_MEMBER',
  severity: 'warning',
  description: 'A discriminated `oneOf`/`anyOf` has an inline member, which no discriminator value can select.',
  check({ facts }, report) {
    facts.forEachSchema((schema, where) => {
      if (!isObject(schema) || !isObject(schema.discriminator)) return
      const key = membersOf(schema)
      if (!key) return
      ;(schema[key] as unknown[]).forEach((member, i) => {
        if (isObject(member) && refTarget(member.$ref) === undefined) {
          report(
            joinPointer(where(), key, i),
            'No discriminator value selects an inline member: a payload is checked against it only when its discriminator value selects no other. Make it a component schema and `$ref` it to select it.',
          )
        }
      })
    })
  },
})

/**
 * Each value of a parent's discriminator is a branch of its validator and of its type, and a
 * parent chooses among all its descendants: a long chain of parents would make that quadratic.
 */
export const discriminatorSize = benzeneRule({
  code: 'BENZENE_DISCRIMINATOR_TOO_LARGE',
  // Digits grouped by hand: `toLocaleString` would load ICU, ~9 ms of every process's start.
  description: `The parents' discriminators, and the alternatives a parent's discriminator chooses among, choose among more than ${String(MAX_DISCRIMINATOR_VALUES).replace(/\B(?=(\d{3})+$)/g, ',')} schemas together (unsupported).`,
  check({ facts }, report) {
    const schemas = facts.catalogue
    let total = 0
    const tooMany = (pointer: string) =>
      report(
        pointer,
        `The parents' discriminators choose among more than ${MAX_DISCRIMINATOR_VALUES} schemas together; the generator does not take on that much work (unsupported).`,
        { limit: MAX_DISCRIMINATOR_VALUES },
      )
    for (const name of Object.keys(schemas)) {
      const schema = schemas[name]
      if (!isObject(schema) || !isObject(schema.discriminator) || membersOf(schema)) continue
      total += descendantsOf(name, facts, MAX_DISCRIMINATOR_VALUES - total).length
      if (total > MAX_DISCRIMINATOR_VALUES) return tooMany(joinPointer('', 'components', 'schemas', name, 'discriminator'))
    }
    // A parent's family listed as alternatives (inheritance.ts) is a choice of its own, written out
    // wherever it stands: its values count too, or a thousand such lists would each repeat a large family.
    let stop = false
    facts.forEachSchema((schema, where) => {
      if (stop || !isObject(schema) || 'discriminator' in schema) return
      const key = membersOf(schema)
      if (!key) return
      total += discriminatorOf(schema, facts)?.values.length ?? 0
      if (total > MAX_DISCRIMINATOR_VALUES) {
        stop = true
        tooMany(joinPointer(where(), key))
      }
    })
  },
})
