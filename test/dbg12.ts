import { createRequire } from 'node:module'
import { benzeneDocument } from '../bench/generate.ts'
import { convert, definitionsDocument, type ConvertContext } from '../src/formats/benzene/json-schema.ts'
import { standaloneAjv, standaloneValidator } from '../src/core/standalone-validators.ts'
const require = createRequire(import.meta.url)
const Ajv = require('ajv')
const standaloneCode = require('ajv/dist/standalone').default
const doc = JSON.parse(benzeneDocument(1000))
const catalogue = doc.components.schemas
const mk = (direction: 'request' | 'response', documentId: string): ConvertContext => ({ catalogue, direction, int64: 'number', documentId, keys: new Map(), open: new Set() })
function roots() {
  const ctx = { request: mk('request', 'req'), response: mk('response', 'res') }
  const rs: any[] = []
  doc.requests.forEach((r: any, i: number) => { rs.push({ id: `q${i}`, json: convert(r.request, ctx.request) }); rs.push({ id: `s${i}`, json: convert(r.response, ctx.response) }) })
  return { rs, defs: [definitionsDocument(ctx.request), definitionsDocument(ctx.response)] }
}
for (const inlineRefs of [true, false]) {
  for (let rep = 0; rep < 2; rep++) {
    const t0 = performance.now()
    const { rs, defs } = roots()
    const ajv = new Ajv({ allErrors: true, ownProperties: true, strict: false, validateFormats: false, unicodeRegExp: true, inlineRefs, code: { source: true, lines: false, optimize: true, esm: true } })
    for (const d of defs) ajv.addSchema(d)
    for (const r of rs) ajv.addSchema({ ...r.json, $id: r.id })
    const t1 = performance.now()
    const map = Object.fromEntries(rs.map((r) => [r.id, r.id]))
    const code = standaloneCode(ajv, map)
    const t2 = performance.now()
    console.log({ inlineRefs, prep: (t1 - t0).toFixed(0), standalone: (t2 - t1).toFixed(0), size: code.length })
  }
}
