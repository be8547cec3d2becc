/**
 * A compiler's cache check reads every file a cached result read and compares digests; a file found
 * changed is decoded there and handed to the compile that follows (compile.ts `stillValid`,
 * input-host.ts `changed`), instead of being read and digested a second time. What that compile
 * writes and records must be what a compile that read the file itself writes and records: the same
 * result as a fresh compiler's, the digest of the text it compiled (so the next unchanged compile
 * is answered from the cache), and the same refusal of bytes that are not UTF-8.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/index.js'

const work = join(import.meta.dirname, '.tmp/changed-read')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })
afterAll(() => rmSync(work, { recursive: true, force: true }))

const doc = (max: number, title = 'T') =>
  JSON.stringify({
    openapi: '3.0.1',
    info: { title, version: '1' },
    requests: [{ topic: 'svc:a', request: { $ref: '#/components/schemas/A' }, response: { type: 'object' } }],
    events: [],
    components: { schemas: { A: { type: 'object', properties: { x: { type: 'string', maxLength: max } } } } },
  })

describe('a recompile after the cache check found the file changed', () => {
  it('writes what a fresh compiler writes, and the next compile of the unchanged file is answered from the cache', async () => {
    const file = join(work, 'a.spec.json')
    const compiler = new ContractCompiler()
    for (const [i, text] of [doc(3), doc(4), '\ufeff' + doc(5), doc(5, 'é ✓'), doc(6)].entries()) {
      writeFileSync(file, text)
      const warm = await compiler.compile(file)
      const fresh = await new ContractCompiler().compile(file)
      expect(warm.code, `edit ${i}`).toBe(fresh.code)
      expect(warm.diagnostics).toEqual(fresh.diagnostics)
      expect(warm.code).toContain(i < 2 ? `${3 + i}` : i < 4 ? '5' : '6')
      const compiled = compiler.compilations
      // Unchanged since: the digest recorded is that of the bytes compiled.
      expect(await compiler.compile(file)).toBe(warm)
      expect(compiler.compilations).toBe(compiled)
    }
  })

  it('refuses bytes that are not UTF-8 as a first read does, and reads the file again once it is fixed', async () => {
    const file = join(work, 'b.spec.json')
    const compiler = new ContractCompiler()
    writeFileSync(file, doc(3))
    expect((await compiler.compile(file)).code).toBeDefined()
    writeFileSync(file, Buffer.concat([Buffer.from(doc(3).slice(0, 20)), Buffer.from([0xff, 0xfe]), Buffer.from(doc(3).slice(20))]))
    const broken = await compiler.compile(file)
    expect(broken.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_NOT_UTF8'])
    expect(broken.diagnostics).toEqual((await new ContractCompiler().compile(file)).diagnostics)
    writeFileSync(file, doc(9))
    expect((await compiler.compile(file)).code).toContain('9')
  })
})
