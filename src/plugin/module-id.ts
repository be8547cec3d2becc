/**
 * Module ids for compiled contracts. A contract import `./payments.spec.json?topics=a` becomes
 * `\0/abs/payments.spec.json.contract.js?topics=a`: the `\0` marks it virtual (Rollup convention,
 * kept out of other plugins' way) and the `.contract.js` ending keeps JSON plugins, which match
 * `.json` and `.json?`, from claiming it. esbuild gets the same id without `\0`, so that its path
 * is a real location and the module's directory is the contract's.
 */
const SUFFIX = '.contract.js'

export function toModuleId(file: string, query: string, virtualPrefix: boolean): string {
  return `${virtualPrefix ? '\0' : ''}${file}${SUFFIX}${query ? '?' + query : ''}`
}

export function parseModuleId(id: string): { file: string; query: string } | undefined {
  const bare = id.startsWith('\0') ? id.slice(1) : id
  const q = bare.indexOf('?')
  const path = q === -1 ? bare : bare.slice(0, q)
  if (!path.endsWith(SUFFIX)) return undefined
  return { file: path.slice(0, -SUFFIX.length), query: q === -1 ? '' : bare.slice(q + 1) }
}

/** `./x.spec.json?topics=a` -> [`./x.spec.json`, `topics=a`]. */
export function splitQuery(specifier: string): [string, string] {
  const q = specifier.indexOf('?')
  return q === -1 ? [specifier, ''] : [specifier.slice(0, q), specifier.slice(q + 1)]
}
