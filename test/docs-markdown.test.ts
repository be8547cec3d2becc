/**
 * The docs and READMEs as a reader sees them, rendered by a real CommonMark + GFM renderer
 * (markdown-it): every table written renders as one table with all its rows and no cell dropped,
 * every relative link and image names a file of the repository, and every `#anchor` exists in the
 * page it names (GitHub's heading ids, or an explicit `id`).
 */
import { existsSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isRelative, markdownDocs, renderFile, splitTarget, type RenderedMarkdown } from './helpers/markdown.js'

const root = join(import.meta.dirname, '..')
const docs = markdownDocs(root)
const rendered = new Map<string, RenderedMarkdown & { source: string[] }>(docs.map((f) => [f, renderFile(root, f)]))
const page = (file: string) => {
  let r = rendered.get(file)
  if (!r) rendered.set(file, (r = renderFile(root, file)))
  return r
}

/** Source lines that are table rows: they start with `|`, outside code blocks. */
function rowRuns(doc: RenderedMarkdown & { source: string[] }): { first: number; last: number }[] {
  const runs: { first: number; last: number }[] = []
  doc.source.forEach((text, i) => {
    const line = i + 1
    if (doc.codeLines.has(line) || !/^\s*\|/.test(text)) return
    const run = runs.at(-1)
    if (run && run.last === line - 1) run.last = line
    else runs.push({ first: line, last: line })
  })
  return runs
}

/** Cells of a source row, split on pipes that GFM splits on (not `\|`; code spans do not protect a pipe). */
const sourceCells = (row: string): number => {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '')
  return inner.split(/(?<!\\)\|/).length
}

describe('docs and READMEs render as written', () => {
  it('covers README.md, docs/ and the READMEs', () => {
    expect(docs).toContain('README.md')
    expect(docs).toContain('docs/nats.md')
    expect(docs).toContain('examples/payments-client/README.md')
    expect(docs.length).toBeGreaterThan(20)
  })

  it.each(docs)('%s: every table renders whole, every row with its cells', (file) => {
    const doc = page(file)
    const problems: string[] = []
    for (const run of rowRuns(doc)) {
      const table = doc.tables.find((t) => t.first === run.first)
      if (!table) {
        problems.push(`${file}:${run.first}: ${run.last - run.first + 1} table lines render as no table`)
        continue
      }
      const rows = run.last - run.first // minus the delimiter row
      if (table.last !== run.last || table.cells.length !== rows)
        problems.push(`${file}:${run.first}: ${rows} rows written, ${table.cells.length} rendered (to line ${table.last} of ${run.last})`)
      const columns = sourceCells(doc.source[run.first - 1]!)
      for (let line = run.first; line <= run.last; line++)
        if (line !== run.first + 1 && sourceCells(doc.source[line - 1]!) !== columns)
          problems.push(
            `${file}:${line}: ${sourceCells(doc.source[line - 1]!)} cells in a table of ${columns} columns (an unescaped | splits a cell; GFM drops extra cells)`,
          )
    }
    for (const t of doc.tables)
      if (!rowRuns(doc).some((r) => r.first === t.first)) problems.push(`${file}:${t.first}: a table renders where no row starts with |`)
    expect(problems).toEqual([])
    if (rowRuns(doc).length) expect(doc.tables.length).toBeGreaterThan(0)
  })

  it.each(docs)('%s: every relative link and image names a file, every anchor exists', (file) => {
    const doc = page(file)
    const problems: string[] = []
    for (const link of doc.links) {
      const where = `${file}:${link.line}: ${link.target}`
      if (link.target.startsWith('#')) {
        const anchor = decodeURIComponent(link.target.slice(1))
        if (!doc.anchors.has(anchor)) problems.push(`${where}: no such anchor here`)
        continue
      }
      if (!isRelative(link.target)) continue
      const { path, anchor } = splitTarget(link.target)
      const target = join(dirname(join(root, file)), path)
      const inRepo = relative(root, target)
      if (inRepo.startsWith('..') || inRepo.startsWith(sep)) {
        problems.push(`${where}: outside the repository`)
        continue
      }
      if (!existsSync(target)) {
        problems.push(`${where}: no such file`)
        continue
      }
      if (link.kind === 'image' && !statSync(target).isFile()) problems.push(`${where}: an image that is not a file`)
      if (anchor !== undefined) {
        if (!target.endsWith('.md')) problems.push(`${where}: an anchor into a file that is not markdown`)
        else if (!page(inRepo.split(sep).join('/')).anchors.has(anchor)) problems.push(`${where}: no such anchor in ${inRepo}`)
      }
    }
    expect(problems).toEqual([])
  })
})
