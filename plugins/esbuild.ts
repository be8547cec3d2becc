import { entryExport } from '../src/plugin/entry-export.js'
import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/esbuild'`, then `contracts(options?)` in the esbuild config. */
const plugin = entryExport(contracts.esbuild)
export default plugin
/** What `require('unplugin-contracts/esbuild')` returns in a CommonJS config: the same factory. */
export { plugin as 'module.exports' }
