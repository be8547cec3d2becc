import { declareCodes } from '../core/codes.js'

/** The codes of the plugin's own options, checked once when the plugin is made (`resolveOptions`, src/plugin/options.ts). */
export const PLUGIN_CODES = declareCodes({
  CONTRACTS_UNKNOWN_PLUGIN_OPTION: {
    severity: 'warning',
    meaning:
      'An option the plugin does not have (a misspelling, an option of another plugin): ignored; the message names the known ones, `data: { option, known }`.',
  },
  CONTRACTS_INVALID_PLUGIN_OPTION: {
    severity: 'error',
    meaning: 'A plugin option with a value it cannot take (`types: true`, `include: 5`, `benzene: "x"`): the plugin is not made, `data: { option, value }`.',
  },
})

export type PluginCode = keyof typeof PLUGIN_CODES
