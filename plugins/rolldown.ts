import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/rolldown'`, then `contracts(options?)` in the rolldown config. */
export default contracts.rolldown
