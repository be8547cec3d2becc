/**
 * A headers schema no NATS message can satisfy. Header values are strings and header names are
 * printable ASCII without a colon (what nats.js writes and reads); a headers schema that requires a
 * header of another type (`integer`, `object`), or names a required header NATS cannot carry (a
 * space, a non-ASCII letter), makes every message of its channel invalid, and the generated
 * `options.headers` type of `publish` holds `never` where that header goes. The compiler says
 * so when the header is required: NATS_HEADERS_UNSENDABLE.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/probe-nats-header-schemas', String(process.pid))
const NOTED = '      noted:\n        payload:'

async function diagnosticsOf(label: string, headers: string): Promise<{ codes: string[]; validate: (h: unknown) => boolean }> {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  if (!text.includes(NOTED)) throw new Error('fixture changed: no noted message')
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `${label}.asyncapi.yaml`)
  writeFileSync(file, text.replace(NOTED, `      noted:\n        headers:\n${headers}\n        payload:`))
  const result = await compile(file)
  const { loadModule } = await import('./helpers/load-module.js')
  const module = result.code
    ? ((await loadModule(result.code, `probe-header-schemas-${label}`)) as { channels: Record<string, { validateHeaders?: (h: unknown) => boolean }> })
    : undefined
  return { codes: result.diagnostics.map((d) => d.code), validate: module?.channels.orderNoted?.validateHeaders ?? (() => false) }
}

describe('a headers schema no message can satisfy is reported at compile time', () => {
  it('a required header of type integer: no header value (a string) passes, and the compiler refuses it', async () => {
    const { codes, validate } = await diagnosticsOf(
      'integer',
      '          type: object\n          required: [retry]\n          properties:\n            retry: { type: integer }',
    )
    // What every received message's headers read as: strings. None passes.
    expect([{ retry: '1' }, { retry: '' }].map(validate)).toEqual([false, false])
    expect(codes).toEqual(['NATS_HEADERS_UNSENDABLE'])
  })

  it('a required header named with a space: no message can carry it (nats.js refuses the name), and the compiler refuses it', async () => {
    const { codes } = await diagnosticsOf(
      'name',
      '          type: object\n          required: ["trace id"]\n          properties:\n            "trace id": { type: string }',
    )
    expect(codes).toEqual(['NATS_HEADERS_UNSENDABLE'])
  })
})
