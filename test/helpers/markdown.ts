/**
 * Markdown as a reader sees it: rendered by markdown-it (CommonMark with GFM tables), so a test can
 * compare what a file's source shows with what renders, follow its links, and know the anchors its
 * headings get on GitHub.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import MarkdownIt from 'markdown-it'
import type { Token } from 'markdown-it'

const md = new MarkdownIt({ html: true })

/** The repository's docs and READMEs: README.md, docs/*.md and every tracked README.md outside the fixtures. */
export function markdownDocs(root: string): string[] {
  const readmes = execFileSync('git', ['ls-files', '--', '*README.md'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.endsWith('README.md') && !f.startsWith('fixtures/'))
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
  return [...new Set([...readmes, ...docs])].sort()
}

export interface MarkdownLink {
  /** 1-based line it is written on. */
  readonly line: number
  readonly kind: 'link' | 'image'
  readonly target: string
}

export interface RenderedTable {
  /** 1-based first and last source lines of the rendered table. */
  readonly first: number
  readonly last: number
  /** Rendered rows (header included), and for each the number of cells. */
  readonly cells: number[]
}

export interface RenderedMarkdown {
  readonly tables: RenderedTable[]
  readonly links: MarkdownLink[]
  /** Every anchor a link can name: GitHub's heading ids and explicit `id`/`name` attributes. */
  readonly anchors: Set<string>
  /** 1-based source lines inside fenced or indented code blocks. */
  readonly codeLines: Set<number>
}

/** GitHub's heading id (github-slugger): lower case, punctuation dropped, spaces to hyphens; repeats numbered. */
export function slug(text: string, seen: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
  const count = seen.get(base) ?? 0
  seen.set(base, count + 1)
  return count === 0 ? base : `${base}-${count}`
}

const HTML_ANCHOR = /<a\s[^>]*?\b(?:id|name)\s*=\s*"([^"]*)"/gi
const HTML_LINK = /<(a|img)\s[^>]*?\b(href|src)\s*=\s*"([^"]*)"/gi

export function renderMarkdown(text: string): RenderedMarkdown {
  const tokens = md.parse(text, {})
  const lines = text.split('\n')
  const tables: RenderedTable[] = []
  const links: MarkdownLink[] = []
  const anchors = new Set<string>()
  const codeLines = new Set<number>()
  const seen = new Map<string, number>()
  let line = 1
  let block: [number, number] = [0, 0]
  /** The line of the block on which `target` is written (a paragraph spans lines; its token knows only its first). */
  const lineOf = (target: string): number => {
    for (let l = block[0]; l < block[1]; l++) if (lines[l]!.includes(target)) return l + 1
    return line
  }
  let table: { first: number; last: number; cells: number[] } | undefined
  const fromHtml = (html: string) => {
    for (const m of html.matchAll(HTML_ANCHOR)) anchors.add(m[1]!)
    for (const m of html.matchAll(HTML_LINK)) links.push({ line: lineOf(m[3]!), kind: m[1]!.toLowerCase() === 'img' ? 'image' : 'link', target: m[3]! })
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.map) {
      line = t.map[0] + 1
      block = [t.map[0], t.map[1]]
    }
    if ((t.type === 'fence' || t.type === 'code_block') && t.map) for (let l = t.map[0] + 1; l <= t.map[1]; l++) codeLines.add(l)
    if (t.type === 'table_open') table = { first: t.map![0] + 1, last: t.map![1], cells: [] }
    if (t.type === 'tr_open') table?.cells.push(0)
    if ((t.type === 'td_open' || t.type === 'th_open') && table) table.cells[table.cells.length - 1]!++
    if (t.type === 'table_close' && table) {
      tables.push(table)
      table = undefined
    }
    if (t.type === 'heading_open') anchors.add(slug(plainText(tokens[i + 1]!.children ?? []), seen))
    if (t.type === 'html_block') fromHtml(t.content)
    for (const c of t.children ?? []) {
      if (c.type === 'link_open') links.push({ line: lineOf(c.attrGet('href') ?? ''), kind: 'link', target: c.attrGet('href') ?? '' })
      if (c.type === 'image') links.push({ line: lineOf(c.attrGet('src') ?? ''), kind: 'image', target: c.attrGet('src') ?? '' })
      if (c.type === 'html_inline') fromHtml(c.content)
    }
  }
  return { tables, links, anchors, codeLines }
}

/** The text of inline tokens as GitHub reads it for a heading id: code spans' text, no markup. */
function plainText(children: Token[]): string {
  return children.map((c) => (c.type === 'text' || c.type === 'code_inline' ? c.content : c.type === 'image' ? plainText(c.children ?? []) : '')).join('')
}

/** A link target that names a file of the repository (not a scheme, not only an anchor). */
export function isRelative(target: string): boolean {
  return target !== '' && !target.startsWith('#') && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target) && !target.startsWith('//')
}

/** A relative target split into its decoded path and its anchor. */
export function splitTarget(target: string): { path: string; anchor?: string } {
  const hash = target.indexOf('#')
  const raw = hash === -1 ? target : target.slice(0, hash)
  return { path: decodeURIComponent(raw.split('?')[0]!), anchor: hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1)) }
}

/** Reads and renders one file of the repository. */
export function renderFile(root: string, file: string): RenderedMarkdown & { source: string[] } {
  const text = readFileSync(join(root, file), 'utf8')
  return { ...renderMarkdown(text), source: text.split('\n') }
}
