/** The core pipeline: cache, dependencies, and inputs that are not contracts. */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ContractCompiler, compile } from '../src/index.js'
import { waitingWriter } from './helpers/fifo-writer.js'

const work = join(import.meta.dirname, '.tmp/compile')
const source = join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json')
const file = join(work, 'payments.spec.json')

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  cpSync(source, file)
})

describe('cache', () => {
  it('serves an unchanged contract from the cache, recompiles when a byte or an option changes', async () => {
    const compiler = new ContractCompiler()
    const first = await compiler.compile(file)
    expect(await compiler.compile(file)).toBe(first)
    expect(compiler.compilations).toBe(1)
    await compiler.compile(file, { query: 'topics=payments:refund' })
    expect(compiler.compilations).toBe(2)
    writeFileSync(file, readFileSync(source, 'utf8').replace('"payments-api"', '"payments-api-v2"'))
    const changed = await compiler.compile(file)
    expect(compiler.compilations).toBe(3)
    expect(changed.code).not.toBe(first.code)
    // Same bytes as before (touching the file without changing it) is a cache hit again.
    writeFileSync(file, readFileSync(file))
    expect(await compiler.compile(file)).toBe(changed)
    expect(compiler.compilations).toBe(3)
  })

  it('reports the contract as its dependency', async () => {
    const result = await compile(file)
    expect(result.dependencies).toEqual([file])
    // A Benzene contract reads its own file and looks for nothing else.
    expect(result.absentDependencies).toEqual([])
  })

  it('reports where a NATS document looked for its bundle lock and found none; a lock made there is a recompile', async () => {
    const dir = join(work, 'standalone/svc')
    mkdirSync(dir, { recursive: true })
    const ledger = join(dir, 'ledger.asyncapi.yaml')
    cpSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), ledger)
    const compiler = new ContractCompiler()
    const first = await compiler.compile(ledger)
    expect(first.diagnostics).toEqual([])
    const upward: string[] = []
    for (let current = dir; ; current = dirname(current)) {
      upward.push(join(current, 'bundle.lock.json'))
      if (dirname(current) === current) break
    }
    expect(first.absentDependencies).toEqual(upward)
    const lock = join(work, 'standalone/bundle.lock.json')
    writeFileSync(lock, JSON.stringify({ entries: [{ path: 'svc/ledger.asyncapi.yaml', sha256: '0'.repeat(64) }] }))
    try {
      const second = await compiler.compile(ledger)
      expect(compiler.compilations).toBe(2)
      expect(second.dependencies).toContain(lock)
      expect(second.absentDependencies).toEqual([join(dir, 'bundle.lock.json')])
      expect(second.diagnostics.map((d) => d.code)).toContain('NATS_LOCK_DIGEST')
    } finally {
      rmSync(lock)
    }
  })
})

describe('a read that failed is never a cached answer', () => {
  // Was a defect (fixed; found by test/probe-watch): the result of a compile whose contract could not be read (missing,
  // a folder, a link) recorded nothing of that file, so the compiler's memory answered it again after the file was made
  // a regular file: `check --watch` kept printing CONTRACTS_READ_FAILED for a contract that was back.
  it('a contract missing, a folder, then a link, each made a regular file again: the same compiler reads it anew', async () => {
    const dir = join(work, 'comes-back')
    mkdirSync(dir, { recursive: true })
    const back = join(dir, 'payments.spec.json')
    const compiler = new ContractCompiler()
    const codes = async () => (await compiler.compile(back)).diagnostics.map((d) => d.code)
    expect(await codes()).toEqual(['CONTRACTS_READ_FAILED'])
    cpSync(source, back)
    expect(await codes()).toEqual([])
    rmSync(back)
    mkdirSync(back)
    expect(await codes()).toEqual(['CONTRACTS_READ_FAILED'])
    rmSync(back, { recursive: true })
    execFileSync('ln', ['-s', source, back])
    expect(await codes()).toEqual(['CONTRACTS_SYMLINK'])
    rmSync(back)
    cpSync(source, back)
    expect(await codes()).toEqual([])
    // A result that read every file it needed is still answered from memory.
    const compilations = compiler.compilations
    await compiler.compile(back)
    expect(compiler.compilations).toBe(compilations)
  })
})

