import { entryExport } from '../src/plugin/entry-export.js'
import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/rollup'`, then `contracts(options?)` in the rollup config. */
const plugin = entryExport(contracts.rollup)
export default plugin
/** What `require('unplugin-contracts/rollup')` returns in a CommonJS config: the same factory. */
export { plugin as 'module.exports' }
