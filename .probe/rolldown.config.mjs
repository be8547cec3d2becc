import contracts from 'unplugin-contracts/rolldown'
export default { input: 'broken.js', output: { file: 'out/rd.js', format: 'es' }, plugins: [contracts()] }
