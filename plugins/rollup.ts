import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/rollup'`, then `contracts(options?)` in the rollup config. */
export default contracts.rollup
