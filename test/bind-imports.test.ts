/**
 * The runtime imports of a generated module bound once for webpack (src/plugin/bind-imports.ts):
 * every import line of real modules of each format is bound, no line moves, and the module exports
 * the same names with the same behaviour; a line whose new names are taken, or whose helpers are
 * named above it, is left as it was.
 */
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindImportsOnce } from '../src/plugin/bind-imports.js'
import { loadModule } from './helpers/load-module.js'

const root = new URL('..', import.meta.url).pathname
const contracts = ['fixtures/benzene/valid/payments.spec.json', 'fixtures/nats/valid/ledger.asyncapi.yaml', 'fixtures/dasp/counter.dasp.json']

describe('bindImportsOnce', () => {
  for (const contract of contracts)
    it(`binds every runtime import of ${contract} once, with the same lines and exports`, async () => {
      const { code } = await compile(root + contract, { declarations: false })
      const bound = bindImportsOnce(code!)
      // Named imports are bound; a namespace import (DASP's) is left as it is.
      const imports = (text: string) => text.split('\n').filter((line) => line.startsWith('import {'))
      if (!contract.endsWith('.dasp.json')) expect(imports(code!).length).toBeGreaterThan(0)
      for (const line of imports(bound))
        expect(line).toMatch(/ from "unplugin-contracts\/runtime[\w/-]*"; const \$[\w$]+ = \$[\w$]+\$import(, \$[\w$]+ = \$[\w$]+\$import)*;$/)
      expect(bound.split('\n').length).toBe(code!.split('\n').length)
      const [before, after] = [await loadModule(code!, 'unbound'), await loadModule(bound, 'bound')]
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort())
      expect(JSON.stringify(after, (_, v) => (typeof v === 'function' ? `fn:${v.name}` : v))).toBe(
        JSON.stringify(before, (_, v) => (typeof v === 'function' ? `fn:${v.name}` : v)),
      )
    })

  it('binds the helpers of a module whose validators call them', () => {
    const code =
      'import { typeFail as $type, isObject as $isObject } from "unplugin-contracts/runtime";\nconst check = (d, e) => { if (!$isObject(d)) $type(e, "", "object"); };'
    expect(bindImportsOnce(code)).toBe(
      'import { typeFail as $type$import, isObject as $isObject$import } from "unplugin-contracts/runtime"; const $type = $type$import, $isObject = $isObject$import;\nconst check = (d, e) => { if (!$isObject(d)) $type(e, "", "object"); };',
    )
  })

  it('leaves a line whose new name is in the module already', () => {
    const code = 'import { typeFail as $type } from "unplugin-contracts/runtime";\nconst $type$import = 1;'
    expect(bindImportsOnce(code)).toBe(code)
  })

  it('leaves a line whose helper is named above it (a const is bound only where it stands)', () => {
    const code = 'export const a = $validator(1);\nimport { compiledValidator as $validator } from "unplugin-contracts/runtime/nats";'
    expect(bindImportsOnce(code)).toBe(code)
    const prefix = 'export const a = $validatorX;\nimport { compiledValidator as $validator } from "unplugin-contracts/runtime/nats";'
    expect(bindImportsOnce(prefix)).not.toBe(prefix)
  })

  it('leaves imports of anything but the runtime, and other import forms', () => {
    for (const code of [
      'import { a as $a } from "other";',
      'import * as $rt from "unplugin-contracts/runtime";',
      'import { a } from "unplugin-contracts/runtime";',
    ])
      expect(bindImportsOnce(code)).toBe(code)
  })
})
