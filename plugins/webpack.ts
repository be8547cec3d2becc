import { entryExport } from '../src/plugin/entry-export.js'
import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/webpack'`, then `contracts(options?)` in the webpack config. */
const plugin = entryExport(contracts.webpack)
export default plugin
/** What `require('unplugin-contracts/webpack')` returns in a CommonJS config: the same factory. */
export { plugin as 'module.exports' }
