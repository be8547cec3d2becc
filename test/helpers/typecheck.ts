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
