/**
 * A Vite dev edit compiles once (issue 32): a real dev server, the plugin with its default options
 * (sidecar types on) and a compiler whose `compilations` count every pipeline run the cache did
 * not answer. A save is served from one compile, and the sidecar written after it comes from the
 * same compile (the declarations are written when first read), not from a second one; with the
 * dev page open, its record of the save is that compile too.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import contracts from 'unplugin-contracts/vite'
import { ContractCompiler, inspect } from 'unplugin-contracts'
import { EditorFile } from './helpers/editor-save.js'
import { until as untilEvery } from './helpers/until.js'

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined) => untilEvery(what, probe, 60_000, 50)

const root = join(import.meta.dirname, '.tmp/vite-dev-compiles')
const contract = join(root, 'payments.spec.json')
const sidecar = join(root, 'payments.spec.d.json.ts')
const original = readFileSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), 'utf8')
const compiler = new ContractCompiler()
const editor = new EditorFile(contract)

let server: ViteDevServer
let base: string

const readSidecar = () => {
  try {
    return readFileSync(sidecar, 'utf8')
  } catch {
    return undefined
  }
}

/** The contract module as the browser fetches it (its URL read from the transformed main.js). */
async function contractModule(): Promise<string> {
  const main = await (await fetch(`${base}/main.js`)).text()
  const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(main)?.[1]
  expect(url, main).toBeDefined()
  return (await fetch(base + url)).text()
}

/** The contract's service hash, as the module and the sidecar carry it (by another compiler: not counted). */
const serviceHash = async () => JSON.stringify(((await inspect(contract)).data as { hashes: { service: string } }).hashes.service)

/**
 * Saves the contract with one more optional member, `member`, on CapturePayment (a new contract
 * hash), then waits until the dev server serves the new module and the sidecar has the member,
 * and until nothing more is compiled for a while (the sidecar is written 50 ms after the save is
 * served; a second compile would come with it). Returns how many compiles the save cost.
 */
async function compilesOfSave(member: string): Promise<number> {
  const before = compiler.compilations
  await editor.save(original.replace('"Currency": {', `${JSON.stringify(member)}: { "type": "string" },\n          "Currency": {`))
  const hash = await serviceHash()
  await until('the edited module', async () => ((await contractModule()).includes(hash) ? true : undefined))
  editor.seen()
  await until('the sidecar of the edit', () => (readSidecar()?.includes(`${member}?: string`) ? true : undefined))
  // Quiet for 400 ms: every compile the save caused has happened (each is counted when it starts).
  // Bounded: 10 s of compiles that never stop is a failure of its own.
  let seen = compiler.compilations
  let quiet = 0
  for (let polls = 0; quiet < 8; polls++) {
    if (polls >= 200) throw new Error('the compiles did not stop after the save')
    await new Promise((r) => setTimeout(r, 50))
    if (compiler.compilations === seen) quiet++
    else [seen, quiet] = [compiler.compilations, 0]
  }
  return compiler.compilations - before
}

describe('a Vite dev edit', () => {
  beforeAll(async () => {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    cpSync(join(import.meta.dirname, 'fixtures/app/main.js'), join(root, 'main.js'))
    writeFileSync(contract, original)
    server = await createServer({ root, configFile: false, logLevel: 'silent', plugins: [contracts({ compiler })], server: { host: '127.0.0.1', port: 0 } })
    await server.listen()
    base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
    await contractModule()
    await until('the first sidecar', () => readSidecar())
  })

  afterAll(async () => {
    await server?.close()
  })

  it('is one compile: the module is served from it and the sidecar written from it', async () => {
    expect(compiler.compilations).toBe(1)
    for (let i = 1; i <= 3; i++) expect(await compilesOfSave(`Note${i}`), `save ${i}`).toBe(1)
  })

  it('is still one compile with the dev page open (its record of the edit is the compile the module is served from)', async () => {
    expect((await fetch(`${base}/__contracts/`)).status).toBe(200)
    for (let i = 1; i <= 2; i++) expect(await compilesOfSave(`PageNote${i}`), `save ${i}`).toBe(1)
    const page = await (await fetch(`${base}/__contracts/`)).text()
    expect(page).toContain('payments.spec.json')
  })
})
