import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/webpack'`, then `contracts(options?)` in the webpack config. */
export default contracts.webpack
