/**
 * Definition edits an outside pass against the runtime found misjudged (docs/dasp.md, "Diff"):
 * lists that are sets reordered in a setting (an enum's `values`, an item schema's `required` and
 * `enum`) are no in-place change; a scope newly supported breaks the host (an old definition
 * refuses a new client's selection of it), one no longer supported the client only; an attribute's
 * type that takes every value the old one took breaks only receivers, one that takes fewer only
 * senders and saved events; an optional saved attribute retyped or removed breaks saved sessions
 * (saved event interpretation must survive upgrades, DASP-EXT-008).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DiffFinding } from '../src/core/diff/types.js'
import { daspDiffer } from '../src/formats/dasp/diff/index.js'
import { type Edit, makeVersion, sideIfValid } from './dasp-diff-fixtures.js'

const root = mkdtempSync(join(tmpdir(), 'dasp-diff-readings-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let serial = 0

async function diff(old: Edit[], next: Edit[]): Promise<DiffFinding[]> {
  const [a, b] = [old, next].map((edits) => makeVersion(join(root, String(serial++)), edits))
  const [oldSide, newSide] = [await sideIfValid(a!), await sideIfValid(b!)]
  expect(oldSide && newSide, 'both versions valid').toBeTruthy()
  return daspDiffer.diff(oldSide!, newSide!)
}
const shown = (findings: DiffFinding[]) =>
  findings.map((f) => [
    f.rule,
    f.level,
    f.audiences
      .map((a) => a.kind)
      .sort()
      .join(','),
  ])

describe('DASP definitions read as the runtime reads them', () => {
  it('an enum setting’s values, an item schema’s required and enum, reordered: nothing but info', async () => {
    for (const edit of [
      { file: 'enc', pointer: '/settings/cipher/values', reverse: true },
      { file: 'auth', pointer: '/settings/commands/items/required', reverse: true },
      { file: 'auth', pointer: '/settings/commands/items/properties/kind/enum', reverse: true },
    ] as Edit[])
      // (The schema engine may say, as info, that a list was rewritten; nothing is a warning or a break.)
      expect(shown((await diff([], [edit])).filter((f) => f.level !== 'info')), edit.pointer).toEqual([])
    // A set that changed is still an in-place change.
    expect(shown(await diff([], [{ file: 'enc', pointer: '/settings/cipher/values', value: ['xchacha20poly1305'] }]))).toContainEqual([
      'dasp-definition-changed-in-place',
      'warning',
      'client,host',
    ])
  })

  it('a scope newly supported breaks the host; one no longer supported, the client', async () => {
    const added = await diff([], [{ file: 'enc', pointer: '/scopes/-', value: 'command' }])
    expect(shown(added)).toContainEqual(['dasp-support-added', 'breaking', 'host'])
    const removed = await diff([], [{ file: 'enc', pointer: '/scopes', value: ['connection'] }])
    expect(shown(removed)).toContainEqual(['dasp-support-removed', 'breaking', 'client'])
  })

  it('an attribute type widened breaks receivers only, narrowed senders (and saved events), otherwise both', async () => {
    // exauth: a required delivery attribute on commands (sent by the client, received by the host).
    const typed = (type: string): Edit => ({ file: 'auth', pointer: '/attributes/0/type', value: type })
    const type = async (from: string, to: string) => shown(await diff([typed(from)], [typed(to)])).filter(([rule]) => rule === 'dasp-attribute-type-changed')
    expect(await type('URI', 'String')).toEqual([['dasp-attribute-type-changed', 'breaking', 'host']])
    expect(await type('String', 'URI')).toEqual([['dasp-attribute-type-changed', 'breaking', 'client']])
    expect(await type('Integer', 'String')).toEqual([['dasp-attribute-type-changed', 'breaking', 'client,host']])
  })

  it('an optional saved attribute retyped or removed breaks saved sessions; one that becomes saved does not', async () => {
    // exseq: saved, on events (sent by the host); made optional in both versions.
    const optional: Edit = { file: 'enc', pointer: '/attributes/0/required', value: false }
    const retyped = await diff([optional], [optional, { file: 'enc', pointer: '/attributes/0/type', value: 'String' }])
    expect(shown(retyped).filter(([rule]) => rule === 'dasp-attribute-type-changed')).toEqual([
      ['dasp-attribute-type-changed', 'breaking', 'client,host,saved-session'],
    ])
    const removed = await diff([optional], [{ file: 'enc', pointer: '/attributes/0', remove: true }])
    expect(shown(removed).filter(([rule]) => rule === 'dasp-attribute-removed')).toEqual([
      ['dasp-attribute-removed', 'breaking', 'saved-session'],
      ['dasp-attribute-removed', 'warning', 'client'],
    ])
    // exhint: an optional delivery attribute made saved: saved events (which never carried it as saved data) read as before.
    const saved = await diff([], [{ file: 'auth', pointer: '/attributes/1/class', value: 'saved' }])
    expect(shown(saved).filter(([rule]) => rule === 'dasp-attribute-class-changed')).toEqual([['dasp-attribute-class-changed', 'breaking', 'client,host']])
  })
})