describe('a folder on the way swapped for a link out of the tree', () => {
  it('is never answered from the cache: the next compile refuses it as a fresh one does', async () => {
    // Was a defect (fixed): the entry checked each file's digest only, and the link led to a copy
    // with the same bytes (a DASP selection's extensions folder), so the cache answered a module
    // that a fresh compile refuses as outside the contract's tree.
    const dir = join(work, 'folder-link')
    rmSync(dir, { recursive: true, force: true })
    cpSync(join(import.meta.dirname, '../fixtures/dasp'), join(dir, 'dasp'), { recursive: true })
    const file = join(dir, 'dasp/counter.dasp.json')
    const compiler = new ContractCompiler()
    expect((await compiler.compile(file)).diagnostics).toEqual([])
    cpSync(join(dir, 'dasp/extensions'), join(dir, 'aside'), { recursive: true })
    rmSync(join(dir, 'dasp/extensions'), { recursive: true })
    symlinkSync('../aside', join(dir, 'dasp/extensions'))
    const fresh = await new ContractCompiler().compile(file)
    expect(fresh.diagnostics.map((d) => d.code)).toContain('DASP_DEFINITION_SOURCE')
    const again = await compiler.compile(file)
    expect(again.diagnostics).toEqual(fresh.diagnostics)
    expect(again.code).toBeUndefined()
  })
})

describe('inputs that are not contracts', () => {
  it('an unknown format, a missing file, bytes that are not UTF-8: diagnostics, never a throw', async () => {
    expect((await compile(join(work, 'x.yaml'))).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_UNKNOWN_FORMAT'])
    // A folder (`contracts check src`): the message says it is one, and what to give instead.
    mkdirSync(join(work, 'src'), { recursive: true })
    const folder = await compile(join(work, 'src'))
    expect(folder.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['CONTRACTS_UNKNOWN_FORMAT', expect.stringContaining('it is a folder; give the contract files in it')],
    ])
    expect((await compile(join(work, 'x.yaml'))).diagnostics[0]!.message).not.toContain('folder')
    expect((await compile(join(work, 'missing.spec.json'))).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_READ_FAILED'])
    writeFileSync(join(work, 'latin1.spec.json'), Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]))
    expect((await compile(join(work, 'latin1.spec.json'))).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_NOT_UTF8'])
    writeFileSync(join(work, 'empty.spec.json'), '')
    expect((await compile(join(work, 'empty.spec.json'))).diagnostics.map((d) => d.code)).toEqual(['JSON_SYNTAX'])
    writeFileSync(join(work, 'array.spec.json'), '[]')
    expect((await compile(join(work, 'array.spec.json'))).diagnostics.map((d) => [d.code, d.pointer])).toEqual([['BENZENE_WRONG_TYPE', '']])
  })

  it('a FIFO or a folder under a contract name is refused at once, never waited on', async () => {
    // Reads are synchronous (input-host.ts): opening a FIFO for reading would block the process.
    execFileSync('mkfifo', [join(work, 'pipe.asyncapi.yaml')])
    mkdirSync(join(work, 'folder.spec.json'))
    for (const name of ['pipe.asyncapi.yaml', 'folder.spec.json']) {
      const result = await compile(join(work, name))
      expect(result.diagnostics.map((d) => [d.code, d.message.includes('not a regular file')])).toEqual([['CONTRACTS_READ_FAILED', true]])
    }
  })

  it('a FIFO under a contract name is never opened: a writer waiting on it stays waiting', async () => {
    // Opening it, even without blocking, would let the writer go on (and feed what it holds).
    const fifo = join(work, 'waited.asyncapi.yaml')
    execFileSync('mkfifo', [fifo])
    const writer = waitingWriter(fifo)
    try {
      const result = await compile(fifo)
      expect(result.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_READ_FAILED'])
      expect(await writer.released()).toBe(false)
    } finally {
      writer.stop()
    }
  })

  it('a byte order mark is tolerated and positions stay right', async () => {
    writeFileSync(join(work, 'bom.spec.json'), '\uFEFF' + readFileSync(join(import.meta.dirname, '../fixtures/benzene/invalid/ref-missing.spec.json'), 'utf8'))
    const result = await compile(join(work, 'bom.spec.json'))
    expect(result.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([['BENZENE_REF_MISSING', 16, 17]])
  })
})

describe('positions', () => {
  it('the shallow position scan agrees with the full syntax tree', async () => {
    const { parseJsonSource } = await import('../src/core/json-source.js')
    const { readdirSync } = await import('node:fs')
    const dirs = [join(import.meta.dirname, '../fixtures/benzene/valid'), join(import.meta.dirname, '../fixtures/dasp')]
    for (const dir of dirs) {
      for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        const text = readFileSync(join(dir, name), 'utf8')
        const fast = parseJsonSource(name, text).source
        const slow = parseJsonSource(name, text).source
        slow.locate('/x/y/z/deep') // builds the full tree first
        const pointers: string[] = []
        const walk = (v: unknown, p: string, depth: number) => {
          if (depth > 2) return
          pointers.push(p)
          if (Array.isArray(v)) v.forEach((c, i) => walk(c, `${p}/${i}`, depth + 1))
          else if (v && typeof v === 'object') for (const [k, c] of Object.entries(v)) walk(c, `${p}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1)
        }
        walk(fast.value, '', 0)
        expect(pointers.length).toBeGreaterThan(3)
        for (const p of pointers) expect(fast.locate(p), `${name} ${p}`).toEqual(slow.locate(p))
      }
    }
  })
})
