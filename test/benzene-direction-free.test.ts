/**
 * A component schema converted once for both directions when neither it nor anything it reaches has
 * a readOnly or writeOnly member, and twice (once per direction) otherwise: the verdicts of both
 * directions stay those of OpenAPI 3.0.3 (a readOnly member is not required in a request, a
 * writeOnly one not in a response), in both validator forms.
 */
import { describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { loadModule } from './helpers/load-module.js'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const schemas = {
  Shared: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 4 } } },
  Account: {
    type: 'object',
    required: ['id', 'password', 'owner'],
    properties: { id: { type: 'string', readOnly: true }, password: { type: 'string', writeOnly: true }, owner: ref('Shared') },
  },
  // Reaches Account, so it differs between the directions too.
  Holder: { type: 'object', required: ['account'], properties: { account: ref('Account') } },
}

async function module(name: string, requests: unknown[], validators: 'code' | 'data') {
  const dir = join(import.meta.dirname, '.tmp/direction-free')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}-${validators}.spec.json`)
  writeFileSync(file, JSON.stringify({ openapi: '3.0.1', info: { title: 's', version: '1' }, requests, events: [], components: { schemas } }))
  const result = await compile(file, { benzene: { validators } })
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return { code: result.code!, mod: await loadModule(result.code!, `direction-free-${name}-${validators}`) }
}

describe.each(['code', 'data'] as const)('schemas shared by both directions (validators: %s)', (validators) => {
  it('a schema reaching no readOnly/writeOnly member is one definition for requests and responses', async () => {
    const { code, mod } = await module('shared', [{ topic: 't:shared', request: ref('Shared'), response: ref('Shared') }], validators)
    if (validators === 'code') expect(code).not.toContain('$res$')
    const answer = { name: 'abc' }
    const sender = createLocalSender({ 't:shared': () => answer })
    expect((await mod.shared.send(sender, { name: 'abcd' })).status).toBe('ok')
    expect((await mod.shared.send(sender, { name: 'abcde' })).errors?.[0]?.code).toBe('maxLength')
    answer.name = 'abcdef'
    expect((await mod.shared.send(sender, { name: 'a' })).status).not.toBe('ok')
  })

  it('a schema with directional members, and one reaching it, keep a definition per direction', async () => {
    const requests = [
      { topic: 't:account', request: ref('Account'), response: ref('Account') },
      { topic: 't:holder', request: ref('Holder'), response: ref('Holder') },
    ]
    const { code, mod } = await module('directional', requests, validators)
    if (validators === 'code') expect(code).toContain('$res$')
    let answer: Record<string, unknown> = { id: 'i', owner: { name: 'o' } }
    const sender = createLocalSender({ 't:account': () => answer, 't:holder': () => answer })
    // A request needs the writeOnly password, not the readOnly id.
    expect((await mod.account.send(sender, { password: 'p', owner: { name: 'o' } })).status).toBe('ok')
    expect((await mod.account.send(sender, { id: 'i', owner: { name: 'o' } })).errors?.[0]?.code).toBe('required')
    // A response needs the id, not the password.
    answer = { owner: { name: 'o' } }
    expect((await mod.account.send(sender, { password: 'p', owner: { name: 'o' } })).status).not.toBe('ok')
    answer = { account: { id: 'i', owner: { name: 'o' } } }
    expect((await mod.holder.send(sender, { account: { password: 'p', owner: { name: 'o' } } })).status).toBe('ok')
    expect((await mod.holder.send(sender, { account: { id: 'i', owner: { name: 'o' } } })).errors?.[0]?.code).toBe('required')
    answer = { account: { password: 'p', owner: { name: 'o' } } }
    expect((await mod.holder.send(sender, { account: { password: 'p', owner: { name: 'o' } } })).status).not.toBe('ok')
  })
})
