/**
 * Type-checking cases of `npm run bench` (bench/run.ts); `npx tsx bench/types.ts` runs them alone.
 * `tsc --noEmit` (TypeScript 6, and 7 native) over an app importing a 1,000-topic Benzene contract
 * and a 2,000-channel NATS contract through their sidecars, beside the same app importing the same
 * documents as JSON (`resolveJsonModule`, the NATS one converted to JSON): wall time and peak RSS of
 * the whole process (/usr/bin/time), alternated.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { load } from 'js-yaml'
import { benzeneDocument, natsDocument } from './generate.js'
import { roundRatios } from './measure.js'

const root = join(import.meta.dirname, '..')
const COMPILERS = { ts6: join(root, 'node_modules/typescript/bin/tsc'), ts7: join(root, 'node_modules/typescript7/bin/tsc') }

function timed(tsc: string, dir: string): { ms: number; rssKb: number } {
  // /usr/bin/time writes its figures to stderr after tsc's own output: the last line.
  const line = execFileSync(
    'sh',
    ['-c', `/usr/bin/time -f '%e %M' ${JSON.stringify(process.execPath)} ${JSON.stringify(tsc)} -p ${JSON.stringify(dir)} 2>&1 >/dev/null | tail -1`],
    {
      encoding: 'utf8',
    },
  ).trim()
  const [seconds, kb] = line.split(' ').map(Number)
  return { ms: seconds! * 1000, rssKb: kb! }
}

export async function typeCases(RUNS: number, work: string): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const dir = join(work, 'types')
  rmSync(dir, { recursive: true, force: true })
  const sidecars = join(dir, 'sidecars')
  const plain = join(dir, 'plain')
  mkdirSync(sidecars, { recursive: true })
  mkdirSync(plain, { recursive: true })
  const benzene = benzeneDocument(1000)
  const nats = natsDocument(2000)
  writeFileSync(join(sidecars, 'big.spec.json'), benzene)
  writeFileSync(join(sidecars, 'big.asyncapi.yaml'), nats)
  writeFileSync(join(plain, 'big.json'), benzene)
  writeFileSync(join(plain, 'nats.json'), JSON.stringify(load(nats)))
  execFileSync(process.execPath, [join(root, 'dist/cli.js'), 'types', join(sidecars, 'big.spec.json'), join(sidecars, 'big.asyncapi.yaml')], {
    stdio: 'pipe',
  })
  const options = { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', types: [], skipLibCheck: false }
  writeFileSync(
    join(sidecars, 'app.ts'),
    "import * as b from './big.spec.json'\nimport * as n from './big.asyncapi.yaml'\nexport const topic: string = b.operation0.topic\nexport const subject: string = n.channel0.subject.render({ region: 'eu', entityId: 'e-abcdefgh' })\n",
  )
  writeFileSync(join(sidecars, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...options, allowArbitraryExtensions: true }, files: ['app.ts'] }))
  writeFileSync(
    join(plain, 'app.ts'),
    "import b from './big.json'\nimport n from './nats.json'\nexport const topic: string = b.requests[0]!.topic\nexport const title: string = n.info.title\n",
  )
  writeFileSync(join(plain, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...options, resolveJsonModule: true }, files: ['app.ts'] }))
  // Both apps must type-check: a timing of a failing check would measure nothing.
  for (const app of [sidecars, plain]) execFileSync(process.execPath, [COMPILERS.ts6, '-p', app], { stdio: 'pipe' })
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const results: Record<string, { ratio: number; met: boolean; [k: string]: unknown }> = {}
  for (const [name, tsc] of Object.entries(COMPILERS)) {
    const ours: Array<{ ms: number; rssKb: number }> = []
    const theirs: Array<{ ms: number; rssKb: number }> = []
    for (let i = 0; i < RUNS; i++) {
      ours.push(timed(tsc, sidecars))
      theirs.push(timed(tsc, plain))
    }
    const { ratio, spread } = roundRatios(
      ours.map((o) => o.ms),
      theirs.map((o) => o.ms),
    )
    results[`types-${name}-sidecars-vs-json`] = {
      ours_ms: median(ours.map((o) => o.ms)),
      baseline_ms: median(theirs.map((o) => o.ms)),
      ratio,
      spread,
      target: 'reported (keep the sidecars no dearer than the JSON import)',
      met: true,
      memory_ratio: median(ours.map((o, i) => o.rssKb / theirs[i]!.rssKb)),
      ours_max_rss_kb: median(ours.map((o) => o.rssKb)),
      json_max_rss_kb: median(theirs.map((o) => o.rssKb)),
    }
  }
  return results
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await typeCases(3, join(import.meta.dirname, '.work')))
