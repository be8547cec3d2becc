/**
 * An oracle for the `saved-session` audience, written from the DASP extension contracts' reopen
 * conditions and not from the differ's rules. DASP-EXT-005: before the first session.opened the
 * host saves the session's requirements — the exact contract identities and content references,
 * the persistent semantic settings, the affected operations, the dependency requirements — with its
 * profile; reopening checks a fresh selection against that saved floor, which must never be
 * weakened and has no migration ("a different version cannot silently replace it"). DASP-EXT-006
 * and 008: saved attributes are saved event data (required ones keep their values on replay and in
 * duplicate comparison), saved event interpretation must survive upgrades, and unknown required saved
 * behaviour stops recovery. Current policy may add requirements (another
 * extension), never take one away.
 *
 * So a session saved under the old version can reopen under the new one exactly when the new
 * version's record, read from its files here, holds every extension entry of the old one unchanged
 * (each saved persistent setting with its value, each affected operation and dependency requirement,
 * more of each allowed: the floor is "the least protection permitted") and the same core, profile and binding. Random edits of a small selection: the differ must report
 * a breaking `saved-session` finding exactly when that is false.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import canonicalize from 'canonicalize'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { daspDiffer } from '../src/formats/dasp/diff/index.js'
import { type Edit, makeVersion, sideIfValid } from './dasp-diff-fixtures.js'

type Json = Record<string, any>

const canonical = (v: unknown) => canonicalize(v) ?? ''
/** Hex digests name the same bytes in either case (the layout's pin rule). */
const pin = (p: unknown) => {
  if (p === null || typeof p !== 'object') return canonical(p)
  const o = { ...(p as Json) }
  for (const k of ['sha256', 'commit']) if (typeof o[k] === 'string') o[k] = o[k].toLowerCase()
  return canonical(o)
}

/** The record DASP-EXT-005 has the host save for a session created under the selection at `file`. */
interface SavedEntry {
  rest: string
  /** The saved-class attributes (saved event data), by name. */
  savedAttributes: Map<string, { type: string; on: string; required: boolean }>
  persistent: Record<string, string>
  operations: string[]
  dependencies: string[]
}

function savedRecord(file: string): { contracts: string; extensions: Map<string, SavedEntry> } {
  const selection: Json = JSON.parse(readFileSync(file, 'utf8'))
  const definitions = new Map<string, Json>()
  for (const path of selection.definitions as string[]) {
    const d: Json = JSON.parse(readFileSync(resolve(dirname(file), path), 'utf8'))
    definitions.set(canonical([d.identity.uri, d.identity.version]), d)
  }
  const contracts = canonical(['core', 'profile', 'binding'].map((k) => [selection[k].uri, selection[k].version, pin(selection[k].content)]))
  const extensions = new Map<string, SavedEntry>()
  for (const e of selection.extensions as Json[]) {
    const d = definitions.get(canonical([e.uri, e.version]))!
    const persistent = Object.fromEntries(
      Object.entries(e.settings as Json)
        .filter(([name]) => d.settings[name]?.persistence === 'session')
        .map(([name, value]) => [name, canonical({ value, type: d.settings[name].type, unit: d.settings[name].unit ?? null })]),
    )
    const savedAttributes = new Map(
      (d.attributes as Json[])
        .filter((a) => a.class === 'saved')
        .map((a) => [a.name as string, { type: a.type as string, on: canonical([...a.on].sort()), required: a.required === true }]),
    )
    extensions.set(canonical([e.uri, e.scope]), {
      rest: canonical({
        version: e.version,
        content: pin(d.content),
      }),
      savedAttributes,
      persistent,
      operations: d.operations as string[],
      dependencies: (d.dependencies as Json[]).map((x) => canonical([x.uri, x.version, x.scope])),
    })
  }
  return { contracts, extensions }
}

/**
 * CloudEvents types whose every value is a value of another (docs/dasp.md's type table: an absolute
 * URI is a URI-reference; a URI, a URI-reference, base64 text and a timestamp are all strings).
 */
const SUBTYPE: Record<string, string[]> = { URI: ['URI-reference', 'String'], 'URI-reference': ['String'], Binary: ['String'], Timestamp: ['String'] }
const takesAll = (from: string, to: string) => from === to || (SUBTYPE[from] ?? []).includes(to)

/**
 * DASP-EXT-006 and 008: saved events keep their saved attributes, and their interpretation must
 * survive the upgrade: each old saved attribute still saved, on the same event types, as required
 * as before, with a type that takes every value it took; no new required saved attribute (saved
 * events lack it).
 */
function savedEventsReadAlike(old: SavedEntry['savedAttributes'], now: SavedEntry['savedAttributes']): boolean {
  for (const [name, a] of old) {
    const b = now.get(name)
    if (!b || b.on !== a.on || b.required !== a.required || !takesAll(a.type, b.type)) return false
  }
  for (const [name, b] of now) if (!old.has(name) && b.required) return false
  return true
}

function couldReopen(old: string, next: string): boolean {
  const a = savedRecord(old)
  const b = savedRecord(next)
  // The floor is the least a reopening selection must meet: every saved persistent setting offered
  // unchanged, every saved affected operation and dependency requirement still there, more allowed
  // ("current policy MAY impose stronger requirements").
  return (
    a.contracts === b.contracts &&
    [...a.extensions].every(([key, entry]) => {
      const now = b.extensions.get(key)
      return (
        now !== undefined &&
        now.rest === entry.rest &&
        savedEventsReadAlike(entry.savedAttributes, now.savedAttributes) &&
        Object.entries(entry.persistent).every(([name, value]) => now.persistent[name] === value) &&
        entry.operations.every((o) => now.operations.includes(o)) &&
        entry.dependencies.every((d) => now.dependencies.includes(d))
      )
    })
  )
}

