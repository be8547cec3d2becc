// One process, one kind of compile in steady state: `warm` (one compiler, an edit before each compile) or `fresh` (a new compiler each time). Median CPU and wall per compile.
import { writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
const [root, kind] = [process.argv[2]!, process.argv[3]!]
const { ContractCompiler } = await import(join(root, 'dist/src/index.js'))
const { natsDocument } = await import(join(root, 'bench/generate.ts'))
const work = join(root, 'bench/.work'); mkdirSync(work, { recursive: true })
const file = join(work, `loop-${kind}.asyncapi.yaml`)
const base = natsDocument(500)
const texts = Array.from({ length: 43 }, (_, k) => base.replace('max_msgs: 1000000', `max_msgs: ${2000000 + k}`))
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const warm = new ContractCompiler()
const c: number[] = [], w: number[] = []
for (let k = 0; k < texts.length; k++) {
  writeFileSync(file, texts[k]!)
  const t = cpu(), s = performance.now()
  const r = await (kind === 'warm' ? warm : new ContractCompiler()).compile(file)
  if (r.code === undefined) throw new Error('no code')
  if (k >= 3) { c.push(cpu() - t); w.push(performance.now() - s) }
}
const med = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!
console.log(kind, 'cpu', med(c).toFixed(1), 'wall', med(w).toFixed(1))
