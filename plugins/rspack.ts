import { contracts } from '../src/plugin/index.js'

/** `import contracts from 'unplugin-contracts/rspack'`, then `contracts(options?)` in the rspack config. */
export default contracts.rspack
