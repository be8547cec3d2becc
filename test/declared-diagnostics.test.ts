import { expect, test } from 'vitest'
import { CORE_CODES, declareCodes } from '../src/core/codes.js'
import { declaredDiagnostics } from '../src/core/diagnostics.js'

// A stage outside the rules reports through its codes' table: the severity is the declared one.
test('a diagnostic takes its code’s declared severity, unless the caller overrides it', () => {
  const warned = declaredDiagnostics(declareCodes({ JSON_SYNTAX: { severity: 'warning', meaning: 'a table that says warning' } }))
  const where = { file: '/c.json', locate: (pointer: string) => ({ line: pointer.length, column: 7 }) }
  expect(warned(where, 'JSON_SYNTAX', '/ab', 'm')).toEqual({
    code: 'JSON_SYNTAX',
    severity: 'warning',
    message: 'm',
    file: '/c.json',
    pointer: '/ab',
    line: 3,
    column: 7,
  })
  expect(warned(where, 'JSON_SYNTAX', '', 'm', { x: 1 }, 'error')).toMatchObject({ severity: 'error', data: { x: 1 }, line: 0 })
  const core = declaredDiagnostics(CORE_CODES)
  expect(core({ file: '/c.json' }, 'CONTRACTS_TOO_DEEP', '/a', 'm')).toMatchObject({ severity: CORE_CODES.CONTRACTS_TOO_DEEP.severity, line: 1, column: 1 })
})
