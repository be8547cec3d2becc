import { recordingHost } from '../src/core/input-host.ts'
import { benzeneFormat } from '../src/formats/benzene/index.ts'
const file = '/work/main/bench/.work-profile/b1000.spec.json'
const phase = process.argv[2] ?? 'validate'
const t: number[] = []
for (let i = 0; i < 30; i++) {
  const parsed = (await benzeneFormat.parse(file, recordingHost())).parsed as any
  const s = performance.now()
  if (phase === 'validate') benzeneFormat.validate(parsed)
  else if (phase === 'normalize') benzeneFormat.normalize(parsed, new Map(), undefined)
  else { const m = benzeneFormat.normalize(parsed, new Map(), undefined); const s2 = performance.now(); benzeneFormat.generate(m.model!); t.push(performance.now() - s2); continue }
  t.push(performance.now() - s)
}
t.sort((a, b) => a - b); console.log(phase, t[15]!.toFixed(2))
