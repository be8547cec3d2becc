/** `contracts check --watch`: a real child process over a real folder, edited the way editors save. */
import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from './helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'contracts-watch-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `contracts check --watch <file>` in a child process; `seen` waits (at most 15 s) until stderr has `count` occurrences of `text`. */
function watching(file: string) {
  const child = spawn(process.execPath, [CLI, 'check', '--watch', file], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const seen = async (text: string, count: number) => {
    for (let i = 0; i < 300 && output.split(text).length - 1 < count; i++) await new Promise((r) => setTimeout(r, 50))
    expect(output.split(text).length - 1, output).toBeGreaterThanOrEqual(count)
  }
  return { child, seen, stderr: () => output }
}

describe('contracts check --watch', () => {
  it('checks again after each edit (in place or by rename), and stops on SIGINT with the last status', async () => {
    const file = join(dir, 'payments.spec.json')
    copyFileSync(join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json'), file)
    const valid = readFileSync(file, 'utf8')
    const { child, seen, stderr } = watching(file)
    await seen('watching 1 file', 1)
    expect(stderr()).toContain('1 contract checked: no errors.')

    writeFileSync(file, valid.trimEnd().slice(0, -1))
    await seen('1 contract checked: 1 failed', 1)
    expect(stderr()).toContain('error JSON_SYNTAX')

    // Editors that save atomically write a temporary file and rename it over the contract.
    writeFileSync(join(dir, 'payments.spec.json.tmp'), valid)
    renameSync(join(dir, 'payments.spec.json.tmp'), file)
    await seen('1 contract checked: no errors.', 2)
    await seen('watching 1 file', 3)

    const exit = new Promise<number | null>((done) => child.on('exit', done))
    child.kill('SIGINT')
    expect(await exit).toBe(0)
  }, 30_000)

  it('checks again when a file is made where the check looked and found none (a bundle lock in a parent folder)', async () => {
    const project = join(dir, 'lock-later')
    mkdirSync(join(project, 'svc'), { recursive: true })
    const file = join(project, 'svc/ledger.asyncapi.yaml')
    copyFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), file)
    const { child, seen, stderr } = watching(file)
    await seen('1 contract checked: no errors.', 1)
    await seen('watching', 1)
    // A lock that pins another digest for the document: the document is now in that bundle, and fails.
    writeFileSync(join(project, 'bundle.lock.json'), JSON.stringify({ entries: [{ path: 'svc/ledger.asyncapi.yaml', sha256: '0'.repeat(64) }] }))
    await seen('1 contract checked: 1 failed', 1)
    expect(stderr()).toContain('NATS_LOCK_DIGEST')
    const exit = new Promise<number | null>((done) => child.on('exit', done))
    child.kill('SIGINT')
    expect(await exit).toBe(1)
  }, 30_000)
})
