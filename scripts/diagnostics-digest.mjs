// `node scripts/diagnostics-digest.mjs [--summary]`: compiles every contract under fixtures/ and
// conformance/ with the built compiler (dist/, so `npm run build` first) and prints, per file, each
// diagnostic (code, severity, pointer, line, column, message, data) in the order compile returns
// them and the sha256 of the module and of its declarations; the last line is the digest of all of
// it. Run on two commits, the outputs compare a refactoring's behaviour: equal digests, equal
// diagnostics and module bytes. Paths are printed relative to the repository, so two checkouts
// compare. `--summary` prints the last line only.
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = join(import.meta.dirname, '..')
const { ContractCompiler, formats } = await import(pathToFileURL(join(root, 'dist/src/index.js')).href)

/** Every file under `dir`, in a fixed order (sorted by path), symbolic links not followed. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : []))
}

const sha = (text) => (text === undefined ? '-' : createHash('sha256').update(text).digest('hex'))
/** The repository's own path, wherever it appears (messages name files too), as `<root>`. */
const portable = (text) => text.split(root + sep).join('<root>/')

const contracts = ['fixtures', 'conformance'].flatMap((dir) => files(join(root, dir))).filter((file) => formats.some((format) => format.match(file)))
const lines = []
for (const file of contracts) {
  // A fresh compiler per file: nothing one compile keeps can change another's result.
  const result = await new ContractCompiler().compile(file)
  lines.push(`${relative(root, file)} module ${sha(result.code)} dts ${sha(result.dts)}`)
  for (const d of result.diagnostics) {
    const data = d.data === undefined ? '' : ` ${JSON.stringify(d.data)}`
    lines.push(portable(`  ${d.severity} ${d.code} ${relative(root, d.file)}:${d.line}:${d.column} ${JSON.stringify(d.pointer)} ${d.message}${data}`))
  }
}
const digest = sha(lines.join('\n'))
if (!process.argv.includes('--summary')) for (const line of lines) console.log(line)
console.log(`${contracts.length} contracts, ${lines.length - contracts.length} diagnostics, digest ${digest}`)
