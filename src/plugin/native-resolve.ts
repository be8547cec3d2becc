/**
 * Resolves a contract specifier with the bundler's own resolver, so that whatever the app configured
 * for other files (aliases, tsconfig `paths`, package `exports`, conditions) holds for contracts too.
 * Only for specifiers that are not paths (`@contracts/x.spec.json`, `acme/x.spec.json`): relative,
 * absolute and Vite root-relative ones are resolved by the factory directly.
 *
 * Each bundler's resolver runs its plugins again, this one included, for the same specifier: the
 * `pending` set makes the inner call decline (return null), so the bundler's own rules answer it.
 */
import { dirname } from 'node:path'
import type { UnpluginContextMeta } from 'unplugin'

interface RollupLikeContext {
  resolve?(source: string, importer?: string, options?: { skipSelf?: boolean }): Promise<{ id: string; external?: boolean | string } | null>
  getNativeBuildContext?(): unknown
}

interface EsbuildBuild {
  resolve(path: string, options: { kind: 'import-statement'; resolveDir: string; importer?: string }): Promise<{ path: string; errors: unknown[] }>
}

interface WebpackLikeResolver {
  resolve(context: object, path: string, request: string, resolveContext: object, callback: (error: Error | null, result?: string | false) => void): void
}
interface WebpackLikeCompiler {
  resolverFactory: { get(type: 'normal', options?: object): WebpackLikeResolver }
  options: { resolve?: object }
}

export function createNativeResolve(meta: UnpluginContextMeta) {
  const pending = new Set<string>()
  const key = (specifier: string, importer: string | undefined) => `${importer ?? ''}\0${specifier}`

  /** `undefined` when the bundler's resolver has no answer (or there is none to ask). */
  async function resolve(context: RollupLikeContext, specifier: string, importer: string | undefined): Promise<string | undefined> {
    const k = key(specifier, importer)
    pending.add(k)
    try {
      const found = await ask(context, specifier, importer)
      return found === undefined ? undefined : found.split('?')[0]
    } catch {
      return undefined
    } finally {
      pending.delete(k)
    }
  }

  async function ask(context: RollupLikeContext, specifier: string, importer: string | undefined): Promise<string | undefined> {
    switch (meta.framework) {
      case 'rollup':
      case 'rolldown':
      case 'vite': {
        const result = await context.resolve?.(specifier, importer, { skipSelf: true })
        return result && !result.external ? result.id : undefined
      }
      case 'esbuild': {
        const native = context.getNativeBuildContext?.() as { build?: EsbuildBuild } | undefined
        if (!native?.build || importer === undefined) return undefined
        const result = await native.build.resolve(specifier, { kind: 'import-statement', resolveDir: dirname(importer), importer })
        return result.errors.length === 0 && result.path ? result.path : undefined
      }
      case 'webpack':
      case 'rspack': {
        const compiler = (meta as { webpack?: { compiler: WebpackLikeCompiler }; rspack?: { compiler: WebpackLikeCompiler } })[meta.framework]?.compiler
        if (!compiler || importer === undefined) return undefined
        const resolver = compiler.resolverFactory.get('normal', compiler.options.resolve)
        return new Promise((done) => resolver.resolve({}, dirname(importer), specifier, {}, (error, result) => done(error || !result ? undefined : result)))
      }
      default:
        return undefined
    }
  }

  return {
    resolve,
    /** True inside the bundler's resolution that `resolve` started: the plugin must not claim it. */
    isPending: (specifier: string, importer: string | undefined) => pending.has(key(specifier, importer)),
  }
}
