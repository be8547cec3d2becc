/** Ad-hoc: time each compile stage of one document (`node --import tsx bench/phases.ts nats 500`). */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { recordingHost } from '../dist/src/core/input-host.js'
import { natsFormat } from '../dist/src/formats/nats/index.js'
import { benzeneFormat } from '../dist/src/formats/benzene/index.js'
import { benzeneDocument, natsDocument } from './generate.js'
const [kind = 'nats', n = '500'] = process.argv.slice(2)
const dir = join(import.meta.dirname, '.work-profile')
mkdirSync(dir, { recursive: true })
const file = join(dir, kind === 'nats' ? `p${n}.asyncapi.yaml` : `p${n}.spec.json`)
writeFileSync(file, kind === 'nats' ? natsDocument(Number(n)) : benzeneDocument(Number(n)))
const format = (kind === 'nats' ? natsFormat : benzeneFormat) as any
const times: Record<string, number[]> = {}
const t = (name: string, f: () => any) => {
  const s = performance.now()
  const r = f()
  ;(times[name] ??= []).push(performance.now() - s)
  return r
}
for (let i = 0; i < 25; i++) {
  const host = recordingHost(dirname(file))
  const s = performance.now()
  const loaded = await format.load(file, host)
  ;(times.load ??= []).push(performance.now() - s)
  const checked = t('check', () => format.check(loaded.input))
  if (i === 0 && checked.diagnostics.length) console.log(checked.diagnostics.slice(0, 2))
  const options = format.resolveOptions(undefined, new Map(), file).options
  const m = t('model', () => format.model(checked.checked, options))
  const g = t('generate', () => format.generate(m.model))
  if (i === 0) console.log('code', g.code.length, 'dts', g.dts?.length)
}
for (const [k, v] of Object.entries(times))
  console.log(
    k,
    v
      .slice(5)
      .sort((a, b) => a - b)[10]!
      .toFixed(2),
  )
