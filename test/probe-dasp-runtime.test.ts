/**
 * The DASP runtime's `checkPlacement`, probed from outside: attribute rules are read as JSON data, so
 * a rule whose `type` is data that is not a CloudEvents type name (an object with a `toString`
 * member, a list, a number) still gives a readable event its verdict, `invalid` for the attribute,
 * and never `unreadable` (which says the event could not be read). Imported as generated modules
 * import it.
 */
import fc from 'fast-check'
import * as runtime from 'unplugin-contracts/runtime/dasp'
import { describe, expect, it } from 'vitest'

const runs = Number(process.env.PROPERTY_RUNS ?? 200)

/** Rule types that are JSON data but no CloudEvents type: members named like Object.prototype's methods included. */
const notAType = fc.oneof(
  fc.jsonValue().filter((v) => !(typeof v === 'string' && (runtime.CLOUDEVENTS_TYPES as readonly string[]).includes(v))),
  fc
    .subarray(['toString', 'valueOf', 'constructor', 'toJSON', '__proto__', 'hasOwnProperty'], { minLength: 1 })
    .chain((keys) => fc.tuple(fc.constant(keys), fc.array(fc.jsonValue(), { minLength: keys.length, maxLength: keys.length })))
    .map(([keys, values]) => JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, values[i]]))))),
)

describe('checkPlacement on rules whose type is no CloudEvents type', () => {
  it('an object type with a toString member: the readable event is invalid for the attribute, not unreadable', () => {
    const rules = JSON.parse('[{"name":"daspaudit","type":{"toString":1},"on":["dasp.v1.command"]}]')
    expect(runtime.checkPlacement(rules, { type: 'dasp.v1.command', daspaudit: 'x' })).toMatchObject({ ok: false, code: 'invalid', attribute: 'daspaudit' })
  })

  it('any JSON data as the type: a present attribute is invalid, never unreadable, and the reason names the type as JSON (property)', () => {
    fc.assert(
      fc.property(notAType, fc.oneof(fc.string(), fc.integer(), fc.boolean()), (type, value) => {
        const check = runtime.checkPlacement([{ name: 'daspaudit', type, on: ['dasp.v1.command'] }] as never, { type: 'dasp.v1.command', daspaudit: value })
        expect(check).toMatchObject({ ok: false, code: 'invalid', attribute: 'daspaudit' })
        expect((check as { reason: string }).reason).not.toContain('[object Object]')
      }),
      { numRuns: runs },
    )
  })
})
