import { entryExport } from '../src/plugin/entry-export.js'
import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/rspack'`, then `contracts(options?)` in the rspack config. */
const plugin = entryExport(contracts.rspack)
export default plugin
/** What `require('unplugin-contracts/rspack')` returns in a CommonJS config: the same factory. */
export { plugin as 'module.exports' }
