import { gzipSync } from 'node:zlib'
import { transform } from 'esbuild'

/**
 * What a generated module weighs against its contract document, as issue 33 measures it: the
 * module's text alone minified by esbuild (`minify`, ES module) then gzipped (node:zlib, default
 * level), beside the document as compact JSON (`JSON.stringify(JSON.parse(text))`) gzipped. Bytes,
 * not time: the same input gives the same numbers on any machine.
 */
export async function moduleSize(code: string, documentText: string): Promise<{ module: number; document: number; ratio: number }> {
  const minified = (await transform(code, { minify: true, format: 'esm' })).code
  const module = gzipSync(minified).length
  const document = gzipSync(JSON.stringify(JSON.parse(documentText))).length
  return { module, document, ratio: module / document }
}
