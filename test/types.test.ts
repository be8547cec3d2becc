/** The sidecar declarations type-check a real app with `tsc`, and reject a wrong payload. */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundlers } from './helpers/bundlers.js'
import { contracts, tsc, TSC, TSC7 } from './helpers/cli.js'

/** Sidecars must satisfy TypeScript 6 and TypeScript 7 (the native compiler) alike. */
const compilers = { 'TypeScript 6': TSC, 'TypeScript 7': TSC7 }
const everyTsc = (args: string[], cwd: string) => Object.entries(compilers).map(([name, compiler]) => ({ name, ...tsc(args, cwd, compiler) }))

const work = join(import.meta.dirname, '.tmp/types')
const contract = join(work, 'payments.spec.json')
const sidecar = join(work, 'payments.spec.d.json.ts')

describe('sidecar types', () => {
  beforeAll(() => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    cpSync(join(import.meta.dirname, 'fixtures/types-app'), work, { recursive: true })
    cpSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), contract)
    writeFileSync(join(work, 'tsconfig.wrong.json'), JSON.stringify({ extends: './tsconfig.json', files: ['wrong-payload.ts'] }))
  })

  it('without the sidecar, TypeScript cannot type the import', () => {
    const r = tsc(['-p', '.'], work)
    expect(r.status).not.toBe(0)
    expect(r.output).toMatch(/payments\.spec.*has no exported member 'capture'|Cannot find module '.\/payments\.spec\.json'/)
  })

  it('`contracts types` writes <name>.d.json.ts, and `tsc --noEmit` passes on the app', () => {
    const r = contracts(['types', contract])
    expect(r.status).toBe(0)
    expect(r.stderr).toContain(`wrote ${sidecar}`)
    for (const check of everyTsc(['-p', '.'], work)) expect([check.name, check.status, check.output]).toEqual([check.name, 0, ''])
  })

  it('`tsc` fails on a wrong payload, at the wrong members', () => {
    for (const r of everyTsc(['-p', 'tsconfig.wrong.json'], work)) {
      expect(r.status, r.name).not.toBe(0)
      expect(r.output).toMatch(/wrong-payload\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/)
      expect(r.output).toMatch(/error TS2322: Type '"Cash"' is not assignable to type 'PaymentMethod \| undefined'/)
      expect(r.output).toMatch(/wrong-payload\.ts\(10,\d+\): error TS18048: 'r\.payload' is possibly 'undefined'/)
    }
  })

  it('`contracts types` and the plugin rewrite the sidecar only when its content changes', async () => {
    const before = statSync(sidecar).mtimeMs
    expect(contracts(['types', contract]).stderr).toContain(`unchanged ${sidecar}`)
    writeFileSync(join(work, 'main.js'), "import { capture } from './payments.spec.json'\nexport const topic = capture.topic\n")
    await bundlers.rollup!(join(work, 'main.js'), join(work, 'out'))
    expect(statSync(sidecar).mtimeMs).toBe(before)
  })

  it('the plugin writes the sidecar on build, and not with `types: false`', async () => {
    rmSync(sidecar)
    await bundlers.rollup!(join(work, 'main.js'), join(work, 'out'), { types: false })
    expect(existsSync(sidecar)).toBe(false)
    await bundlers.rollup!(join(work, 'main.js'), join(work, 'out'))
    expect(existsSync(sidecar)).toBe(true)
    for (const check of everyTsc(['-p', '.'], work)) expect([check.name, check.status]).toEqual([check.name, 0])
  })

  it('query imports are typed: the plugin writes an ambient declaration per query the build served, which TS 6 and 7 read', async () => {
    const queries = join(work, 'payments.spec.json-queries.d.ts')
    rmSync(queries, { force: true })
    writeFileSync(
      join(work, 'queries.js'),
      [
        "export { capture, refund } from './payments.spec.json?topics=payments:capture,payments:refund'",
        "export { capture as unchecked } from './payments.spec.json?validate=false'",
        '',
      ].join('\n'),
    )
    await bundlers.rollup!(join(work, 'queries.js'), join(work, 'out-queries'))
    expect(readFileSync(queries, 'utf8')).toMatch(
      /^declare module "\*\/payments\.spec\.json\?topics=payments:capture,payments:refund" \{\n {2}import type \* as \$runtime from "unplugin-contracts\/runtime";/m,
    )
    writeFileSync(
      join(work, 'queries-app.ts'),
      [
        "import { capture, refund } from './payments.spec.json?topics=payments:capture,payments:refund'",
        "import { capture as unchecked, getAll } from './payments.spec.json?validate=false'",
        "const version: 'v2' = capture.version",
        'export const ids = [version, refund.topic, unchecked.topic, getAll.topic]',
        '',
      ].join('\n'),
    )
    writeFileSync(
      join(work, 'queries-wrong.ts'),
      "import { getAll } from './payments.spec.json?topics=payments:capture,payments:refund'\nexport const topic = getAll.topic\n",
    )
    writeFileSync(
      join(work, 'tsconfig.queries.json'),
      JSON.stringify({ extends: './tsconfig.json', files: ['queries-app.ts', 'payments.spec.json-queries.d.ts'] }),
    )
    writeFileSync(
      join(work, 'tsconfig.queries-wrong.json'),
      JSON.stringify({ extends: './tsconfig.json', files: ['queries-wrong.ts', 'payments.spec.json-queries.d.ts'] }),
    )
    for (const check of everyTsc(['-p', 'tsconfig.queries.json'], work)) expect([check.name, check.status, check.output]).toEqual([check.name, 0, ''])
    // A topic outside the query's scope is not in that module's types.
    for (const check of everyTsc(['-p', 'tsconfig.queries-wrong.json'], work)) {
      expect(check.status, check.name).not.toBe(0)
      expect(check.output, check.name).toMatch(
        /queries-wrong\.ts\(1,10\): error TS2305: Module '"\*\/payments\.spec\.json\?topics=payments:capture,payments:refund"' has no exported member 'getAll'/,
      )
    }
    // Unchanged on the next build; rebuilt the same from scratch (deterministic).
    const before = readFileSync(queries, 'utf8')
    rmSync(queries)
    await bundlers.rollup!(join(work, 'queries.js'), join(work, 'out-queries'))
    expect(readFileSync(queries, 'utf8')).toBe(before)
    // `contracts types` given the same queries writes the same file.
    rmSync(queries)
    const cli = contracts(['types', `${contract}?validate=false`, `${contract}?topics=payments:capture,payments:refund`])
    expect([cli.status, cli.stderr]).toEqual([0, expect.stringContaining(`wrote ${queries}`)])
    expect(readFileSync(queries, 'utf8')).toBe(before)
  })
})
