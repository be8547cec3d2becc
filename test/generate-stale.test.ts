/**
 * `contracts generate` and what an earlier run wrote: a document no longer given leaves its module
 * behind, an application no longer in the bundle its Rust module. They are listed as stale, and
 * `--clean` removes them; nothing else under `--out` is read or touched (a file without the marker,
 * a link to a generated file, a folder or FIFO of a matching name, a crate's `target/`).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { run } from '../src/cli/index.js'
import { MAX_LOOKED } from '../src/cli/stale-outputs.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/generate-stale')
const payments = join(repo, 'fixtures/benzene/valid/payments.spec.json')
const counter = join(repo, 'fixtures/dasp/counter.dasp.json')
const ledger = join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml')
const subjects = join(repo, 'conformance/nats/subjects.asyncapi.json')

/** The command in this process, with absolute paths only (no working folder needed). */
async function contracts(...args: string[]): Promise<{ status: number; err: string }> {
  let err = ''
  const status = await run(['generate', '--no-cache', ...args], { out: () => {}, err: (text) => (err += text + '\n') })
  return { status, err }
}

let out: string
beforeEach(() => {
  out = join(work, `out-${Math.random().toString(36).slice(2)}`)
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})

describe('--target typescript', () => {
  it("lists a dropped document's module as stale and leaves it; --clean removes it and nothing else", async () => {
    expect((await contracts('--target', 'typescript', '--out', out, payments, counter)).status).toBe(0)
    const paymentsJs = readFileSync(join(out, 'payments.js'), 'utf8')

    const listed = await contracts('--target', 'typescript', '--out', out, payments)
    expect(listed.status).toBe(0)
    expect(listed.err).toContain(`stale ${join(out, 'counter.d.ts')}\nstale ${join(out, 'counter.js')}\n`)
    expect(listed.err).toContain(`2 generated files under ${out} not written by this run`)
    expect(listed.err).not.toContain('payments.js\n')
    expect([existsSync(join(out, 'counter.js')), existsSync(join(out, 'counter.d.ts'))]).toEqual([true, true])

    const cleaned = await contracts('--target', 'typescript', '--out', out, '--clean', payments)
    expect(cleaned.status).toBe(0)
    expect(cleaned.err).toContain(`removed ${join(out, 'counter.d.ts')}\nremoved ${join(out, 'counter.js')}\n`)
    expect([existsSync(join(out, 'counter.js')), existsSync(join(out, 'counter.d.ts'))]).toEqual([false, false])
    expect(readFileSync(join(out, 'payments.js'), 'utf8')).toBe(paymentsJs)

    // Nothing is stale once the folder holds only this run's files.
    const again = await contracts('--target', 'typescript', '--out', out, '--clean', payments)
    expect(again.status).toBe(0)
    expect(again.err).not.toMatch(/^(stale|removed) /m)
  })

  it('never lists or touches a file without the marker, a link, a folder or a FIFO of a matching name', async () => {
    expect((await contracts('--target', 'typescript', '--out', out, payments)).status).toBe(0)
    // A generated file outside --out, and a link to it inside: the link is not followed, not removed.
    const elsewhere = join(work, 'elsewhere')
    mkdirSync(elsewhere)
    expect((await contracts('--target', 'typescript', '--out', elsewhere, counter)).status).toBe(0)
    const outsideText = readFileSync(join(elsewhere, 'counter.js'), 'utf8')
    symlinkSync(join(elsewhere, 'counter.js'), join(out, 'linked.js'))
    writeFileSync(join(out, 'notes.js'), '// written by hand\nexport const x = 1\n')
    // The marker, but not a shape the target writes (.ts, not .d.ts): not this target's output.
    writeFileSync(join(out, 'helper.ts'), readFileSync(join(elsewhere, 'counter.d.ts')))
    mkdirSync(join(out, 'folder.js'))
    execFileSync('mkfifo', [join(out, 'pipe.js')])

    const cleaned = await contracts('--target', 'typescript', '--out', out, '--clean', payments)
    expect(cleaned.status).toBe(0)
    expect(cleaned.err).not.toMatch(/^(stale|removed) /m)
    expect(readFileSync(join(elsewhere, 'counter.js'), 'utf8')).toBe(outsideText)
    for (const name of ['linked.js', 'notes.js', 'helper.ts', 'folder.js', 'pipe.js']) expect(existsSync(join(out, name)), name).toBe(true)
  })

  it('looks at a bounded number of entries, and says so past it', async () => {
    mkdirSync(out)
    for (let i = 0; i <= MAX_LOOKED; i++) writeFileSync(join(out, `${i}.txt`), '')
    const r = await contracts('--target', 'typescript', '--out', out, payments)
    expect(r.status).toBe(0)
    expect(r.err).toContain(`${out} holds more than ${MAX_LOOKED} entries; files past them were not looked at for stale outputs.`)
  })
})

describe('--target rust', () => {
  it("lists an application dropped from the bundle (its src/<app>.rs) and --clean removes it; the crate's target/ is never read", async () => {
    expect((await contracts('--target', 'rust', '--out', out, ledger, subjects)).status).toBe(0)
    const modules = () =>
      execFileSync('ls', [join(out, 'src')], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
    const before = modules()
    expect(before.length).toBe(4)
    // A copy of the sources in the crate's build folder, as `cargo package` makes one.
    mkdirSync(join(out, 'target/package/src'), { recursive: true })
    cpSync(join(out, 'src'), join(out, 'target/package/src'), { recursive: true })

    const listed = await contracts('--target', 'rust', '--out', out, ledger)
    expect(listed.status).toBe(0)
    // The module lib.rs no longer declares.
    const lib = readFileSync(join(out, 'src/lib.rs'), 'utf8')
    const stale = before.filter((m) => m !== 'lib.rs' && m !== 'common.rs' && !lib.includes(`mod ${m.slice(0, -'.rs'.length)};`))
    expect(stale).toHaveLength(1)
    expect(listed.err).toContain(`stale ${join(out, 'src', stale[0]!)}\n`)
    expect(listed.err).toContain('1 generated file under')

    const cleaned = await contracts('--target', 'rust', '--out', out, '--clean', ledger)
    expect(cleaned.status).toBe(0)
    expect(cleaned.err).toContain(`removed ${join(out, 'src', stale[0]!)}\n`)
    expect(modules()).toHaveLength(3)
    expect(existsSync(join(out, 'target/package/src', stale[0]!))).toBe(true)
  })
})
