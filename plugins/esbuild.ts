import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/esbuild'`, then `contracts(options?)` in the esbuild config. */
export default contracts.esbuild
