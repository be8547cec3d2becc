/**
 * The DASP differ against the runtime's own reopen check: for random edits of a small selection
 * (settings values set, unset and changed; a setting's definition added as a session requirement;
 * an extension's version, content pin or scope; an extension added or removed; a dependency
 * requirement dropped or added, in place or repinned), the differ reports
 * a breaking `saved-session` finding exactly when `checkSessionFloor` refuses the old version's
 * saved floor (`model.floor`, what the generated module exports as `sessionFloor`) against the new
 * version's selection (`model.request`). One reading of DASP-EXT-005 on both sides: the floor is
 * "the least protection permitted", so every saved requirement must be offered unchanged and more
 * is accepted ("current policy MAY impose stronger requirements").
 *
 * Edits that change a definition's meaning always change its content pin here, as DASP-EXT-002
 * demands of published content; an edit with the pin unchanged is a document the runtime cannot
 * tell apart from the old one, which the differ judges by the definition (test/dasp-diff-oracle.test.ts).
 * The selected core, profile and binding are in the floor too (DASP-EXT-005: "the exact contract
 * identities and content references"), with their pins read as the differ reads them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { daspDiffer } from '../src/formats/dasp/diff/index.js'
import { checkSessionFloor } from '../src/runtime/dasp/index.js'
import { type Edit, makeVersion, sideIfValid } from './dasp-diff-fixtures.js'

const set = (file: Edit['file'], pointer: string, value: unknown): Edit => ({ file, pointer, value })
const repin = (file: 'enc' | 'auth', digit: string): Edit => set(file, '/content/commit', digit.repeat(40))

const EDITS: Edit[][] = [
  [set('app', '/extensions/1/settings/grant_bytes', 8192)],
  [set('app', '/extensions/1/settings/grant_bytes', 4096)],
  [set('app', '/extensions/0/settings/rekey_s', 600)],
  [set('app', '/extensions/1/settings/trace', true)],
  [set('app', '/extensions/1/settings/commands/-', { name: 'counter.reset', kind: 'command' })],
  [set('app', '/extensions/0/settings/cipher', 'aes256gcm')],
  // A new session requirement, defined and set: beyond the old floor.
  [
    set('auth', '/settings/level', { type: 'integer', minimum: 0, maximum: 9, persistence: 'session' }),
    set('app', '/extensions/1/settings/level', 3),
    repin('auth', '5'),
  ],
  // A saved persistent setting no longer defined or set.
  [
    { file: 'auth', pointer: '/settings/grant_bytes', remove: true },
    { file: 'app', pointer: '/extensions/1/settings/grant_bytes', remove: true },
    repin('auth', '6'),
  ],
  [set('auth', '/settings/grant_bytes/persistence', 'connection'), repin('auth', '7')],
  [set('enc', '/settings/rekey_s/persistence', 'session'), repin('enc', '8')],
  [repin('auth', '3')],
  [repin('enc', '4')],
  [set('app', '/extensions/1/scope', 'command'), set('app', '/policy/requires/0/scope', 'command')],
  [set('app', '/extensions/1/version', '2'), set('app', '/policy/requires/0/version', '2'), set('auth', '/identity/version', '2')],
  [
    set('app', '/extensions/-', {
      uri: 'urn:example:ext:auth',
      version: '1',
      scope: 'command',
      settings: { grant_bytes: 16384, commands: [{ name: 'counter.add', kind: 'standing' }], trace: false },
    }),
  ],
  [set('app', '/policy/requires', [])],
  // The selected core, profile and binding: saved in the floor with their pins (hex case is no change).
  [
    set('app', '/profile/content/commit', 'A1B2C3D4E5F60718293A4B5C6D7E8F9012345678'),
    set('auth', '/supports/profiles/0/content/commit', 'A1B2C3D4E5F60718293A4B5C6D7E8F9012345678'),
    set('enc', '/supports/profiles/0/content/commit', 'A1B2C3D4E5F60718293A4B5C6D7E8F9012345678'),
  ],
  [set('app', '/profile/version', '2'), set('auth', '/supports/profiles/0/version', '2'), set('enc', '/supports/profiles/0/version', '2')],
  [
    set('app', '/binding/content/commit', 'f'.repeat(40)),
    set('auth', '/supports/bindings/0/content/commit', 'f'.repeat(40)),
    set('enc', '/supports/bindings/0/content/commit', 'f'.repeat(40)),
  ],
  // A dependency requirement dropped, in place and repinned (the other direction is the same pair read backwards).
  [{ file: 'auth', pointer: '/dependencies/0', remove: true }],
  [{ file: 'auth', pointer: '/dependencies/0', remove: true }, repin('auth', '9')],
  [{ file: 'app', pointer: '/extensions/1/settings', reverse: true }],
]
/** Edits that drop or move array members: applied last, so the others' indexes still hold. */
const STRUCTURAL: Edit[][] = [
  [
    { file: 'app', pointer: '/extensions/1', remove: true },
    { file: 'app', pointer: '/policy/requires/0', remove: true },
  ],
  [{ file: 'app', pointer: '/extensions', reverse: true }],
]

