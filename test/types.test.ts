/** The sidecar declarations type-check a real app with `tsc`, and reject a wrong payload. */
import { cpSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundlers } from './helpers/bundlers.js'
import { contracts, tsc } from './helpers/cli.js'

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
    const check = tsc(['-p', '.'], work)
    expect(check.output).toBe('')
    expect(check.status).toBe(0)
  })

  it('`tsc` fails on a wrong payload, at the wrong members', () => {
    const r = tsc(['-p', 'tsconfig.wrong.json'], work)
    expect(r.status).not.toBe(0)
    expect(r.output).toMatch(/wrong-payload\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/)
    expect(r.output).toMatch(/error TS2322: Type '"Cash"' is not assignable to type 'PaymentMethod \| undefined'/)
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
    expect(tsc(['-p', '.'], work).status).toBe(0)
  })
})
