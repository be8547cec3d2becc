/**
 * Module size cases of `npm run bench` (bench/run.ts); `npx tsx bench/module-size.ts` runs them alone
 * (after `npm run build`) and merges its rows into bench/results.json. A contract's module with
 * every export kept, minified and gzipped, against its contract document minified and gzipped
 * (`test/helpers/module-size.ts`): issue 33 asks for at most the document's size. Bytes, not time.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { compile, inspect } from '../dist/src/index.js'
import { storedHash } from '../src/formats/benzene/generate.js'
import { moduleSize } from '../test/helpers/module-size.js'
import { computedHashEstimate } from './computed-hash.js'
import { benzeneDocument } from './generate.js'

const root = join(import.meta.dirname, '..')

interface SizeRow {
  ratio: number
  target: string
  met: boolean
  module_bytes: number
  document_bytes: number
  [extra: string]: unknown
}

/** `file` compiled with `options`: its module and document min+gzip. */
async function measured(file: string, options?: object): Promise<{ module: number; document: number; ratio: number }> {
  const result = await compile(file, options as never)
  if (result.code === undefined) throw new Error(`${file} did not compile: ${JSON.stringify(result.diagnostics)}`)
  return moduleSize(result.code, readFileSync(file, 'utf8'))
}

const row = (m: { module: number; document: number; ratio: number }, extra: Record<string, unknown>): SizeRow => ({
  ratio: m.ratio,
  target: '<= 1 (module min+gzip / document min+gzip)',
  met: m.ratio <= 1,
  module_bytes: m.module,
  document_bytes: m.document,
  ...extra,
})

export async function moduleSizeCases(work: string): Promise<Record<string, SizeRow>> {
  mkdirSync(work, { recursive: true })
  const b1000 = join(work, 'size-b1000.spec.json')
  writeFileSync(b1000, benzeneDocument(1000))
  const code = await measured(b1000)
  const data = await measured(b1000, { benzene: { validators: 'data' } })
  // The floor no module that embeds its hashes can go under: the 1,000 topic-scoped contract hashes
  // (Benzene Contract Document §6), 32 bytes of entropy each, as the module stores them (base64).
  const hashes = await hashFloor(b1000)
  // The module if it computed each topic hash from the topic's projection instead of storing it (bench/computed-hash.ts).
  const moduleCode = async (options: object) => (await compile(b1000, options as never)).code!
  const computed = await computedHashEstimate(readFileSync(b1000, 'utf8'), {
    code: await moduleCode({}),
    data: await moduleCode({ benzene: { validators: 'data' } }),
    none: await moduleCode({ benzene: { validate: false } }),
  })
  const fixture = (name: string) => join(root, 'fixtures/benzene/valid', name)
  const small = Object.fromEntries(
    await Promise.all(
      ['payments.spec.json', 'schema-features.spec.json'].map(async (name) => {
        const [c, d] = [await measured(fixture(name)), await measured(fixture(name), { benzene: { validators: 'data' } })]
        return [name, { code: round(c.ratio), data: round(d.ratio) }] as const
      }),
    ),
  )
  const daspFile = join(root, 'examples/dasp-counter/counter.dasp.json')
  const dasp = await measured(daspFile)
  return {
    'module-size-benzene-1000': row(code, {
      note: "validators: 'code' (the default); benzeneDocument(1000)",
      data_module_bytes: data.module,
      data_ratio: data.ratio,
      topic_hashes_bytes: hashes,
      ratio_without_topic_hashes: (code.module - hashes) / code.document,
      computed_hash_ratio: computed.code,
      computed_hash_data_ratio: computed.data,
      computed_hash_interpreted_ratio: computed.interpreted,
      computed_hash_runtime_bytes: computed.runtime_bytes,
      fixtures: small,
    }),
    'module-size-dasp': row(dasp, {
      note: 'examples/dasp-counter/counter.dasp.json',
      // The exact selection request carries each extension's content pin, read from the definition files.
      inputs_bytes: daspInputs(daspFile),
      ratio_to_inputs: dasp.module / daspInputs(daspFile),
    }),
  }
}

const round = (n: number) => Math.round(n * 100) / 100

/** min+gzip of the topic hashes alone, each as the module writes it (a string literal of its stored form), in module order. */
async function hashFloor(file: string): Promise<number> {
  const { data } = await inspect(file)
  const hashes = Object.values((data as { hashes: { topics: Record<string, string> } }).hashes.topics).map((h) => JSON.stringify(storedHash(h)))
  return gzipSync(hashes.join(',')).length
}

/** min+gzip of everything the DASP module is made from: the selection and the extension definitions it lists. */
function daspInputs(selection: string): number {
  const { definitions } = JSON.parse(readFileSync(selection, 'utf8')) as { definitions: string[] }
  const texts = [selection, ...definitions.map((d) => join(dirname(selection), d))].map((f) => JSON.stringify(JSON.parse(readFileSync(f, 'utf8'))))
  return gzipSync(`[${texts.join(',')}]`).length
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await moduleSizeCases(join(import.meta.dirname, '.work'))
  console.table(
    Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, { ratio: round(v.ratio), module: v.module_bytes, document: v.document_bytes, met: v.met }])),
  )
  console.log(JSON.stringify(rows, null, 2))
  const file = join(import.meta.dirname, 'results.json')
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...rows }, null, 2) + '\n')
}
