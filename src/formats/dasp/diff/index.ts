/**
 * The DASP differ: two versions of a selection (`*.dasp.json`) and the extension definitions they
 * list, classified for clients, hosts and saved sessions (DASP extension contracts, DASP-EXT-002 to
 * 008). Cost: linear in the documents' sizes: extensions are paired through maps, each pair of
 * definitions is compared once (an extension requested in two scopes shares its definition), and
 * every list comparison is a set difference; item schemas cost what the schema engine states.
 */
import type { FormatDiffer } from '../../../core/diff/types.js'
import type { DaspModel } from '../model.js'
import { compareAttributes } from './attributes.js'
import { compareContracts } from './contracts.js'
import { compareDependenciesAndOperations, compareInPlace, compareSupport } from './definitions.js'
import { compareRequested, pairExtensions } from './extensions.js'
import { Findings } from './findings.js'
import { comparePolicy } from './policy.js'
import { DASP_DIFF_RULES } from './rules.js'
import { compareSettingDefinitions } from './setting-definitions.js'
import { compareSettingValues } from './settings.js'
import { readVersion } from './sides.js'

export { DASP_DIFF_RULES } from './rules.js'

export const daspDiffer: FormatDiffer<DaspModel> = {
  format: 'dasp',
  rules: DASP_DIFF_RULES,
  async diff(oldSide, nextSide) {
    const [old, next] = await Promise.all([readVersion(oldSide), readVersion(nextSide)])
    const out = new Findings()
    compareContracts(old, next, out)
    const paired = pairExtensions(old, next)
    compareRequested(old, next, paired, out)
    const definitionKey = (pair: (typeof paired.pairs)[number]) =>
      JSON.stringify([pair.old.definition?.file, pair.old.version, pair.next.definition?.file, pair.next.version])
    // The settings each pair of definitions has selected, in any scope and either version: what saved sessions recorded.
    const selected = new Map<string, Set<string>>()
    for (const pair of paired.pairs) {
      const names = selected.get(definitionKey(pair)) ?? new Set<string>()
      for (const name of [...Object.keys(pair.old.settings), ...Object.keys(pair.next.settings)]) names.add(name)
      selected.set(definitionKey(pair), names)
    }
    const comparedDefinitions = new Set<string>()
    for (const pair of paired.pairs) {
      compareSettingValues(old, next, pair, out)
      const a = pair.old.definition
      const b = pair.next.definition
      if (!a || !b) continue
      const key = definitionKey(pair)
      if (comparedDefinitions.has(key)) continue
      comparedDefinitions.add(key)
      const uri = pair.next.uri
      compareDependenciesAndOperations(a, b, uri, out)
      compareSettingDefinitions(a, b, uri, selected.get(key)!, out)
      compareAttributes(a, b, uri, out)
      compareSupport(a, b, uri, out)
      if (pair.old.version === pair.next.version) compareInPlace(a, b, uri, pair.next.version, out)
    }
    comparePolicy(old, next, out)
    return out.sorted()
  },
}
