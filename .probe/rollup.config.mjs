import contracts from 'unplugin-contracts/rollup'
export default { input: 'broken.js', output: { file: 'out/r.js', format: 'es' }, plugins: [contracts()] }