const set = (file: Edit['file'], pointer: string, value: unknown): Edit => ({ file, pointer, value })
const everywhere = (pointer: string, supports: string, value: unknown): Edit[] => [
  set('app', pointer, value),
  set('enc', supports, value),
  set('auth', supports, value),
]

/** Small edits of the base selection and its two definitions, some that a saved session survives and some it does not. */
const EDITS: Edit[][] = [
  [set('app', '/extensions/1/settings/grant_bytes', 8192)],
  [set('app', '/extensions/0/settings/rekey_s', 600)],
  [set('app', '/extensions/1/settings/trace', true)],
  [set('app', '/extensions/1/settings/commands/-', { name: 'counter.reset', kind: 'command' })],
  [set('app', '/extensions/0/settings/cipher', 'aes256gcm')],
  [set('enc', '/settings/rekey_s/persistence', 'session')],
  [set('auth', '/settings/grant_bytes/persistence', 'connection')],
  [set('auth', '/settings/grant_bytes/unit', 'kibibytes')],
  [set('enc', '/settings/rekey_s/unit', 'milliseconds')],
  [set('auth', '/settings/grant_bytes/maximum', 65536)],
  [set('enc', '/settings/cipher/values', ['xchacha20poly1305'])],
  [set('app', '/extensions/1/scope', 'command'), set('app', '/policy/requires/0/scope', 'command')],
  [set('app', '/extensions/1/version', '2'), set('app', '/policy/requires/0/version', '2'), set('auth', '/identity/version', '2')],
  [set('auth', '/content/commit', '3333333333333333333333333333333333333333')],
  [set('enc', '/content/commit', '4444444444444444444444444444444444444444')],
  everywhere('/profile/content/commit', '/supports/profiles/0/content/commit', 'A1B2C3D4E5F60718293A4B5C6D7E8F9012345678'),
  everywhere('/profile/version', '/supports/profiles/0/version', '2'),
  everywhere('/binding/content/commit', '/supports/bindings/0/content/commit', 'fedcba9876543210fedcba9876543210fedcba98'),
  [
    set('app', '/extensions/-', {
      uri: 'urn:example:ext:auth',
      version: '1',
      scope: 'command',
      settings: { grant_bytes: 16384, commands: [{ name: 'counter.add', kind: 'standing' }], trace: false },
    }),
  ],
  [set('auth', '/dependencies', [])],
  [set('auth', '/operations/-', 'dasp.v1.read')],
  [set('enc', '/attributes/0/type', 'String')],
  [set('enc', '/attributes/0/required', false)],
  [set('enc', '/attributes/0/class', 'delivery')],
  [set('enc', '/attributes/0/on/-', 'dasp.v1.command')],
  [set('auth', '/attributes/1/required', true)],
  [set('auth', '/attributes/1/class', 'saved')],
  [set('enc', '/attributes/-', { name: 'exmark', type: 'String', on: ['dasp.v1.event'], required: true, class: 'saved' })],
  [set('auth', '/attributes/-', { name: 'exnote', type: 'String', on: ['dasp.v1.command'], class: 'saved' })],
  // An optional saved attribute in one version as a URI, in another as a String: saved events survive the widening, not the narrowing.
  [set('auth', '/attributes/-', { name: 'exref', type: 'URI', on: ['dasp.v1.command'], class: 'saved' })],
  [set('auth', '/attributes/-', { name: 'exref', type: 'String', on: ['dasp.v1.command'], class: 'saved' })],
  [set('auth', '/processing', 'Check the grant, then the evidence.')],
  [set('app', '/policy/requires', [])],
  [set('enc', '/scopes/-', 'command')],
  [set('auth', '/scopes', ['session'])],
  [set('auth', '/settings/audit', { type: 'boolean', persistence: 'connection' }), set('app', '/extensions/1/settings/audit', false)],
  [set('auth', '/settings/level', { type: 'integer', minimum: 0, maximum: 9, persistence: 'session' }), set('app', '/extensions/1/settings/level', 3)],
  [{ file: 'auth', pointer: '/settings', reverse: true }],
  [{ file: 'enc', pointer: '/operations', reverse: true }],
]
/** Edits that move or drop array members: applied last, so the others' indexes still hold. */
const STRUCTURAL: Edit[][] = [
  [
    { file: 'app', pointer: '/extensions/1', remove: true },
    { file: 'app', pointer: '/policy/requires/0', remove: true },
  ],
  [{ file: 'app', pointer: '/extensions', reverse: true }],
  [{ file: 'app', pointer: '/definitions', reverse: true }],
]

const root = mkdtempSync(join(tmpdir(), 'dasp-diff-oracle-'))
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

describe('saved sessions: the differ against the specification', () => {
  it('reports saved-session breaking exactly when the saved floor is not met', async () => {
    let serial = 0
    const tally = { compared: 0, cannotReopen: 0, invalid: 0 }
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
        const reopen = couldReopen(oldFile!, newFile!)
        if (!reopen) tally.cannotReopen++
        const findings = await daspDiffer.diff(oldSide, newSide)
        const reported = findings.some((f) => f.level === 'breaking' && f.audiences.some((x) => x.kind === 'saved-session'))
        expect(reported, `${JSON.stringify({ a: fromBase ? 'base' : a, b })}\n${JSON.stringify(findings, null, 1)}`).toBe(!reopen)
      }),
      { numRuns: 160, seed: 20261203 },
    )
    // Not vacuous: both verdicts were reached many times.
    expect(tally.compared).toBeGreaterThan(60)
    expect(tally.cannotReopen).toBeGreaterThan(10)
    expect(tally.compared - tally.cannotReopen).toBeGreaterThan(10)
  }, 120_000)
})
