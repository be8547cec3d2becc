/**
 * docs/performance.md cannot drift from the measurements: every figure it quotes and every row of
 * its table are bench/results.json's values, rounded as the chapter rounds them; every results.json
 * key it names exists; it speaks to users (no issue numbers, no "Issue" sections); and the links
 * into it from the other chapters land on a heading.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  KEY_SHAPE,
  PERFORMANCE_DOC,
  RESULTS,
  asShown,
  benchFile,
  boldNumbers,
  fieldValue,
  quotedFigures,
  refreshedDoc,
  type Results,
} from '../scripts/performance-doc.js'

const root = join(import.meta.dirname, '..')
const doc = readFileSync(PERFORMANCE_DOC, 'utf8')
const results = JSON.parse(readFileSync(RESULTS, 'utf8')) as Results
/** Code spans shaped like a results.json key that are something else. */
const NOT_KEYS = new Set<string>(['runtime-schema-check', 'js-yaml'])

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

describe('docs/performance.md', () => {
  it('is what `npm run docs:performance` writes from bench/results.json (the table and every quoted figure)', () => {
    expect(doc).toBe(refreshedDoc(doc, results))
  })

  it('quotes each figure as results.json has it, rounded as the chapter rounds it', () => {
    const figures = quotedFigures(doc)
    expect(figures.length).toBeGreaterThan(40)
    for (const { key, field, shown } of figures) expect(shown, `${key}.${field}`).toBe(asShown(fieldValue(results, key, field), shown))
    // Every bold number is such a figure: none is quoted without the key it comes from.
    expect(boldNumbers(doc)).toHaveLength(figures.length)
    // The rounding follows the text: two decimals, none, or digits grouped.
    expect(asShown(3.4904, '3.49')).toBe('3.49')
    expect(asShown(36543, '36,543')).toBe('36,543')
    expect(asShown(0.996, '1.00')).toBe('1.00')
  })

  it('names only keys (and fields) that bench/results.json has, and a bench file for each row that exists', () => {
    const spans = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).filter((span) => KEY_SHAPE.test(span) && !NOT_KEYS.has(span))
    expect(spans.length).toBeGreaterThan(40)
    for (const span of spans) {
      const [key, field] = span.split('.') as [string, string | undefined]
      expect(results, span).toHaveProperty([key])
      if (field !== undefined) expect(results[key], span).toHaveProperty([field])
    }
    for (const key of Object.keys(results)) expect(existsSync(join(root, benchFile(key))), key).toBe(true)
  })

  it('speaks to users: no "Issue" sections, no issue numbers', () => {
    expect(doc).not.toMatch(/^#+ .*\bissues?\b/im)
    expect(doc).not.toMatch(/\bissues? \d+|#\d+\b/i)
  })

  it('every link into it from the other chapters and the README lands on one of its headings', () => {
    const anchors = new Set([...doc.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!)))
    const chapters = [
      join(root, 'README.md'),
      ...readdirSync(join(root, 'docs'))
        .filter((n) => n.endsWith('.md'))
        .map((n) => join(root, 'docs', n)),
    ]
    const links = chapters.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/performance\.md#([\w-]+)/g)].map((m) => ({ file, anchor: m[1]! })))
    const own = [...doc.matchAll(/\]\(#([\w-]+)\)/g)].map((m) => ({ file: PERFORMANCE_DOC, anchor: m[1]! }))
    expect(links.length + own.length).toBeGreaterThan(3)
    for (const { file, anchor } of [...links, ...own]) expect(anchors, `${file}: #${anchor}`).toContain(anchor)
  })
})
