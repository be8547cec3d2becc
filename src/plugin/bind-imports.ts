/**
 * webpack's view of a generated module: each runtime helper the module imports is bound to its
 * local name once (`const $type = $type$import;` on the import's own line), so that webpack records
 * one import reference per helper where it records one per call otherwise (a dependency object
 * made, resolved and rewritten for each of the hundreds of calls a module's validators make). The
 * calls themselves are untouched, and no line moves: the module's line-level source map and the
 * positions of its errors stay as they are. Other bundlers track a module's names themselves and
 * get the module as generated.
 */

/** One import line of a generated module: named runtime helpers, each renamed (`name as $local`). */
const IMPORT_LINE = /^import \{ ([\w$]+ as [\w$]+(?:, [\w$]+ as [\w$]+)*) \} from ("unplugin-contracts\/runtime(?:\/[\w-]+)*");$/gm

/** The suffix of the import binding that a helper's local name is bound from. */
const SUFFIX = '$import'

/** Whether `text` has the identifier `name` (not as a part of a longer one). */
const named = (text: string, name: string) => new RegExp(`(?<![\\w$])${name.replaceAll('$', '\\$')}(?![\\w$])`).test(text)

/**
 * `code` with every runtime import line bound once (see above). A line is left as it is when a
 * name it would add is in the module already, or when a helper it imports is named above it: an
 * import is bound before the module runs, a `const` only where it stands.
 */
export function bindImportsOnce(code: string): string {
  return code.replace(IMPORT_LINE, (line: string, list: string, from: string, offset: number) => {
    const pairs = list.split(', ').map((pair) => pair.split(' as ') as [string, string])
    const above = code.slice(0, offset)
    if (pairs.some(([, local]) => code.includes(local + SUFFIX) || named(above, local))) return line
    const imports = pairs.map(([name, local]) => `${name} as ${local}${SUFFIX}`).join(', ')
    const bindings = pairs.map(([, local]) => `${local} = ${local}${SUFFIX}`).join(', ')
    return `import { ${imports} } from ${from}; const ${bindings};`
  })
}
