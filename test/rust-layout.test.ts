/**
 * The Rust target lays its code out as rustfmt does, long names included: a member, a renamed
 * member's `#[serde(rename = ...)]`, an alias and an enum value past 100 columns are broken where
 * rustfmt breaks them (an outside pass found an 80-character member name left on one line). The
 * oracle is `rustfmt --check` itself, on each file of a crate (with serde: its payload types)
 * generated from a document of such names.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { inspect } from '../src/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { rustCrate } from '../src/formats/nats/targets/rust/crate.js'
import { RUSTFMT } from './helpers/rust.js'

const work = join(import.meta.dirname, '.tmp/rust-layout', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const member = 'a'.repeat(80)
const renamed = `b-${'c'.repeat(120)}`
const component = `Long${'D'.repeat(96)}`
const value = 'v'.repeat(110)

const DOCUMENT = `asyncapi: 3.1.0
info: { title: Long names, version: 1.0.0 }
x-nats-contract:
  version: 0.2.0-draft
  contract: layout
  deployment: { binding: test-local, minimumServerVersion: 2.11.0 }
  channels: { long: {}, alias: {} }
  operations:
    sendLong: { publish: { api: core, confirmation: none } }
    sendAlias: { publish: { api: core, confirmation: none } }
channels:
  long:
    address: layout.long
    messages: { long: { payload: { $ref: '#/components/schemas/Long' } } }
  alias:
    address: layout.alias
    messages: { alias: { payload: { $ref: '#/components/schemas/${component}' } } }
operations:
  sendLong: { action: send, channel: { $ref: '#/channels/long' } }
  sendAlias: { action: send, channel: { $ref: '#/channels/alias' } }
components:
  schemas:
    ${component}: { type: array, items: { type: object, additionalProperties: { type: integer } } }
    Long:
      type: object
      required: [${member}]
      properties:
        ${member}: { type: string }
        ${renamed}: { type: object, additionalProperties: { type: array, items: { type: integer } } }
        choice: { type: string, enum: [${value}, short] }
`

describe.skipIf(!RUSTFMT)('long names in the generated crate (rustfmt --check)', () => {
  it.each([true])('serde %s: rustfmt changes nothing', async (serde) => {
    const file = join(work, 'layout.asyncapi.yaml')
    mkdirSync(work, { recursive: true })
    writeFileSync(file, DOCUMENT)
    const inspected = await inspect(file)
    expect(inspected.diagnostics).toEqual([])
    const model = { ...(inspected.data as NatsModel), file }
    const sources = [...rustCrate([model], 'contracts', { serde })].filter((f) => f.path.endsWith('.rs'))
    // The long lines are there to break: the document's names reached the crate.
    const all = sources.map((f) => f.text).join('\n')
    expect(all).toContain(member)
    expect(all).toContain(renamed.replace(/-/g, '_'))
    // The crate's files as written (rustfmt follows `mod` to each module's file), then checked from its root.
    const crate = join(work, `crate-${serde}`)
    for (const source of sources) {
      mkdirSync(join(crate, source.path, '..'), { recursive: true })
      writeFileSync(join(crate, source.path), source.text)
    }
    const fmt = spawnSync(RUSTFMT!, ['--check', '--edition', '2021', join(crate, 'src/lib.rs')], { encoding: 'utf8' })
    expect([fmt.status, fmt.stdout + fmt.stderr]).toEqual([0, ''])
  })
})
