import { entryExport } from '../src/plugin/entry-export.js'
import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/rolldown'`, then `contracts(options?)` in the rolldown config. */
const plugin = entryExport(contracts.rolldown)
export default plugin
/** What `require('unplugin-contracts/rolldown')` returns in a CommonJS config: the same factory. */
export { plugin as 'module.exports' }
