/**
 * Issue 29, "files written through links": the attacks as written, against a real Rollup build and
 * the built `contracts` CLI. A contract folder from another team ships its sidecar path as a link to
 * a script (`payments.spec.d.json.ts -> ../../deploy.sh`); the chain with a NATS contract named
 * `#orders.asyncapi.yaml` whose binding holds ``x`touch pwned` `` (the declarations are a working
 * shell payload: `bash` on them runs the command); `contracts types` and query declarations through
 * a link; `generate` with two versions of one contract id, into an `--out` holding a link or a file
 * of the user's; `topology --out` onto a link and onto a foreign file. Each time: the script is
 * unchanged, the build or the command says why (CONTRACTS_WRITE_REFUSED, or a usage error naming
 * both inputs), and running the script runs nothing planted. The command runs in this process
 * (contractsInProcess: what is tested is its logic); one case of each command also runs the binary.
 */
import { spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { bundlers } from './helpers/bundlers.js'
import { contracts, contractsInProcess as cli } from './helpers/cli.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/write-attacks')
/** The other team's folder, two levels below the project (`../../deploy.sh` from it is the project's script). */
const vendor = join(work, 'vendor/contracts')
const deploy = join(work, 'deploy.sh')
const SCRIPT = '#!/bin/sh\necho deploying\n'
const PAYMENTS = readFileSync(join(repo, 'test/fixtures/app/payments.spec.json'), 'utf8')
/** The ledger fixture with its deployment binding holding a shell command substitution. */
const ORDERS = readFileSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8').replace('binding: ledger-prod', 'binding: "x`touch pwned` "')

/** What a user would see: the script's bytes and that it is still the same plain file. */
const script = () => ({ text: readFileSync(deploy, 'utf8'), link: lstatSync(deploy).isSymbolicLink() })
/** `bash deploy.sh` in the project folder: it must not create `pwned` there. */
const runDeploy = () => spawnSync('bash', ['deploy.sh'], { cwd: work, encoding: 'utf8' })

beforeEach(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(vendor, { recursive: true })
  writeFileSync(deploy, SCRIPT)
})

