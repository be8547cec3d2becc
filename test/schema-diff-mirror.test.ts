/**
 * The mirror test: every schema rule names its counterpart for the other direction (a rule that
 * exists, whose nominal effect is the opposite, and which names it back), or says why it has none.
 */
import { describe, expect, it } from 'vitest'
import { SCHEMA_DIFF_RULES } from '../src/core/diff/schema-diff.js'
import { SCHEMA_RULE_EFFECTS } from '../src/core/diff/schema/rules.js'

const OPPOSITE: Record<string, string> = { widens: 'narrows', narrows: 'widens' }

describe('schema diff rule mirrors', () => {
  it('every rule has a mirror or a reason', () => {
    const ids = new Set(SCHEMA_DIFF_RULES.map((rule) => rule.id))
    expect(ids.size).toBe(SCHEMA_DIFF_RULES.length)
    for (const rule of SCHEMA_DIFF_RULES) {
      expect(rule.mirror, rule.id).toBeDefined()
      const mirror = rule.mirror!
      if ('none' in mirror) {
        expect(mirror.none.length, rule.id).toBeGreaterThan(10)
        // Only a rule without a single direction may go without a mirror.
        expect(['both', 'none', 'unknown'], rule.id).toContain(SCHEMA_RULE_EFFECTS[rule.id])
        continue
      }
      expect(ids.has(mirror.rule), `${rule.id} names ${mirror.rule}`).toBe(true)
      expect(SCHEMA_RULE_EFFECTS[mirror.rule], `${rule.id} ↔ ${mirror.rule}`).toBe(OPPOSITE[SCHEMA_RULE_EFFECTS[rule.id]!])
      const back = SCHEMA_DIFF_RULES.find((other) => other.id === mirror.rule)!.mirror
      expect(back && 'rule' in back ? back.rule : undefined, `${mirror.rule} names ${rule.id} back`).toBe(rule.id)
    }
  })

  it('every rule is a catalogue entry: id, levels, audiences, summary and a two-line example', () => {
    for (const rule of SCHEMA_DIFF_RULES) {
      expect(rule.id).toMatch(/^schema-[a-z]+(-[a-z]+)*$/)
      expect(rule.levels.length).toBeGreaterThan(0)
      // A rule that only reports at info breaks nobody, so it names no audience.
      expect(rule.audiences).toEqual(rule.levels.some((level) => level !== 'info') ? ['receiver', 'sender'] : [])
      expect(rule.summary).toMatch(/\.$/)
      expect(rule.example.old.length + rule.example.new.length).toBeGreaterThan(2)
    }
  })
})
