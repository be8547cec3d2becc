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
  /** The resolutions under way, by importer and specifier. */
  const pending = new Map<string, Promise<string | undefined>>()
  const key = (specifier: string, importer: string | undefined) => `${importer ?? ''}\0${specifier}`
  /**
   * Whether the bundler's resolver calls this plugin again, from the same importer, for the
   * specifier it is asked: esbuild's `build.resolve` runs every plugin's `onResolve`. Rollup's family
   * is asked with `skipSelf`, which leaves this plugin out; Rspack runs its resolver plugins outside
   * the resolver asked here, and webpack's resolver calls this one without an importer (the
   * resolution then declines: `ask` needs one).
   */
  const reenters = meta.framework === 'esbuild'
  /** `undefined` when the bundler's resolver has no answer (or there is none to ask). */
  function resolve(context: RollupLikeContext, specifier: string, importer: string | undefined): Promise<string | undefined> {
    const k = key(specifier, importer)
    // The same specifier from the same module, asked again while the first is under way (the
    // contract imported with and without a query): the one resolution answers both. Declined
    // instead, the second import was left to the bundler alone, which cannot resolve a query
    // (Rollup made it an external import of the raw file, in silence).
    const under = pending.get(k)
    if (under !== undefined) return under
    const asked = ask(context, specifier, importer).then(
      (found) => (found === undefined ? undefined : found.split('?')[0]),
      () => undefined,
    )
    pending.set(k, asked)
    void asked.finally(() => pending.delete(k))
    return asked
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
    /**
     * True inside the bundler's resolution that `resolve` started (its call of this plugin for the
     * same `source`): the plugin must not claim it. That call names the specifier without a query,
     * as `resolve` was asked; with Rollup's family there is no such call.
     */
    isPending: (source: string, importer: string | undefined) => reenters && !source.includes('?') && pending.has(key(source, importer)),
  }
}
