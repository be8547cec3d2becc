/**
 * The Vite dev option `diff: 'HEAD'` on repositories a user has, with a real Vite dev server, the
 * real differs and real git repositories made here: whatever the repository, a saved contract is
 * still served, and what the diff could not do is a warning in the server's terminal, never silence
 * about a comparison that was not made:
 *
 * - the version at HEAD does not compile (a broken contract was committed, the working tree fixes
 *   it): the warning says nothing was compared and names HEAD's first error, which no compile of the
 *   working tree reports;
 * - a repository with no commits, and `git` missing from PATH: one warning that says why;
 * - a detached HEAD: compared as any commit; the warning names whom the change breaks.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, createServer, type ViteDevServer } from 'vite'
import { afterEach, describe, expect, it } from 'vitest'
import contracts from '../plugins/vite.js'
import { EditorFile } from './helpers/editor-save.js'
import { until } from './helpers/until.js'

const fixture = readFileSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), 'utf8')
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' }

/** The fixture with its first request gone: a change that breaks that request's clients. */
const withoutFirstRequest = () => {
  const doc = JSON.parse(fixture) as { requests: Array<{ topic: string }> }
  const topic = doc.requests[0]!.topic
  doc.requests = doc.requests.slice(1)
  return { text: JSON.stringify(doc, null, 2), topic }
}
/** The fixture with a `$ref` to a schema it does not declare (BENZENE_REF_MISSING). */
const broken = () => {
  expect(fixture).toContain('"$ref": "#/components/schemas/')
  return fixture.replace('"$ref": "#/components/schemas/', '"$ref": "#/components/schemas/Missing')
}

interface Dev {
  root: string
  contract: string
  editor: EditorFile
  warnings: string[]
  git: (...args: string[]) => string
  served: () => Promise<{ status: number; text: string }>
}

const servers: ViteDevServer[] = []
const roots: string[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A project folder with the app and its contract; `prepare` makes its repository before the server starts. */
async function dev(prepare: (d: Pick<Dev, 'root' | 'contract' | 'git'>) => void): Promise<Dev> {
  const root = mkdtempSync(join(tmpdir(), 'contracts-probe-dev-diff-'))
  roots.push(root)
  const contract = join(root, 'payments.spec.json')
  cpSync(join(import.meta.dirname, 'fixtures/app/main.js'), join(root, 'main.js'))
  writeFileSync(contract, fixture)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env, encoding: 'utf8' })
  prepare({ root, contract, git })
  const editor = new EditorFile(contract)
  const warnings: string[] = []
  const logger = createLogger('warn')
  logger.warn = (message) => void warnings.push(message)
  const server = await createServer({
    root,
    configFile: false,
    customLogger: logger,
    plugins: [contracts({ diff: 'HEAD', types: false })],
    server: { host: '127.0.0.1', port: 0 },
  })
  servers.push(server)
  await server.listen()
  server.watcher.on('change', (file) => {
    if (file === contract) editor.seen()
  })
  const base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
  const served = async () => {
    const main = await (await fetch(`${base}/main.js`)).text()
    const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(main)?.[1]
    expect(url, main).toBeDefined()
    const response = await fetch(base + url)
    return { status: response.status, text: await response.text() }
  }
  // Served once, so that a save is a change to a module of the server.
  expect((await served()).status).toBe(200)
  return { root, contract, editor, warnings, git, served }
}

const diffWarning = (d: Dev) => until('a warning of the diff', () => d.warnings.find((w) => w.startsWith('unplugin-contracts: ')))

describe("Vite dev, diff: 'HEAD', on the repositories users have", () => {
  it('a HEAD version that does not compile: the saved contract is served, and a warning says nothing was compared and names the error at HEAD', async () => {
    const d = await dev(({ contract, git }) => {
      git('init', '-q', '-b', 'main')
      writeFileSync(contract, broken())
      git('add', '-A')
      git('commit', '-q', '-m', 'a broken contract')
      writeFileSync(contract, fixture)
    })
    const edit = withoutFirstRequest()
    await d.editor.save(edit.text)
    const warning = await diffWarning(d)
    expect(warning).toMatch(
      /^unplugin-contracts: payments\.spec\.json was not compared with HEAD \([0-9a-f]{12}\):\n {2}its version at HEAD has errors: BENZENE_REF_MISSING at payments\.spec\.json:\d+:\d+: /,
    )
    const served = await d.served()
    expect(served.status).toBe(200)
    expect(served.text).not.toContain(`"${edit.topic}"`)
  })

  it('a repository with no commits: one warning that HEAD names no commit; the contract is served', async () => {
    const d = await dev(({ git }) => void git('init', '-q', '-b', 'main'))
    await d.editor.save(withoutFirstRequest().text)
    expect(await diffWarning(d)).toMatch(/^unplugin-contracts: the diff against HEAD was not made: .*"HEAD" names no commit in /)
    expect((await d.served()).status).toBe(200)
  })

  it('git missing from PATH: one warning that git could not be run; the contract is served', async () => {
    const d = await dev(({ git }) => {
      git('init', '-q', '-b', 'main')
      git('add', '-A')
      git('commit', '-q', '-m', 'contract')
    })
    const path = process.env.PATH
    process.env.PATH = join(d.root, 'no-such-folder')
    try {
      await d.editor.save(withoutFirstRequest().text)
      expect(await diffWarning(d)).toContain('the diff against HEAD was not made: git could not be run (is it installed and on the PATH?)')
    } finally {
      process.env.PATH = path
    }
    expect((await d.served()).status).toBe(200)
  })

  it('a detached HEAD: compared with that commit; the warning names whom the change breaks', async () => {
    const d = await dev(({ git }) => {
      git('init', '-q', '-b', 'main')
      git('add', '-A')
      git('commit', '-q', '-m', 'contract')
      git('checkout', '-q', '--detach')
    })
    const head = d.git('rev-parse', 'HEAD').trim()
    const edit = withoutFirstRequest()
    await d.editor.save(edit.text)
    const warning = await diffWarning(d)
    expect(warning).toContain(`payments.spec.json has 1 breaking change against HEAD (${head.slice(0, 12)}):`)
    expect(warning).toContain(`breaks client ${edit.topic}: `)
    expect((await d.served()).status).toBe(200)
  })
})
