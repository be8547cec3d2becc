import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/vite'`, then `contracts(options?)` in the vite config. */
export default contracts.vite
