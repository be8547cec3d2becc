import { Session } from 'node:inspector/promises'
import { ContractCompiler } from '../dist/src/index.js'
const file = '/work/main/bench/.work-profile/b1000.spec.json'
for (let i = 0; i < 5; i++) await new ContractCompiler().compile(file)
const session = new Session(); session.connect()
await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as any)
const N = 6
for (let i = 0; i < N; i++) await new ContractCompiler().compile(file)
const { profile } = await session.post('HeapProfiler.stopSampling') as any
const self = new Map<string, number>()
const parents = new Map<string, number>()
const walk = (n: any, stack: string[]) => {
  const cf = n.callFrame
  const k = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*node_modules\//, 'nm/').replace(/.*work\/main\//, '')}`
  self.set(k, (self.get(k) ?? 0) + n.selfSize)
  if (['sort', 'Set', 'join'].includes(cf.functionName)) { const pk = cf.functionName + ' <- ' + stack.slice(-3).join(' <- '); parents.set(pk, (parents.get(pk) ?? 0) + n.selfSize) }
  for (const c of n.children) walk(c, [...stack, `${cf.functionName}:${cf.url.split('/').pop()}:${cf.lineNumber}`])
}
walk(profile.head, [])
const tot = [...self.values()].reduce((a, b) => a + b, 0)
console.log('MB per compile', (tot / N / 1e6).toFixed(2))
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((v / N / 1e6).toFixed(2).padStart(7), k)

for (const [k, v] of [...parents].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log((v / N / 1e6).toFixed(2).padStart(7), k)
