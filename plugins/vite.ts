import { entryExport } from '../src/plugin/entry-export.js'
import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/vite'`, then `contracts(options?)` in the vite config. */
const plugin = entryExport(contracts.vite)
export default plugin
/** What `require('unplugin-contracts/vite')` returns in a CommonJS config: the same factory. */
export { plugin as 'module.exports' }
