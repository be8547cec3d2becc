import contracts from 'unplugin-contracts/vite'
export default { plugins: [contracts()], logLevel: 'info', build: { lib: { entry: 'broken.js', formats: ['es'] }, outDir: 'out/v' } }