describe('a sidecar path linked to a script, in a real Rollup build', () => {
  it('payments.spec.d.json.ts -> ../../deploy.sh: the build fails with CONTRACTS_WRITE_REFUSED and deploy.sh is unchanged', async () => {
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS)
    symlinkSync('../../deploy.sh', join(vendor, 'payments.spec.d.json.ts'))
    writeFileSync(join(work, 'main.js'), "import { capture } from './vendor/contracts/payments.spec.json'\nexport const topic = capture.topic\n")
    const build = bundlers.rollup!(join(work, 'main.js'), join(work, 'out'))
    await expect(build).rejects.toThrow(/CONTRACTS_WRITE_REFUSED: .*payments\.spec\.d\.json\.ts is a symbolic link/)
    expect(script()).toEqual({ text: SCRIPT, link: false })
    expect(readlinkSync(join(vendor, 'payments.spec.d.json.ts'))).toBe('../../deploy.sh')
  })

  it('the `#orders.asyncapi.yaml` chain: the declarations are a live shell payload, yet deploy.sh is unchanged and `bash deploy.sh` creates no pwned', async () => {
    // The payload is real: the declarations of this contract, written to a plain file and run by
    // bash, do create `pwned` (the `#` of the name comments out the rest of the first line, and the
    // binding's backticks are a command substitution).
    const control = join(work, 'control')
    mkdirSync(control)
    writeFileSync(join(control, '#orders.asyncapi.yaml'), ORDERS)
    expect((await cli(['types', join(control, '#orders.asyncapi.yaml')])).status).toBe(0)
    spawnSync('bash', ['#orders.asyncapi.d.yaml.ts'], { cwd: control })
    expect(existsSync(join(control, 'pwned'))).toBe(true)

    writeFileSync(join(vendor, '#orders.asyncapi.yaml'), ORDERS)
    symlinkSync('../../deploy.sh', join(vendor, '#orders.asyncapi.d.yaml.ts'))
    writeFileSync(
      join(work, 'main.js'),
      "import { contract } from './vendor/contracts/#orders.asyncapi.yaml'\nexport const binding = contract.deployment.binding\n",
    )
    const build = bundlers.rollup!(join(work, 'main.js'), join(work, 'out'))
    await expect(build).rejects.toThrow(/CONTRACTS_WRITE_REFUSED: .*#orders\.asyncapi\.d\.yaml\.ts is a symbolic link/)
    expect(script()).toEqual({ text: SCRIPT, link: false })
    const ran = runDeploy()
    expect([ran.status, ran.stdout]).toEqual([0, 'deploying\n'])
    expect(existsSync(join(work, 'pwned'))).toBe(false)
  })

  it('query declarations (`<contract>-queries.d.ts`) linked to the script: the build fails and the script is unchanged', async () => {
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS)
    symlinkSync('../../deploy.sh', join(vendor, 'payments.spec.json-queries.d.ts'))
    writeFileSync(join(work, 'main.js'), "export { capture } from './vendor/contracts/payments.spec.json?topics=payments:capture'\n")
    await expect(bundlers.rollup!(join(work, 'main.js'), join(work, 'out'))).rejects.toThrow(
      /CONTRACTS_WRITE_REFUSED: .*payments\.spec\.json-queries\.d\.ts is a symbolic link/,
    )
    expect(script()).toEqual({ text: SCRIPT, link: false })
  })

  it('a sidecar the project wrote before is updated normally; without links the build passes', async () => {
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS)
    writeFileSync(join(work, 'main.js'), "import { capture } from './vendor/contracts/payments.spec.json'\nexport const topic = capture.topic\n")
    await bundlers.rollup!(join(work, 'main.js'), join(work, 'out'))
    const sidecar = join(vendor, 'payments.spec.d.json.ts')
    const first = readFileSync(sidecar, 'utf8')
    // A topic renamed in the contract: the next build rewrites the sidecar it wrote.
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS.replace('"payments:refund"', '"payments:reverse"'))
    await bundlers.rollup!(join(work, 'main.js'), join(work, 'out'))
    const second = readFileSync(sidecar, 'utf8')
    expect(second).not.toBe(first)
    expect(second).toContain('payments:reverse')
  })
})

describe('a sidecar path linked to a script, in a Vite dev server', () => {
  it('the module is served, the refusal is a warning with its code, and the script is unchanged', async () => {
    const { createServer } = await import('vite')
    const { default: plugin } = await import('unplugin-contracts/vite')
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS)
    symlinkSync('../../deploy.sh', join(vendor, 'payments.spec.d.json.ts'))
    writeFileSync(join(work, 'main.js'), "export { capture } from './vendor/contracts/payments.spec.json'\n")
    const warnings: string[] = []
    const logger = {
      hasWarned: false,
      info: () => {},
      warn: (message: string) => void warnings.push(message),
      warnOnce: (message: string) => void warnings.push(message),
      error: () => {},
      clearScreen: () => {},
      hasErrorLogged: () => false,
    }
    const server = await createServer({ root: work, configFile: false, customLogger: logger, plugins: [plugin()], server: { host: '127.0.0.1', port: 0 } })
    try {
      await server.listen()
      const base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
      const main = await (await fetch(`${base}/main.js`)).text()
      const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(main)?.[1]
      expect(url, main).toBeDefined()
      expect((await fetch(base + url)).status).toBe(200)
      // The sidecar is written once the saves pause (50 ms): wait for its warning, at most 15 s.
      const end = Date.now() + 15_000
      while (!warnings.some((w) => w.includes('CONTRACTS_WRITE_REFUSED')) && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
      expect(warnings.join('\n')).toMatch(/CONTRACTS_WRITE_REFUSED: .*payments\.spec\.d\.json\.ts is a symbolic link/)
    } finally {
      await server.close()
    }
    expect(script()).toEqual({ text: SCRIPT, link: false })
  })
})

