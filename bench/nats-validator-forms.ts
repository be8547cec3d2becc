/**
 * `nats-validators-data-vs-code`: how long a NATS module's payload validators take in the default
 * form (the schemas as data for the runtime's interpreter) against the option `validators: 'code'`
 * (a generated function per schema), side by side in one process (`pairedWithCpu`, alternated
 * rounds): the modules of `natsDocument(100, { payloads: true })` (a payload schema of its own on
 * every channel), each channel's validator on a valid payload and on one with a wrong member deep
 * in it (the first of a few its validator refuses). Verdicts are compared before anything is timed. `npx tsx bench/nats-validator-forms.ts`
 * (after `npm run build`) merges the row into bench/results.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ContractCompiler } from '../dist/src/index.js'
import { natsDocument } from './generate.js'
import { pairedWithCpu } from './nats-compile.js'
import { mergeIntoResults } from './results-file.js'

type Check = ((value: unknown) => boolean) & { errors?: unknown }

/** A payload every channel of `natsDocument(n, { payloads: true })` accepts: each member of the pool, valid. */
const VALID = {
  id: '0b6a5f8e-3c1d-4e2f-9a7b-1c2d3e4f5a6b',
  occurredAt: '2026-12-03T10:00:00Z',
  status: 'pending',
  amount: { amount: 12.5, currency: 'EUR' },
  quantity: 3,
  customerEmail: 'buyer@example.com',
  tags: ['a', 'b'],
  shipping: { street: '1 rue de la Paix', city: 'Lyon', postcode: '69001', country: 'FR' },
  lines: Array.from({ length: 4 }, (_, i) => ({ sku: `sku-${i}`, qty: i + 1, price: { amount: 2, currency: 'EUR' } })),
  priority: 'normal',
  note: 'leave at the door',
  confirmed: true,
  actor: { kind: 'user', id: 'u-1', name: null },
  score: 0.5,
  version: 1,
  callbackUrl: 'https://example.com/hook',
}
/**
 * Payloads with one wrong member, deep in the payload where a channel has it: a channel's invalid
 * payload is the first of these its validator refuses (every channel has at least one of the members).
 */
const INVALID = [
  { ...VALID, lines: [...VALID.lines.slice(0, 3), { sku: 'sku-3', qty: 'four', price: { amount: 2, currency: 'EUR' } }] },
  { ...VALID, shipping: { ...VALID.shipping, country: 'FRA' } },
  { ...VALID, actor: { ...VALID.actor, kind: 'robot' } },
  { ...VALID, amount: { amount: 12.5, currency: 'CHF' } },
  { ...VALID, tags: ['a', 'b', 'a'] },
  { ...VALID, version: -1 },
]

async function validators(work: string, file: string, options: object, name: string): Promise<Check[]> {
  const result = await new ContractCompiler().compile(file, options)
  if (result.code === undefined || result.diagnostics.length > 0) throw new Error(`${name}: ${JSON.stringify(result.diagnostics.slice(0, 2))}`)
  // Inside the repository, so `unplugin-contracts/runtime` resolves to this package by its own name.
  const module = join(work, `${name}.mjs`)
  writeFileSync(module, result.code)
  const exports = (await import(pathToFileURL(module).href)) as Record<string, { validatePayload?: Check }>
  return Object.keys(exports)
    .sort()
    .flatMap((key) => (typeof exports[key]?.validatePayload === 'function' ? [exports[key]!.validatePayload!] : []))
}

export async function natsValidatorFormCases(rounds: number, work: string): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  mkdirSync(work, { recursive: true })
  const file = join(work, 'forms100p.asyncapi.yaml')
  writeFileSync(file, natsDocument(100, { payloads: true }))
  const allData = await validators(work, file, {}, 'forms-data')
  const allCode = await validators(work, file, { nats: { validators: 'code' } }, 'forms-code')
  if (allData.length !== allCode.length) throw new Error(`validators: ${allData.length} data, ${allCode.length} code`)
  // The channels of the generated payloads (the interactions' own messages are other shapes).
  const channels = allCode.flatMap((check, i) => (check(VALID) === true ? [i] : []))
  if (channels.length < 90) throw new Error(`only ${channels.length} channels accept the payload`)
  const data = channels.map((i) => allData[i]!)
  const code = channels.map((i) => allCode[i]!)
  const invalid: unknown[] = []
  for (let i = 0; i < data.length; i++) {
    if (data[i]!(VALID) !== true) throw new Error(`channel ${i}: the data form refuses the valid payload: ${JSON.stringify(data[i]!.errors)}`)
    const payload = INVALID.find((candidate) => code[i]!(candidate) === false)
    if (payload === undefined) throw new Error(`channel ${i}: no invalid payload is refused`)
    invalid.push(payload)
    const verdicts = [data[i]!(payload), JSON.stringify(data[i]!.errors), code[i]!(payload), JSON.stringify(code[i]!.errors)]
    if (verdicts[0] !== verdicts[2] || verdicts[1] !== verdicts[3]) throw new Error(`channel ${i}: the forms disagree: ${verdicts.join(' ')}`)
  }
  const N = 200
  const batch = (checks: Check[], payloads: readonly unknown[]) => () => {
    let sink: unknown
    for (let n = 0; n < N; n++) for (let i = 0; i < checks.length; i++) sink = checks[i]!(payloads[i])
    return sink
  }
  const valids = code.map(() => VALID)
  const onValid = await pairedWithCpu({ code: batch(code, valids), data: batch(data, valids) }, rounds)
  const onInvalid = await pairedWithCpu({ code: batch(code, invalid), data: batch(data, invalid) }, rounds)
  return {
    'nats-validators-data-vs-code': {
      ratio: onValid.ratio.data,
      target: 'reported (the default form against the option validators: code; no target)',
      met: true,
      spread: onValid.spread.data,
      cpu_ratio: onValid.cpuRatio.data,
      data_ns_per_validation: (onValid.ms.data * 1e6) / (N * data.length),
      code_ns_per_validation: (onValid.ms.code * 1e6) / (N * code.length),
      invalid_ratio: onInvalid.ratio.data,
      invalid_cpu_ratio: onInvalid.cpuRatio.data,
      validations: N * data.length,
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await natsValidatorFormCases(Number(process.argv[2] ?? 15), join(import.meta.dirname, '.work/nats-validator-forms'))
  console.table(rows)
  mergeIntoResults(rows)
}
