/**
 * The fixture tables of the rule tests, one runner for Benzene, NATS and DASP. A row names a
 * contract that breaks one rule and the diagnostic it must give, `[fixture, code, pointer, line,
 * column]` (a row may carry more: the file the diagnostic points into, how to make the contract).
 * A failing fixture gives that error and no module; a warned one gives that warning, and the module
 * is still generated. `expectEveryCodeCovered` holds a format's rules (and reading codes) to at least
 * one row each.
 */
import { describe, expect, it } from 'vitest'
import type { Diagnostic } from '../../src/core/diagnostics.js'
import { compile } from '../../src/index.js'

export type FixtureRow = readonly [fixture: string, code: string, pointer: string, line: number, column: number, ...more: readonly any[]]

export interface FixtureTable<Row extends FixtureRow> {
  /** The contract a row compiles, and the file its diagnostic points into (the contract itself, or a file it reads). */
  contract(row: Row): { compile: string; file: string }
  failing: readonly Row[]
  warned?: readonly Row[]
  /**
   * `only` (the default): the row's diagnostic is the only one. `among`: it is one of them (a
   * contract whose violation breaks other rules too), and every diagnostic has a position.
   */
  match?: 'only' | 'among'
}

/** Registers the table's tests: `failing fixtures` and `warning fixtures`, one test per row. */
export function describeFixtureTable<Row extends FixtureRow>(table: FixtureTable<Row>): void {
  const run = async (row: Row, severity: Diagnostic['severity']) => {
    const [, code, pointer, line, column] = row
    const { compile: contract, file } = table.contract(row)
    const result = await compile(contract)
    const expected = { code, severity, pointer, line, column, file }
    const seen = result.diagnostics.map((d) => ({ code: d.code, severity: d.severity, pointer: d.pointer, line: d.line, column: d.column, file: d.file }))
    if (table.match === 'among') {
      expect(seen).toContainEqual(expected)
      for (const d of result.diagnostics) expect(d.line).toBeGreaterThan(0)
    } else expect(seen).toEqual([expected])
    expect(result.diagnostics.find((d) => d.code === code && d.pointer === pointer)!.message.length).toBeGreaterThan(10)
    return result
  }
  describe('failing fixtures', () => {
    it.each(table.failing)('%s -> %s at %s (%i:%i)', async (...row) => {
      expect((await run(row as unknown as Row, 'error')).code).toBeUndefined()
    })
  })
  if (table.warned?.length)
    describe('warning fixtures', () => {
      it.each(table.warned!)('%s -> warning %s at %s (%i:%i), and the module is generated', async (...row) => {
        expect((await run(row as unknown as Row, 'warning')).code).toContain('export const')
      })
    })
}

/** Every one of `codes` is the code of a row of one of the tables. */
export function expectEveryCodeCovered(codes: Iterable<string>, ...tables: ReadonlyArray<readonly FixtureRow[]>): void {
  const covered = new Set(tables.flatMap((table) => table.map((row) => row[1])))
  for (const code of codes) expect(covered, code).toContain(code)
}