describe('`contracts types` through a link', () => {
  it('the sidecar: exit 1, CONTRACTS_WRITE_REFUSED, the script unchanged', async () => {
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS)
    symlinkSync('../../deploy.sh', join(vendor, 'payments.spec.d.json.ts'))
    const r = contracts(['types', join(vendor, 'payments.spec.json')])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/error CONTRACTS_WRITE_REFUSED: .*payments\.spec\.d\.json\.ts is a symbolic link/)
    expect(script()).toEqual({ text: SCRIPT, link: false })
  })

  it('the query declarations: exit 1, the script unchanged', async () => {
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS)
    symlinkSync('../../deploy.sh', join(vendor, 'payments.spec.json-queries.d.ts'))
    const r = await cli(['types', `${join(vendor, 'payments.spec.json')}?topics=payments:capture`])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/CONTRACTS_WRITE_REFUSED: .*payments\.spec\.json-queries\.d\.ts is a symbolic link/)
    expect(script()).toEqual({ text: SCRIPT, link: false })
  })

  it('a link in a parent folder: the contract folder itself reached through a link is the root (allowed), a sidecar is never written through a link below it', async () => {
    // The root may be a link (a workspace package linked into node_modules): only what is below it is checked.
    writeFileSync(join(vendor, 'payments.spec.json'), PAYMENTS)
    symlinkSync(vendor, join(work, 'linked'))
    const r = await cli(['types', join(work, 'linked/payments.spec.json')])
    expect(r.status).toBe(0)
    expect(lstatSync(join(vendor, 'payments.spec.d.json.ts')).isFile()).toBe(true)
  })

  it('unchanged content is not rewritten (mtime kept); a file the project wrote is updated', async () => {
    const contract = join(vendor, 'payments.spec.json')
    const sidecar = join(vendor, 'payments.spec.d.json.ts')
    writeFileSync(contract, PAYMENTS)
    expect((await cli(['types', contract])).stderr).toContain(`wrote ${sidecar}`)
    const past = new Date(Date.now() - 3_600_000)
    utimesSync(sidecar, past, past)
    const before = statSync(sidecar).mtimeMs
    expect((await cli(['types', contract])).stderr).toContain(`unchanged ${sidecar}`)
    expect(statSync(sidecar).mtimeMs).toBe(before)
    writeFileSync(contract, PAYMENTS.replace('"payments:refund"', '"payments:reverse"'))
    const again = await cli(['types', contract])
    expect([again.status, again.stderr]).toEqual([0, expect.stringContaining(`wrote ${sidecar}`)])
  })

  it('a file of the user at the sidecar path is not overwritten', async () => {
    const contract = join(vendor, 'payments.spec.json')
    writeFileSync(contract, PAYMENTS)
    writeFileSync(join(vendor, 'payments.spec.d.json.ts'), 'export declare const mine: 1\n')
    const r = await cli(['types', contract])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/CONTRACTS_WRITE_REFUSED: .*was not written by unplugin-contracts/)
    expect(readFileSync(join(vendor, 'payments.spec.d.json.ts'), 'utf8')).toBe('export declare const mine: 1\n')
  })
})

