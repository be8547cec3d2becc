import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TSC, tsc } from './cli.js'

/**
 * Type-checks `sources` against generated declarations with `tsc --strict`, in `dir` (inside the
 * repository, so `unplugin-contracts/runtime` resolves to this package). `modules` maps a module
 * name to its declarations, written as `<name>.d.ts` for `import ... from './<name>.js'`.
 */
export function typecheck(
  dir: string,
  modules: Record<string, string>,
  sources: Record<string, string>,
  compiler = TSC,
): { status: number | null; output: string } {
  mkdirSync(dir, { recursive: true })
  for (const [name, dts] of Object.entries(modules)) writeFileSync(join(dir, `${name}.d.ts`), dts)
  for (const [file, text] of Object.entries(sources)) writeFileSync(join(dir, file), text)
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', types: [] },
      files: Object.keys(sources),
    }),
  )
  return tsc(['-p', '.'], dir, compiler)
}

/** What tsc made of one good file and one file per bad line (`typeVerdicts`). */
export interface TypeVerdicts {
  /** The compiler's output, for a failing assertion's message. */
  readonly output: string
  /** The good file has an error (it should compile). */
  readonly goodFailed: boolean
  /** The names of the bad lines tsc accepted (each should fail). */
  readonly badAccepted: string[]
  /** The names of the bad lines tsc refused. */
  readonly badRefused: string[]
}

/**
 * "Good compiles, each bad line fails": `header` + `good` as one file, `header` + each line of `bad`
 * as a file of its own (so one line's error cannot hide another's), type-checked in one tsc run.
 */
export function typeVerdicts(
  dir: string,
  modules: Record<string, string>,
  cases: { readonly header: string; readonly good: string; readonly bad: Readonly<Record<string, string>> },
  compiler = TSC,
): TypeVerdicts {
  const sources: Record<string, string> = { 'good.ts': `${cases.header}${cases.good}` }
  const names = Object.keys(cases.bad)
  names.forEach((name, i) => (sources[`bad${i}.ts`] = `${cases.header}${cases.bad[name]}\n`))
  const r = typecheck(dir, modules, sources, compiler)
  const failing = new Set([...r.output.matchAll(/^(\w+)\.ts\(/gm)].map((m) => m[1]))
  return {
    output: r.output,
    goodFailed: failing.has('good') || (r.status !== 0 && failing.size === 0),
    badAccepted: names.filter((_, i) => !failing.has(`bad${i}`)),
    badRefused: names.filter((_, i) => failing.has(`bad${i}`)),
  }
}
