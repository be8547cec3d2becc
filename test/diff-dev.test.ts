/**
 * The Vite dev option `diff: 'HEAD'` with a real Vite dev server: a saved edit of a contract is
 * compared with its version at HEAD of the git repository the test builds, and the breaking findings,
 * with whom they break, are a warning in the server's terminal; the module is still served (never a
 * failure). The differ registry is replaced by a fake Benzene differ that breaks a client whenever the
 * document's text changed (the real differs are their own files' tests).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { FormatDiffer } from '../src/core/diff/types.js'
import { resolveOptions } from '../src/plugin/options.js'
import contracts from '../plugins/vite.js'
import { EditorFile } from './helpers/editor-save.js'
import { until } from './helpers/until.js'

vi.mock('../src/formats/diffs.js', async (original) => {
  const real = await original<typeof import('../src/formats/diffs.js')>()
  const fake: FormatDiffer<unknown> = {
    format: 'benzene',
    rules: [],
    diff: async (old, next) => {
      const [before, after] = [await old.read(old.file), await next.read(next.file)]
      if (before === after) return []
      return [
        {
          rule: 'fake-changed',
          level: 'breaking',
          audiences: [{ kind: 'client', name: 'payments:capture' }],
          old: { file: old.file, pointer: '/info/title', line: 4, column: 14 },
          new: { file: next.file, pointer: '/info/title', line: 4, column: 14 },
          message: 'The title changed \u001b[31m(hostile)',
        },
        { rule: 'fake-info', level: 'info', audiences: [], new: { file: next.file, pointer: '', line: 1, column: 1 }, message: 'An info finding.' },
      ]
    },
  }
  return { ...real, loadDiffer: async (format: string) => (format === 'benzene' ? fake : real.loadDiffer(format)) }
})

const root = mkdtempSync(join(tmpdir(), 'contracts-diff-dev-'))
const contract = join(root, 'payments.spec.json')
const original = readFileSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), 'utf8')
const editor = new EditorFile(contract)
const warnings: string[] = []
let server: ViteDevServer
let base: string

const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' }
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env, encoding: 'utf8' })

async function contractModule(): Promise<{ status: number; text: string }> {
  const main = await (await fetch(`${base}/main.js`)).text()
  const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(main)?.[1]
  expect(url, main).toBeDefined()
  const response = await fetch(base + url)
  return { status: response.status, text: await response.text() }
}

beforeAll(async () => {
  cpSync(join(import.meta.dirname, 'fixtures/app/main.js'), join(root, 'main.js'))
  writeFileSync(contract, original)
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-q', '-m', 'contract')
  const logger = createLogger('warn')
  logger.warn = (message) => void warnings.push(message)
  server = await createServer({
    root,
    configFile: false,
    customLogger: logger,
    plugins: [contracts({ diff: 'HEAD', types: false })],
    server: { host: '127.0.0.1', port: 0 },
  })
  await server.listen()
  server.watcher.on('change', (file) => {
    if (file === contract) editor.seen()
  })
  base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
})

afterAll(async () => {
  await server?.close()
  rmSync(root, { recursive: true, force: true })
})

describe("Vite dev: diff: 'HEAD'", () => {
  it('a saved breaking edit is a warning in the terminal that says for whom; the module is still served', async () => {
    expect((await contractModule()).status).toBe(200)
    expect(warnings).toEqual([])
    const title = JSON.parse(original).info.title as string
    await editor.save(original.replace(`"title": "${title}"`, `"title": "${title}-2"`))
    const warning = await until('the diff warning', () => warnings.find((w) => w.includes('breaking change')))
    expect(warning).toContain('unplugin-contracts: payments.spec.json has 1 breaking change against HEAD (')
    expect(warning).toContain('  breaks client payments:capture: fake-changed at payments.spec.json:4:14: The title changed \\u{1b}[31m(hostile)')
    // Info findings are not warned of; terminal control characters never reach the terminal.
    expect(warning).not.toContain('An info finding')
    expect(warning).not.toContain('\u001b')
    // Served from the edit as before: the diff is a warning beside it, never an error.
    const served = await contractModule()
    expect(served.status).toBe(200)
    expect(served.text).toContain('export')
    expect(warnings.filter((w) => w.includes('breaking change'))).toHaveLength(1)
    // The dev page says it too, under the contract, HTML-escaped.
    const page = await (await fetch(`${base}/__contracts/`)).text()
    expect(page).toContain('<pre class="diagnostic warning diff">payments.spec.json has 1 breaking change against HEAD (')
    expect(page).toContain('breaks client payments:capture: fake-changed at payments.spec.json:4:14')
  })

  it('the option takes a git ref or false; anything else is refused when the plugin is made', () => {
    expect(resolveOptions({ diff: 'HEAD' }).options.diff).toBe('HEAD')
    expect(resolveOptions({ diff: false }).options.diff).toBeUndefined()
    expect(resolveOptions({}).options.diff).toBeUndefined()
    for (const diff of ['--upload-pack=x', 'HEAD:../x', true, 3, ''])
      expect(resolveOptions({ diff }).problems, String(diff)).toEqual([
        expect.objectContaining({ code: 'CONTRACTS_INVALID_PLUGIN_OPTION', data: { option: 'diff', value: diff } }),
      ])
  })
})