const root = mkdtempSync(join(tmpdir(), 'diff-oracle-dasp-floor-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const editSet = fc.record({
  edits: fc.subarray(
    EDITS.map((_, i) => i),
    { maxLength: 3 },
  ),
  structural: fc.subarray(
    STRUCTURAL.map((_, i) => i),
    { maxLength: 1 },
  ),
})

describe('saved sessions: the differ against checkSessionFloor', () => {
  it('reports saved-session breaking exactly when the runtime refuses to reopen', async () => {
    let serial = 0
    const tally = { compared: 0, refused: 0, invalid: 0, codes: new Map<string, number>() }
    const version = (choice: { edits: number[]; structural: number[] }) => {
      const dir = join(root, String(serial++))
      try {
        return makeVersion(dir, [...choice.edits.flatMap((i) => EDITS[i]!), ...choice.structural.flatMap((i) => STRUCTURAL[i]!)])
      } catch {
        return undefined // an edit whose place another edit removed
      }
    }
    await fc.assert(
      fc.asyncProperty(editSet, editSet, fc.boolean(), async (a, b, fromBase) => {
        const oldFile = version(fromBase ? { edits: [], structural: [] } : a)
        const newFile = version(b)
        const oldSide = oldFile && (await sideIfValid(oldFile))
        const newSide = newFile && (await sideIfValid(newFile))
        if (!oldSide || !newSide) {
          tally.invalid++
          return
        }
        tally.compared++
        const check = checkSessionFloor(oldSide.model.floor, newSide.model.request)
        if (!check.ok) {
          tally.refused++
          tally.codes.set(check.code, (tally.codes.get(check.code) ?? 0) + 1)
        }
        const findings = await daspDiffer.diff(oldSide, newSide)
        const reported = findings.some((f) => f.level === 'breaking' && f.audiences.some((x) => x.kind === 'saved-session'))
        expect(reported, `${JSON.stringify({ a: fromBase ? 'base' : a, b, check })}\n${JSON.stringify(findings, null, 1)}`).toBe(!check.ok)
      }),
      { numRuns: 120, seed: 20261204 },
    )
    console.log(`dasp floor oracle: ${tally.compared} compared, ${tally.refused} refused (${JSON.stringify([...tally.codes])}), ${tally.invalid} invalid`)
    // Not vacuous: both verdicts, and several of the runtime's reasons, were reached.
    expect(tally.compared).toBeGreaterThan(60)
    expect(tally.refused).toBeGreaterThan(10)
    expect(tally.compared - tally.refused).toBeGreaterThan(10)
    expect(tally.codes.size).toBeGreaterThanOrEqual(3)
  }, 120_000)
})
