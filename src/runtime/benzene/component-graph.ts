import { reach } from '../shared/reach.js'

/**
 * Component closures rebuilt at run time from one graph, for documents where writing each topic's
 * closure out would make the module quadratic in size (a long `$ref` chain entered by every
 * topic at another point). The compiler decides when (src/formats/benzene/generate.ts); the names
 * come out as `schemaClosure` gives them: every name reached, sorted by code unit.
 */
export interface ComponentGraph {
  closure(roots: readonly number[]): readonly string[]
}

/** `edges[i]`: the indices of the names `names[i]`'s schema refers to directly. */
export function componentGraph(names: readonly string[], edges: ReadonlyArray<readonly number[]>): ComponentGraph {
  return Object.freeze({
    closure(roots: readonly number[]): readonly string[] {
      const reached = reach(roots, (i) => edges[i] ?? [])
      return Object.freeze([...reached].map((i) => names[i]!).sort())
    },
  })
}