describe('`contracts generate`', () => {
  const v1 = () => {
    mkdirSync(join(work, 'v1'))
    mkdirSync(join(work, 'v2'))
    writeFileSync(join(work, 'v1/ledger.asyncapi.yaml'), readFileSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8'))
    writeFileSync(
      join(work, 'v2/ledger.asyncapi.yaml'),
      readFileSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8').replace('version: 2.0.0', 'version: 3.0.0'),
    )
  }

  it('two versions of one contract id with --target typescript: a usage error naming both inputs, and nothing written', async () => {
    v1()
    const out = join(work, 'out')
    const r = contracts(['generate', '--target', 'typescript', '--out', out, 'v1/ledger.asyncapi.yaml', 'v2/ledger.asyncapi.yaml'], work)
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/v1\/ledger\.asyncapi\.yaml and v2\/ledger\.asyncapi\.yaml both write .*ledger\.js; nothing was written/)
    expect(r.stderr).not.toContain('wrote')
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([])
  })

  it('an output name from a contract id (`../../x`, `#orders`) is a plain file name inside --out', async () => {
    const ledger = readFileSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
    for (const [id, name] of [
      ['../../x', '_x'],
      ['#orders', '_orders'],
    ]) {
      rmSync(join(work, 'out'), { recursive: true, force: true })
      writeFileSync(join(vendor, 'c.asyncapi.yaml'), ledger.replace('contract: ledger', `contract: '${id}'`))
      const r = await cli(['generate', '--target', 'typescript', '--out', 'out', 'vendor/contracts/c.asyncapi.yaml'], work)
      expect([id, r.status, r.stderr]).toEqual([id, 0, 'wrote 2 files under out\n'])
      expect([id, readdirSync(join(work, 'out')).sort()]).toEqual([id, [`${name}.d.ts`, `${name}.js`]])
      expect(readdirSync(work).sort()).toEqual(['deploy.sh', 'out', 'vendor'])
    }
  })

  it('an --out holding a link at an output: exit 1, the script unchanged, no other output written', async () => {
    const out = join(work, 'out')
    mkdirSync(out)
    symlinkSync('../deploy.sh', join(out, 'ledger.js'))
    const r = await cli(['generate', '--target', 'typescript', '--out', out, join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml')])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/CONTRACTS_WRITE_REFUSED: .*ledger\.js is a symbolic link/)
    expect(script()).toEqual({ text: SCRIPT, link: false })
    expect(readdirSync(out)).toEqual(['ledger.js'])
  })

  it('an --out holding a link in a folder component (--target rust, `src -> ../elsewhere`): exit 1, nothing written there', async () => {
    const out = join(work, 'crate')
    mkdirSync(out)
    mkdirSync(join(work, 'elsewhere'))
    symlinkSync('../elsewhere', join(out, 'src'))
    const r = await cli(['generate', '--target', 'rust', '--out', out, join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml')])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/CONTRACTS_WRITE_REFUSED: .*crate\/src is a symbolic link/)
    // One diagnostic for the folder, not one for each of the three files the crate has under it.
    expect(r.stderr.match(/CONTRACTS_WRITE_REFUSED/g)).toHaveLength(1)
    expect(readdirSync(join(work, 'elsewhere'))).toEqual([])
    expect(readdirSync(out)).toEqual(['src'])
  })

  it('an --out holding a file of the user (no marker): exit 1, the file unchanged; a second run over its own output is `unchanged`', async () => {
    const out = join(work, 'out')
    mkdirSync(out)
    writeFileSync(join(out, 'ledger.d.ts'), '// hand-written\n')
    const ledger = join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml')
    const r = await cli(['generate', '--target', 'typescript', '--out', out, ledger])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/CONTRACTS_WRITE_REFUSED: .*ledger\.d\.ts exists and was not written by unplugin-contracts/)
    expect(readFileSync(join(out, 'ledger.d.ts'), 'utf8')).toBe('// hand-written\n')
    expect(readdirSync(out)).toEqual(['ledger.d.ts'])
    rmSync(join(out, 'ledger.d.ts'))
    expect((await cli(['generate', '--target', 'typescript', '--out', out, ledger])).stderr).toBe(`wrote 2 files under ${out}\n`)
    expect((await cli(['generate', '--target', 'typescript', '--out', out, ledger])).stderr).toBe(`wrote 0 files under ${out} (2 unchanged)\n`)
    // The Rust crate carries the marker in every file, so a second generate updates it.
    const crate = join(work, 'crate')
    expect((await cli(['generate', '--target', 'rust', '--out', crate, ledger])).status).toBe(0)
    for (const file of ['Cargo.toml', 'src/lib.rs', 'src/common.rs', 'src/ledger.rs'])
      expect([file, readFileSync(join(crate, file), 'utf8').split('\n')[0]]).toEqual([file, expect.stringContaining('Generated by unplugin-contracts')])
    expect((await cli(['generate', '--target', 'rust', '--out', crate, ledger])).stderr).toBe(`wrote 0 files under ${crate} (4 unchanged)\n`)
    const serde = await cli(['generate', '--target', 'rust', '--serde', '--out', crate, ledger])
    expect([serde.status, serde.stderr]).toEqual([0, expect.stringMatching(/^wrote [1-4] files under /)])
    expect(readFileSync(join(crate, 'Cargo.toml'), 'utf8')).toContain('serde')
  })
})

describe('`contracts topology --out`', () => {
  // One small document: the SVG and HTML layouts of a whole bundle take seconds each.
  const ledger = [join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml')]

  it('onto a link: exit 1, the script unchanged', async () => {
    symlinkSync('deploy.sh', join(work, 'topology.mmd'))
    const r = contracts(['topology', '--format', 'mermaid', '--out', join(work, 'topology.mmd'), ...ledger])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/CONTRACTS_WRITE_REFUSED: .*topology\.mmd is a symbolic link/)
    expect(script()).toEqual({ text: SCRIPT, link: false })
  })

  it('onto a foreign file: exit 1, the file unchanged', async () => {
    writeFileSync(join(work, 'notes.html'), '<!doctype html>\n<p>my notes</p>\n')
    const r = await cli(['topology', '--format', 'html', '--out', join(work, 'notes.html'), ...ledger])
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/CONTRACTS_WRITE_REFUSED: .*notes\.html exists and was not written by unplugin-contracts/)
    expect(readFileSync(join(work, 'notes.html'), 'utf8')).toBe('<!doctype html>\n<p>my notes</p>\n')
  })

  it('each format carries the marker in its own comment, and a second run over its own file is `unchanged`', async () => {
    const starts: Record<string, RegExp> = {
      json: /^\{\n {2}"\$comment": "Generated by unplugin-contracts\. Do not edit\.",\n {2}"nodes"/,
      mermaid: /^%% Generated by unplugin-contracts\. Do not edit\.\nflowchart LR\n/,
      dot: /^\/\/ Generated by unplugin-contracts\. Do not edit\.\ndigraph topology \{\n/,
      svg: /^<!-- Generated by unplugin-contracts\. Do not edit\. -->\n<svg /,
      html: /^<!doctype html>\n<!-- Generated by unplugin-contracts\. Do not edit\. -->\n<html/,
    }
    for (const [format, start] of Object.entries(starts)) {
      const out = join(work, `topology.${format}`)
      const first = await cli(['topology', '--format', format, '--out', out, ...ledger])
      expect([format, first.status, first.stderr]).toEqual([format, 0, `wrote ${out}\n`])
      expect([format, readFileSync(out, 'utf8')]).toEqual([format, expect.stringMatching(start)])
      // Run again over its own file (the SVG and HTML layouts are the slow part, and their marker
      // lines are the unit tests' business): left alone.
      if (format === 'svg' || format === 'html') continue
      const second = await cli(['topology', '--format', format, '--out', out, ...ledger])
      expect([format, second.status, second.stderr]).toEqual([format, 0, `unchanged ${out}\n`])
    }
    // The JSON file is the stdout's JSON with the marker member first.
    const stdout = (await cli(['topology', ...ledger])).stdout
    expect(JSON.parse(readFileSync(join(work, 'topology.json'), 'utf8'))).toEqual({
      $comment: 'Generated by unplugin-contracts. Do not edit.',
      ...JSON.parse(stdout),
    })
  })
})

it('the vendored folder is left exactly as shipped after every refused write', async () => {
  cpSync(join(repo, 'test/fixtures/app/payments.spec.json'), join(vendor, 'payments.spec.json'))
  symlinkSync('../../deploy.sh', join(vendor, 'payments.spec.d.json.ts'))
  await cli(['types', join(vendor, 'payments.spec.json')])
  expect(readdirSync(vendor).sort()).toEqual(['payments.spec.d.json.ts', 'payments.spec.json'])
})
