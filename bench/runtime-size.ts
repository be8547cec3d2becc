/**
 * The `runtime-size-one-benzene-topic` row of `npm run bench` (bench/run.ts): what a browser app
 * ships for one Benzene topic called over HTTP (client, validators, sender), minified and gzipped,
 * beside the hand-written `fetch` call it replaces (no checks at all), and what each part weighs:
 * esbuild's metafile of the same app, minified bytes per runtime file and for the contract's module.
 * `npx tsx bench/runtime-size.ts` runs it alone and merges the row into bench/results.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build, transform } from 'esbuild'
import { rollup } from 'rollup'
import contractsEsbuild from '../dist/plugins/esbuild.js'
import contractsRollup from '../dist/plugins/rollup.js'
import { mergeIntoResults } from './results-file.js'

const APP =
  "import { capture, messageEndpoint } from './payments.spec.json'\nimport { createHttpSender } from 'unplugin-contracts/runtime/http'\n" +
  'const sender = createHttpSender({ baseUrl: location.origin, endpoint: messageEndpoint })\n' +
  "capture.send(sender, { OrderId: 'o-1', Amount: 1 }).then((r) => console.log(r.isSuccessful ? r.payload.PaymentId : r.errors))"

const HAND_WRITTEN =
  "fetch(location.origin + '/benzene/invoke', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ topic: 'payments:capture', headers: { 'benzene-version': 'v2' }, body: JSON.stringify({ OrderId: 'o-1', Amount: 1 }) }) }).then((r) => r.json()).then((r) => console.log(r.isSuccessful ? JSON.parse(r.body).PaymentId : r.body))"

const gzipped = async (code: string) => gzipSync((await transform(code, { minify: true, format: 'esm' })).code).length

export async function runtimeSizeCases(dir: string): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'payments.spec.json'), readFileSync(join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json')))
  const entry = join(dir, 'one-topic.entry.js')
  writeFileSync(entry, APP)
  // The figure: Rollup bundles, esbuild minifies, gzip (as the tree-shaking rows).
  const bundle = await rollup({ input: entry, plugins: [contractsRollup({ types: false })], onwarn: () => {} })
  const { output } = await bundle.generate({ format: 'es' })
  await bundle.close()
  const bytes = await gzipped(output[0].code)
  // The parts: the same app bundled and minified by esbuild, each input's minified bytes.
  const parts = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
    metafile: true,
    plugins: [contractsEsbuild({ types: false })],
  })
  // Metafile paths are relative to the working folder, some behind a namespace (`unplugin-contracts:`).
  const nameOf = (file: string) =>
    file.includes('.contract.js')
      ? 'the contract module'
      : file.includes('dist/src/runtime/')
        ? file.slice(file.indexOf('dist/src/runtime/') + 17)
        : relative(dir, file)
  const inputs = Object.values(parts.metafile.outputs)[0]!.inputs
  const parts_min_bytes = Object.fromEntries(
    Object.entries(inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
      .map(([file, input]) => [nameOf(file), input.bytesInOutput]),
  )
  return {
    'runtime-size-one-benzene-topic': {
      ratio: bytes / 1024,
      target: '<= 3 KB min+gzip (reported beside the hand-written fetch call)',
      met: bytes <= 3 * 1024,
      bytes,
      hand_written_fetch_bytes: await gzipped(HAND_WRITTEN),
      esbuild_min_gzip_bytes: gzipSync(parts.outputFiles[0]!.text).length,
      parts_min_bytes,
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runtimeSizeCases(join(import.meta.dirname, '.work/runtime-size'))
  console.log(rows)
  mergeIntoResults(rows)
}
