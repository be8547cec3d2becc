/**
 * A bundler's plugin factory as its package entry exports it. The entries are ES modules; a
 * CommonJS config (`webpack.config.js`, a `vite.config.js` in an app without `"type": "module"`)
 * loads them with `require()`, which Node 20.19 and later runs on ES modules. The entry exports the
 * factory under the name `module.exports` too, which is what `require()` then returns, and the
 * factory is its own `default`, so both ways CommonJS code is written get it:
 * `require('unplugin-contracts/webpack')(options)` and `require('unplugin-contracts/webpack').default(options)`.
 */
export function entryExport<T extends object>(factory: T): T & { readonly default: T } {
  return Object.defineProperty(factory, 'default', { value: factory, enumerable: false }) as T & { readonly default: T }
}
