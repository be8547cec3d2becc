/**
 * `npx tsx scripts/corpus-hashes.ts [out.json]`: the SHA-256 of the module and the declarations of
 * every contract under fixtures/ and examples/ (every file a built-in format claims), compiled with
 * the default options by a fresh compiler, or the codes of its diagnostics when it has errors; and
 * the topology projection of every NATS bundle there (each folder with a `bundle.lock.json`).
 *
 * A refactoring of the pipeline must leave these bytes alone: run it before and after and compare
 * the two files (`diff`, or `--compare before.json after.json`, which prints what differs and exits 1).
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ContractCompiler, topology } from '../src/index.js'

const root = join(import.meta.dirname, '..')
const sha = (text: string | undefined) => (text === undefined ? null : createHash('sha256').update(text).digest('hex'))

/** Every file under `dir` (sorted, depth-first), leaving out what a build or a tool wrote there. */
function files(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name === 'node_modules' || entry.name.startsWith('dist')) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...files(path))
    else if (entry.isFile()) out.push(path)
  }
  return out
}

interface Entry {
  module: string | null
  declarations: string | null
  diagnostics: string[]
}

async function hashes(): Promise<Record<string, Entry>> {
  const probe = new ContractCompiler()
  const contracts = ['fixtures', 'examples'].flatMap((dir) => files(join(root, dir))).filter((file) => probe.formatOf(file) !== undefined)
  const out: Record<string, Entry> = {}
  for (const file of contracts) {
    // A fresh compiler per contract: no cache and no memos carried from one file to the next.
    const result = await new ContractCompiler().compile(file)
    out[relative(root, file).split('\\').join('/')] = {
      module: sha(result.code),
      declarations: sha(result.dts),
      diagnostics: result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.pointer}`),
    }
  }
  for (const lock of ['fixtures', 'examples'].flatMap((dir) => files(join(root, dir))).filter((file) => file.endsWith('/bundle.lock.json'))) {
    const result = await topology(join(lock, '..'))
    out[`topology of ${relative(root, join(lock, '..')).split('\\').join('/')}`] = {
      module: sha(result.topology && JSON.stringify(result.topology)),
      declarations: null,
      diagnostics: result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.pointer}`),
    }
  }
  return out
}

function compare(before: Record<string, Entry>, after: Record<string, Entry>): number {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
  let differ = 0
  for (const name of names) {
    const [a, b] = [JSON.stringify(before[name] ?? null), JSON.stringify(after[name] ?? null)]
    if (a === b) continue
    differ++
    console.log(`${name}\n  before ${a}\n  after  ${b}`)
  }
  const modules = names.filter((name) => after[name]?.module).length
  console.log(`${names.length} contracts (${modules} with a module): ${differ === 0 ? 'identical' : `${differ} differ`}`)
  return differ === 0 ? 0 : 1
}

const args = process.argv.slice(2)
if (args[0] === '--compare') {
  const read = (file: string) => JSON.parse(readFileSync(file!, 'utf8')) as Record<string, Entry>
  process.exitCode = compare(read(args[1]!), read(args[2]!))
} else {
  const result = JSON.stringify(await hashes(), null, 1) + '\n'
  if (args[0]) writeFileSync(args[0], result)
  else process.stdout.write(result)
}
