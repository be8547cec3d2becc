/** Subject cases of `npm run bench` (bench/run.ts); `npx tsx bench/subjects.ts` runs them alone and merges their rows into bench/results.json. */
import { createChannel } from '../dist/src/runtime/nats/index.js'
import { pairedRounds } from './paired-cpu.js'
import { mergeIntoResults } from './results-file.js'

/**
 * Subjects at run time: a checked `render` against an unchecked template literal, and a checked
 * `parse` against an unchecked `split` destructuring, for one, two and three parameters. Both sides
 * get the parameters as an object, as an application holds them. Each row has the ratio in wall time
 * and, as `cpu_ratio`, in this process's CPU time (bench/paired-cpu.ts).
 */
export async function subjectCases(RUNS: number): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const results: Record<string, { ratio: number; met: boolean; [k: string]: unknown }> = {}
  const regions = ['eu', 'us', 'ap']
  const ids = Array.from({ length: 1000 }, (_, i) => `e-k${i.toString(36)}abc`)
  const tenants = Array.from({ length: 7 }, (_, i) => `t${i}acme`)
  const N = 200_000
  const batch = (fn: (i: number) => unknown) => () => {
    let sink: unknown
    for (let i = 0; i < N; i++) sink = fn(i)
    return sink
  }
  const region = { kind: 'enum', values: regions } as const
  const id = { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 4, maxLength: 40, prefix: 'e-' } as const
  const tenant = { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 2, maxLength: 16, prefix: '' } as const
  const shapes = {
    1: {
      address: 'svc.{region}.done',
      template: ['svc', { param: 'region' }, 'done'],
      parameters: { region },
      params: (i: number) => ({ region: regions[i % 3]! }),
      literal: (p: Record<string, string>) => `svc.${p.region}.done`,
      subject: (i: number) => `svc.${regions[i % 3]}.done`,
      split: (s: string) => {
        const [, region] = s.split('.')
        return { region }
      },
    },
    2: {
      address: 'svc.{region}.{id}.done',
      template: ['svc', { param: 'region' }, { param: 'id' }, 'done'],
      parameters: { region, id },
      params: (i: number) => ({ region: regions[i % 3]!, id: ids[i % 1000]! }),
      literal: (p: Record<string, string>) => `svc.${p.region}.${p.id}.done`,
      subject: (i: number) => `svc.${regions[i % 3]}.${ids[i % 1000]}.done`,
      split: (s: string) => {
        const [, region, id] = s.split('.')
        return { region, id }
      },
    },
    3: {
      address: 'svc.{tenant}.{region}.{id}.done',
      template: ['svc', { param: 'tenant' }, { param: 'region' }, { param: 'id' }, 'done'],
      parameters: { tenant, region, id },
      params: (i: number) => ({ tenant: tenants[i % 7]!, region: regions[i % 3]!, id: ids[i % 1000]! }),
      literal: (p: Record<string, string>) => `svc.${p.tenant}.${p.region}.${p.id}.done`,
      subject: (i: number) => `svc.${tenants[i % 7]}.${regions[i % 3]}.${ids[i % 1000]}.done`,
      split: (s: string) => {
        const [, tenant, region, id] = s.split('.')
        return { tenant, region, id }
      },
    },
  }
  for (const [count, shape] of Object.entries(shapes)) {
    const channel = createChannel<Record<string, string>, never>({
      id: 'c',
      address: shape.address,
      template: shape.template,
      parameters: shape.parameters,
      filters: [],
      source: { file: 'x', pointer: '', line: 1, column: 1 },
    } as never)
    const subjects = Array.from({ length: 1000 }, (_, i) => shape.subject(i))
    const rendering = await pairedRounds(
      batch((i) => shape.literal(shape.params(i))),
      batch((i) => channel.subject!.render(shape.params(i))),
      RUNS,
    )
    const parsing = await pairedRounds(
      batch((i) => shape.split(subjects[i % 1000]!)),
      batch((i) => channel.subject!.parse(subjects[i % 1000]!)),
      RUNS,
    )
    results[`subject-render-${count}`] = { ...rendering, target: '<= 2', met: rendering.ratio <= 2, iterations: N }
    results[`subject-parse-${count}`] = { ...parsing, target: '<= 2', met: parsing.ratio <= 2, iterations: N }
  }
  return results
}

// Run alone (`npx tsx bench/subjects.ts [--quick]`), it prints its rows and merges them into bench/results.json.
if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await subjectCases(process.argv.includes('--quick') ? 5 : 9)
  console.table(rows)
  mergeIntoResults(rows)
}
