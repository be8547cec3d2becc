/**
 * The file the suite loads for one of the compiler's sources, for a child process that must run the
 * same code as the test that starts it (a persistent cache's key holds the code's identity, which
 * differs between the sources and the build): under `npm test` tsc's output in `dist/`
 * (vitest.config.ts, BUILT; the package root is tsc's, kept as `dist/src/index.unbundled.js`), the
 * TypeScript source otherwise (a child then runs it with `--import tsx`).
 */
import { join } from 'node:path'

const repo = join(import.meta.dirname, '../..')

/** `source`: a path from the repository's root, as `src/core/persistent-cache.ts`. */
export function suiteModule(source: string): string {
  if (process.env.UNPLUGIN_CONTRACTS_TEST_BUILT !== '1') return join(repo, source)
  const built = source === 'src/index.ts' ? 'src/index.unbundled.ts' : source
  return join(repo, 'dist', built.replace(/\.ts$/, '.js'))
}
